import Dispatch
import Synchronization

/// A bounded Dispatch pool: at most `workers` jobs run at once on a concurrent Dispatch
/// queue, at most `queueLimit` wait; beyond that `submit` refuses (the caller answers 503).
public final class LayoutPool: @unchecked Sendable {
    public let workers: Int
    public let queueLimit: Int
    private let queue: DispatchQueue
    private struct State {
        var running = 0
        var pending: [() -> Void] = []
        var head = 0
    }
    private let state = Mutex(State())
    /// Placeholder left in a queue slot whose job was taken.
    private static let taken: @Sendable () -> Void = {}

    public init(workers: Int, queueLimit: Int, label: String = "loom.layout") {
        self.workers = Swift.max(1, workers)
        self.queueLimit = Swift.max(0, queueLimit)
        self.queue = DispatchQueue(label: label, qos: .userInitiated, attributes: .concurrent)
    }

    /// Jobs running plus jobs waiting.
    public var load: (running: Int, waiting: Int) {
        state.withLock { ($0.running, $0.pending.count - $0.head) }
    }

    /// Whether a job submitted now would be refused.
    public var isFull: Bool {
        state.withLock { $0.running >= workers && $0.pending.count - $0.head >= queueLimit }
    }

    /// Run `job` on the pool; false if the queue is full.
    @discardableResult
    public func submit(_ job: @escaping () -> Void) -> Bool {
        let start: Bool? = state.withLock { s in
            if s.running < workers { s.running += 1; return true }
            if s.pending.count - s.head >= queueLimit { return nil }
            s.pending.append(job)
            return false
        }
        guard let start else { return false }
        if start {
            // Handed over in a box the worker empties: a block capturing the job itself
            // would hold it (and its request) until the worker has run every job after it.
            let box = FirstJob(job)
            queue.async { self.run(box) }
        }
        return true
    }

    private final class FirstJob {
        var job: (() -> Void)?
        init(_ job: @escaping () -> Void) { self.job = job }
    }

    private func run(_ first: FirstJob) {
        var next = first.job
        first.job = nil
        while true {
            // The job (and what it captured) is released before this worker takes the lock
            // to count itself idle, so that `load.running == 0` means no job is held.
            do {
                let job = next!
                next = nil
                job()
            }
            next = state.withLock { s -> (() -> Void)? in
                if s.head < s.pending.count {
                    let next = s.pending[s.head]
                    // Release the taken job (and what it captured, e.g. a request body) now,
                    // not when the queue is next compacted.
                    s.pending[s.head] = LayoutPool.taken
                    s.head += 1
                    if s.head == s.pending.count {
                        s.pending.removeAll(keepingCapacity: true); s.head = 0
                    } else if s.head > 1024 && s.head * 2 > s.pending.count {
                        s.pending.removeFirst(s.head); s.head = 0
                    }
                    return next
                }
                s.running -= 1
                return nil
            }
            if next == nil { return }
        }
    }

    /// Run `body(i)` for `0..<count` in parallel on Dispatch and wait (batch items).
    public static func forEachParallel(_ count: Int, _ body: (Int) -> Void) {
        if count <= 1 { for i in 0..<count { body(i) }; return }
        DispatchQueue.concurrentPerform(iterations: count, execute: body)
    }
}
