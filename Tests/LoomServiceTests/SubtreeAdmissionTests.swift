import Foundation
import LoomLayout
import LoomService
import XCTest

/// How the service's passes use the shared subtree cache (`PassSubtreeCache`): a subtree is
/// laid out once per request whatever the shared cache holds, and the shared cache keeps it
/// from its second sighting on, so that a subtree met once stores and evicts nothing.
final class SubtreeAdmissionTests: XCTestCase {
    /// A cell of exactly `TreeDigest.sharedSubtreeMinimumElements` (6) elements: the cell node,
    /// its stack and four nodes. Only the cell node gets a subtree digest (its stack holds 5).
    static func cell(_ id: String, width: Double = 30) -> String {
        #"{"type": "node", "id": "\#(id)", "layout": {"type": "stack", "spacing": 2, "children": [{"type": "node", "style": {"preferredSize": {"width": \#(width), "height": 20}}}, {"type": "node", "style": {"preferredSize": {"width": 40, "height": 10}}}, {"type": "node", "style": {"preferredSize": {"width": 10, "height": 10}}}, {"type": "node", "style": {"preferredSize": {"width": 5, "height": 30}}}]}}"#
    }

    /// A vertical feed of `cells` (each a `cell(…)` body).
    static func feed(_ cells: [String]) -> String {
        #"{"sizeRange": {"min": {"width": 320, "height": 0}, "max": {"width": 320, "height": null}}, "root": {"type": "stack", "direction": "vertical", "children": [\#(cells.joined(separator: ", "))]}}"#
    }

    /// Lays `body` out as one service pass does (a fresh `PassSubtreeCache` over `shared`, or
    /// no cache) and returns the layouts computed and the encoded frames.
    private func pass(_ body: String, shared: SubtreeLayoutCache?) throws -> (count: Int, body: [UInt8], memo: Int) {
        let request = try RequestDecoder().decode(body: Array(body.utf8))
        request.hashTree()
        let cache = shared.map { PassSubtreeCache(shared: $0) }
        let context = LayoutContext(scale: request.scale, textMeasurer: nil, subtreeCache: cache)
        let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
        let encoded = ResponseEncoder(scale: request.scale, includeSpecs: false).encode(root: request.root, layout: layout)
        return (context.computedLayouts, encoded, cache?.memoCount ?? 0)
    }

    func testASubtreeRepeatedInOneRequestIsLaidOutOnce() throws {
        let one = try pass(Self.feed([Self.cell("a")]), shared: nil)
        XCTAssertGreaterThanOrEqual(one.count, 7)   // the feed stack, the cell node, its stack, four nodes
        let body = Self.feed((0..<40).map { Self.cell("c\($0)") })
        let uncached = try pass(body, shared: nil)
        XCTAssertGreaterThanOrEqual(uncached.count, 40 * (one.count - 1) + 1)
        let shared = SubtreeLayoutCache(maxEntries: 100, maxBytes: 1 << 20)
        let cached = try pass(body, shared: shared)
        // The feed stack and one cell, as a lone cell costs; the other 39 from the pass's memo.
        XCTAssertEqual(cached.count, one.count)
        XCTAssertGreaterThanOrEqual(cached.memo, 1)
        XCTAssertEqual(cached.body, uncached.body)
        // Met more than once in the request: kept in the shared cache, and the next request
        // takes its cells from there.
        let kept = shared.storage.statistics.entries
        XCTAssertEqual(kept, cached.memo)
        let again = try pass(Self.feed((0..<40).map { Self.cell("d\($0)") }), shared: shared)
        XCTAssertEqual(again.count, 1)
        XCTAssertGreaterThanOrEqual(shared.storage.statistics.hits, 40)
    }

    func testASubtreeIsSharedFromItsSecondRequestOn() throws {
        let shared = SubtreeLayoutCache(maxEntries: 100, maxBytes: 1 << 20)
        let uncached = try pass(Self.feed([Self.cell("x")]), shared: nil)
        // First sighting: laid out, kept in the pass's memo only.
        let first = try pass(Self.feed([Self.cell("a")]), shared: shared)
        XCTAssertEqual(first.count, uncached.count)
        XCTAssertGreaterThanOrEqual(first.memo, 1)
        var stats = shared.storage.statistics
        XCTAssertEqual(stats.entries, 0)
        XCTAssertEqual(stats.evictions, 0)
        XCTAssertEqual(stats.deferred, first.memo)
        // Second request (other ids, the same subtree): laid out again, now kept.
        let second = try pass(Self.feed([Self.cell("b")]), shared: shared)
        XCTAssertEqual(second.count, uncached.count)
        stats = shared.storage.statistics
        XCTAssertEqual(stats.entries, second.memo)
        XCTAssertEqual(stats.deferred, first.memo)
        XCTAssertEqual(stats.hits, 0)
        // Third: only the feed stack is computed, the cell is a hit.
        let third = try pass(Self.feed([Self.cell("c")]), shared: shared)
        XCTAssertEqual(third.count, 1)
        XCTAssertEqual(third.memo, 0)
        XCTAssertGreaterThanOrEqual(shared.storage.statistics.hits, 1)
        XCTAssertEqual(third.body, try pass(Self.feed([Self.cell("c")]), shared: nil).body)
        // Another subtree is its own first sighting.
        _ = try pass(Self.feed([Self.cell("d", width: 31)]), shared: shared)
        XCTAssertEqual(shared.storage.statistics.entries, second.memo)
    }

