import Dispatch
import Foundation
import LoomService
import XCTest

final class LayoutPoolTests: XCTestCase {
    /// Counts jobs running at once and the maximum seen.
    final class Gauge: @unchecked Sendable {
        private let lock = NSLock()
        private var current = 0
        private(set) var maximum = 0
        private(set) var finished = 0
        private(set) var ran: [Int] = []
        func enter() { lock.lock(); current += 1; maximum = max(maximum, current); lock.unlock() }
        func leave(_ id: Int) { lock.lock(); current -= 1; finished += 1; ran.append(id); lock.unlock() }
        var snapshot: (current: Int, maximum: Int, finished: Int) {
            lock.lock(); defer { lock.unlock() }
            return (current, maximum, finished)
        }
    }

    func testAtMostWorkersJobsRunAtOnce() {
        let pool = LayoutPool(workers: 3, queueLimit: 100)
        let gauge = Gauge()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for k in 0..<20 {
            done.enter()
            XCTAssertTrue(pool.submit {
                gauge.enter()
                gate.wait()          // held until the test opens the gate
                gauge.leave(k)
                done.leave()
            })
        }
        XCTAssertTrue(waitFor(10) { gauge.snapshot.current == 3 })
        usleep(50_000)               // give a 4th job every chance to start wrongly
        XCTAssertEqual(gauge.snapshot.current, 3)
        XCTAssertEqual(pool.load.running, 3)
        XCTAssertEqual(pool.load.waiting, 17)
        for _ in 0..<20 { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(gauge.snapshot.maximum, 3)
        XCTAssertEqual(gauge.snapshot.finished, 20)
        XCTAssertEqual(Set(gauge.ran), Set(0..<20))
        XCTAssertTrue(waitFor(10) { pool.load.running == 0 && pool.load.waiting == 0 })
    }

    func testQueueLimitRefusesExtraSubmits() {
        let pool = LayoutPool(workers: 1, queueLimit: 2)
        let gauge = Gauge()
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        func job(_ k: Int) -> () -> Void {
            { gauge.enter(); gate.wait(); gauge.leave(k); done.leave() }
        }
        done.enter()
        XCTAssertTrue(pool.submit(job(0)))                  // runs (and blocks)
        XCTAssertTrue(waitFor(10) { gauge.snapshot.current == 1 })
        done.enter(); XCTAssertTrue(pool.submit(job(1)))    // waits
        done.enter(); XCTAssertTrue(pool.submit(job(2)))    // waits: queue now full
        XCTAssertFalse(pool.submit { XCTFail("a refused job ran") })
        XCTAssertFalse(pool.submit { XCTFail("a refused job ran") })
        XCTAssertEqual(pool.load.running, 1)
        XCTAssertEqual(pool.load.waiting, 2)
        for _ in 0..<3 { gate.signal() }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(gauge.ran, [0, 1, 2])                // one worker: in submission order
        XCTAssertEqual(gauge.snapshot.maximum, 1)
        XCTAssertTrue(waitFor(10) { pool.load.running == 0 && pool.load.waiting == 0 })
        // Room again once drained.
        let again = DispatchSemaphore(value: 0)
        XCTAssertTrue(pool.submit { again.signal() })
        XCTAssertEqual(again.wait(timeout: .now() + 10), .success)
    }

    func testZeroQueueLimitOnlyRunsWhatFitsInWorkers() {
        let pool = LayoutPool(workers: 2, queueLimit: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            XCTAssertTrue(pool.submit { gate.wait(); done.leave() })
        }
        XCTAssertFalse(pool.submit {})
        gate.signal(); gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
    }

    func testEveryAcceptedJobRunsUnderLoad() {
        // Many submitters, short jobs: accepted + refused = submitted, every accepted job runs
        // exactly once, concurrency never exceeds the workers.
        let pool = LayoutPool(workers: 4, queueLimit: 64)
        let gauge = Gauge()
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: 8 * 500)
        counts.initialize(repeating: 0)
        defer { counts.deallocate() }
        let lock = NSLock()
        var accepted = 0
        let done = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for k in 0..<500 {
                let id = t * 500 + k
                done.enter()
                let ok = pool.submit {
                    gauge.enter()
                    if id % 50 == 0 { usleep(200) }
                    lock.lock(); counts[id] += 1; lock.unlock()
                    gauge.leave(id)
                    done.leave()
                }
                if ok { lock.lock(); accepted += 1; lock.unlock() } else { done.leave() }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        XCTAssertEqual(gauge.snapshot.finished, accepted)
        XCTAssertLessThanOrEqual(gauge.snapshot.maximum, 4)
        XCTAssertGreaterThan(accepted, 0)
        XCTAssertTrue(counts.allSatisfy { $0 <= 1 })
        XCTAssertEqual(counts.reduce(0, +), accepted)
    }

    func testJobsAreReleasedAfterTheyRun() {
        // A finished job's closure (and what it captured, e.g. a request body) is not kept alive
        // by the pool's queue.
        final class Payload {}
        let pool = LayoutPool(workers: 1, queueLimit: 10)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        weak var weakPayload: Payload?
        do {
            done.enter()
            XCTAssertTrue(pool.submit { gate.wait(); done.leave() })        // occupies the worker
            let payload = Payload()
            weakPayload = payload
            done.enter()
            XCTAssertTrue(pool.submit { withExtendedLifetime(payload) {}; done.leave() })   // queued
        }
        gate.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertTrue(waitFor(10) { pool.load.running == 0 })
        XCTAssertNil(weakPayload, "the pool still holds a finished job")
    }

    func testAWorkersFirstJobIsReleasedWhileItRunsTheNext() {
        // The job that starts a worker is released when it has run, not when the worker has
        // run every job queued behind it (a block capturing it would hold it that long).
        final class Payload {}
        let pool = LayoutPool(workers: 1, queueLimit: 10)
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let secondStarted = DispatchSemaphore(value: 0)
        weak var weakPayload: Payload?
        do {
            let payload = Payload()
            weakPayload = payload
            XCTAssertTrue(pool.submit { withExtendedLifetime(payload) { first.wait() } })
        }
        XCTAssertTrue(pool.submit { secondStarted.signal(); second.wait() })   // queued behind it
        first.signal()
        XCTAssertEqual(secondStarted.wait(timeout: .now() + 10), .success)
        XCTAssertNil(weakPayload, "the worker still holds the job it started with")
        second.signal()
        XCTAssertTrue(waitFor(10) { pool.load.running == 0 })
    }

    func testForEachParallelVisitsEveryIndexOnce() {
        for count in [0, 1, 2, 7, 1000] {
            let seen = UnsafeMutableBufferPointer<Int>.allocate(capacity: max(count, 1))
            seen.initialize(repeating: 0)
            let lock = NSLock()
            LayoutPool.forEachParallel(count) { i in lock.lock(); seen[i] += 1; lock.unlock() }
            XCTAssertTrue(seen.prefix(count).allSatisfy { $0 == 1 }, "count \(count)")
            seen.deallocate()
        }
    }
}
