import Dispatch
import Foundation
import LoomLayout
import LoomService
import XCTest

/// One LayoutService under 16 threads: every answer equals the one a fresh service gives
/// for the same body, whatever the caches hold or evict meanwhile.
final class ServiceThreadSafetyTests: XCTestCase {
    /// Distinct trees sharing cells (so threads race on the same subtree-cache keys).
    private func trees() -> [String] {
        var out: [String] = []
        for n in [1, 2, 3, 5, 8, 13, 21] { out.append(SubtreeReuseTests.feed(n)) }
        for w in [200.0, 250.5, 375] { out.append(SubtreeReuseTests.feed(9, width: w)) }
        for s in [1.0, 3, 2.625] { out.append(SubtreeReuseTests.feed(9, scale: s)) }
        for c in [0, 3, 6] { out.append(SubtreeReuseTests.feed(9, changedAt: c)) }   // shape-0 cells
        // Concurrent stacks (children measured on other threads) inside concurrent requests.
        out.append(SubtreeReuseTests.feed(12).replacingOccurrences(of: #""direction": "vertical", "spacing": 1,"#,
                                                                  with: #""direction": "vertical", "spacing": 1, "concurrent": true,"#))
        // Flex, wrap and justify variety.
        for k in 0..<8 {
            let kids = (0..<(3 + k)).map { i in
                #"{"type": "node", "id": "n\#(i)", "style": {"width": \#(20 + 7 * i), "height": \#(10 + i % 4), "flexGrow": \#(i % 2), "flexShrink": \#((i + k) % 3)}}"#
            }.joined(separator: ",")
            let justify = ["start", "center", "end", "spaceBetween", "spaceAround"][k % 5]
            out.append(#"{"sizeRange": {"min": {"width": \#(90 + 11 * k), "height": 0}, "max": {"width": \#(90 + 11 * k), "height": 500}}, "root": {"type": "stack", "flexWrap": "\#(k % 2 == 0 ? "wrap" : "noWrap")", "justifyContent": "\#(justify)", "alignItems": "start", "lineSpacing": 3, "children": [\#(kids)]}}"#)
        }
        // Errors are answers too.
        out.append(#"{"root": {"type": "ratio", "ratio": -1, "child": {"type": "node"}}}"#)
        out.append("{\"root\": ")
        return out
    }

    func testSixteenThreadsGetWhatAFreshServiceGives() {
        let bodies = trees()
        XCTAssertEqual(Set(bodies).count, bodies.count, "\(bodies.enumerated().filter { b in bodies.firstIndex(of: b.element) != b.offset }.map(\.offset))")
        let expected = bodies.map { LayoutService(textMeasurer: nil).layout(body: Array($0.utf8)) }
        for (k, e) in expected.enumerated() where k < bodies.count - 2 { XCTAssertEqual(e.status, 200, "tree \(k)") }

        // Small caches, so entries are evicted and recomputed while other threads read them.
        var config = ServiceConfiguration()
        config.cacheEntries = 6
        config.cacheBytes = 64 << 10
        config.subtreeCacheEntries = 40
        config.subtreeCacheBytes = 1 << 20
        let service = LayoutService(configuration: config, textMeasurer: nil)

        let threads = 16, perThread = 120
        let lock = NSLock()
        var mismatches: [String] = []
        var served = 0, hits = 0
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var rng = UInt64(t + 1) &* 0x9E3779B97F4A7C15
            var local: [String] = []
            var localHits = 0
            for i in 0..<perThread {
                rng = LCG.step(rng)
                let k = Int(rng >> 33) % bodies.count
                let o = service.layout(body: Array(bodies[k].utf8))
                if o.cacheHit { localHits += 1 }
                if o.status != expected[k].status || o.body != expected[k].body || o.key != expected[k].key {
                    local.append("thread \(t) request \(i): tree \(k)")
                }
            }
            lock.lock(); mismatches += local; served += perThread; hits += localHits; lock.unlock()
        }
        XCTAssertEqual(served, threads * perThread)
        XCTAssertEqual(mismatches, [])
        XCTAssertGreaterThan(hits, 0)
        XCTAssertLessThanOrEqual(service.responseCache.statistics.entries, 6)
        XCTAssertGreaterThan(service.responseCache.statistics.evictions, 0)
    }

    func testConcurrentBatchesAndSingleRequests() {
        let bodies = Array(trees().prefix(12))
        let expected = bodies.map { Svc.text(LayoutService(textMeasurer: nil).layout(body: Array($0.utf8)).body) }
        let batchBody = Array(#"{"items": [\#(bodies.joined(separator: ","))]}"#.utf8)
        let expectedBatch = #"{"results":[\#(expected.joined(separator: ","))]}"#
        let service = LayoutService(textMeasurer: nil)
        let lock = NSLock()
        var failures: [String] = []
        DispatchQueue.concurrentPerform(iterations: 16) { t in
            for i in 0..<10 {
                if (t + i) % 4 == 0 {
                    let o = service.batch(body: batchBody, forEachParallel: LayoutPool.forEachParallel)
                    if o.status != 200 || Svc.text(o.body) != expectedBatch {
                        lock.lock(); failures.append("batch \(t)/\(i)"); lock.unlock()
                    }
                } else {
                    let k = (t * 5 + i) % bodies.count
                    let o = service.layout(body: Array(bodies[k].utf8))
                    if Svc.text(o.body) != expected[k] { lock.lock(); failures.append("single \(t)/\(i)"); lock.unlock() }
                }
            }
        }
        XCTAssertEqual(failures, [])
    }

    func testTreesAtTheDepthLimitOnPoolThreads() {
        // The deepest trees the default limits accept (512 elements; stacks take two JSON
        // levels each) parse, decode, lay out and encode on Dispatch worker threads.
        var insets = #"{"type": "node", "style": {"width": 3, "height": 4}}"#
        for _ in 1..<512 { insets = #"{"type": "inset", "insets": {"top": 1}, "child": \#(insets)}"# }
        var stacks = #"{"type": "node", "id": "leaf", "style": {"width": 3, "height": 4}}"#
        for _ in 1..<512 { stacks = #"{"type": "stack", "children": [\#(stacks)]}"# }
        // Nodes laid out by the node below (a node whose `type` comes first is read by its
        // own step, which hands a `layout` to the general one: both steps' frames at every level).
        var nodes = #"{"type": "node", "style": {"width": 3, "height": 4}}"#
        for _ in 1..<512 { nodes = #"{"type": "node", "style": {"flexGrow": 1}, "layout": \#(nodes)}"# }
        let bodies = [#"{"root": \#(insets)}"#, #"{"root": \#(stacks)}"#, #"{"options": {"includeSpecs": true}, "root": \#(stacks)}"#,
                      #"{"root": \#(nodes)}"#]
        let service = LayoutService(textMeasurer: nil)
        let pool = LayoutPool(workers: 2, queueLimit: 10)
        let lock = NSLock()
        var statuses: [Int] = []
        let done = DispatchGroup()
        for body in bodies {
            done.enter()
            XCTAssertTrue(pool.submit {
                let o = service.layout(body: Array(body.utf8))
                let svg = service.layout(body: Array(body.utf8), format: .svg)
                lock.lock(); statuses += [o.status, svg.status]; lock.unlock()
                done.leave()
            })
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(statuses, Array(repeating: 200, count: 8))
        // 511 insets with top 1 above a 3×4 node: 3 × (4 + 511) at 2x.
        let o = service.layout(body: Array(bodies[0].utf8))
        XCTAssertTrue(o.cacheHit)
        let size = Svc.object(o.body)["size"] as? [String: Any]
        XCTAssertEqual(Svc.number(size?["width"]), 3)
        XCTAssertEqual(Svc.number(size?["height"]), 515)
        // Each node is as large as the node it is laid out by: 3 × 4 (the answer nests deeper
        // than Foundation's parser goes: read its text).
        let n = service.layout(body: Array(bodies[3].utf8))
        XCTAssertTrue(n.cacheHit)
        XCTAssertTrue(String(decoding: n.body, as: UTF8.self).hasPrefix(#"{"size":{"width":3,"height":4},"#))
    }

    func testConcurrentRequestsThroughTheLayoutPool() {
        let bodies = trees()
        let expected = bodies.map { LayoutService(textMeasurer: nil).layout(body: Array($0.utf8)).body }
        let service = LayoutService(textMeasurer: nil)
        let pool = LayoutPool(workers: 4, queueLimit: 10_000)
        let lock = NSLock()
        var wrong = 0
        let done = DispatchGroup()
        for i in 0..<400 {
            let k = (i * 7) % bodies.count
            done.enter()
            XCTAssertTrue(pool.submit {
                if service.layout(body: Array(bodies[k].utf8)).body != expected[k] { lock.lock(); wrong += 1; lock.unlock() }
                done.leave()
            })
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(wrong, 0)
    }
}