    /// Through the service: answers with one-off cells leave the shared cache empty; the
    /// metric counts their first sightings.
    func testOneOffRequestsStoreNothingInTheSharedCache() {
        let service = LayoutService(textMeasurer: nil)
        for k in 0..<20 {
            let outcome = service.layout(body: Array(Self.feed([Self.cell("a", width: 30 + Double(k))]).utf8))
            XCTAssertEqual(outcome.status, 200)
            XCTAssertFalse(outcome.cacheHit)
        }
        let stats = service.subtreeCache.storage.statistics
        XCTAssertEqual(stats.entries, 0)
        XCTAssertEqual(stats.evictions, 0)
        XCTAssertGreaterThanOrEqual(stats.deferred, 20)
        let metrics = ServiceMetrics()
        let text = String(decoding: metrics.render(cache: service.responseCache.statistics, subtree: stats, text: nil), as: UTF8.self)
        XCTAssertTrue(text.contains("\nloom_subtree_cache_first_sightings_total \(stats.deferred)\n"), text)
    }

    /// The doorkeeper has the slots it was made with, whatever is offered; it remembers a key
    /// while fewer others than it holds came after it (whatever their hashes), and forgets it
    /// once many more have.
    func testTheDoorkeeperIsBoundedAndExactWithinItsWindow() {
        let cache = LRUCache<Int, Int>(maxEntries: 64, maxBytes: 1 << 20, shards: 16, doorkeeperKeys: 64)
        // 4 keys a shard: tables of 8 slots, two generations.
        XCTAssertEqual(cache.doorkeeperKeys, 64)
        XCTAssertEqual(cache.doorkeeperSlots, 16 * 2 * 8)
        XCTAssertFalse(cache.offer(-1, for: -1, cost: 1))          // remembered
        // Three others, wherever they land: at most three after -1 in its shard.
        for k in 0..<3 { XCTAssertFalse(cache.offer(k, for: k, cost: 1)) }
        XCTAssertTrue(cache.offer(-1, for: -1, cost: 1))           // the second sighting: stored
        XCTAssertEqual(cache.value(for: -1), -1)
        XCTAssertTrue(cache.offer(-2, for: -1, cost: 1))           // held: replaced, as `set` does
        XCTAssertEqual(cache.value(for: -1), -2)
        XCTAssertFalse(cache.offer(-3, for: -3, cost: 1))
        for k in 3..<100_000 { XCTAssertFalse(cache.offer(k, for: k, cost: 1)) }
        XCTAssertEqual(cache.doorkeeperSlots, 16 * 2 * 8)
        var stats = cache.statistics
        XCTAssertEqual(stats.entries, 1)
        XCTAssertEqual(stats.evictions, 0)
        XCTAssertEqual(stats.deferred, 100_002)
        // 100,000 other keys over 16 shards that remember 8 each at most: -3 is forgotten.
        XCTAssertFalse(cache.offer(-3, for: -3, cost: 1))
        XCTAssertTrue(cache.offer(-3, for: -3, cost: 1))
        stats = cache.statistics
        XCTAssertEqual(stats.entries, 2)
        XCTAssertEqual(stats.deferred, 100_003)
        cache.removeAll()
        XCTAssertFalse(cache.offer(7, for: 7, cost: 1))            // forgotten by removeAll
        XCTAssertEqual(cache.statistics.entries, 0)

        // A shard's share rounded up to a power of two, at most 2^20 keys in all; none: `offer` is `set`.
        XCTAssertEqual(LRUCache<Int, Int>(maxEntries: 100, maxBytes: 100, shards: 16, doorkeeperKeys: 100).doorkeeperKeys, 128)
        XCTAssertEqual(LRUCache<Int, Int>(maxEntries: 100, maxBytes: 100, shards: 16, doorkeeperKeys: 1 << 40).doorkeeperKeys, 1 << 20)
        let plain = LRUCache<Int, Int>(maxEntries: 4, maxBytes: 100, shards: 1)
        XCTAssertEqual(plain.doorkeeperSlots, 0)
        XCTAssertTrue(plain.offer(1, for: 1, cost: 1))
        XCTAssertEqual(plain.value(for: 1), 1)
        // The service's: a key per entry of the shared cache (rounded up).
        let service = LayoutService(textMeasurer: nil)
        XCTAssertGreaterThanOrEqual(service.subtreeCache.storage.doorkeeperKeys, service.configuration.subtreeCacheEntries)
        XCTAssertLessThanOrEqual(service.subtreeCache.storage.doorkeeperSlots * 8, 4 << 20)
    }
}
