import Dispatch
import Foundation
import LoomService
import LoomTestSupport
import XCTest

final class LRUCacheTests: XCTestCase {
    /// The statistics as a comparable value (the library's initializer is internal).
    struct Stats: Equatable, CustomStringConvertible {
        var hits = 0, misses = 0, evictions = 0, entries = 0, bytes = 0
        var description: String { "hits \(hits) misses \(misses) evictions \(evictions) entries \(entries) bytes \(bytes)" }
    }

    private func stats(hits: Int = 0, misses: Int = 0, evictions: Int = 0, entries: Int = 0, bytes: Int = 0) -> Stats {
        Stats(hits: hits, misses: misses, evictions: evictions, entries: entries, bytes: bytes)
    }

    private func stats<K, V>(of cache: LRUCache<K, V>) -> Stats {
        let s = cache.statistics
        return Stats(hits: s.hits, misses: s.misses, evictions: s.evictions, entries: s.entries, bytes: s.bytes)
    }

    func testEvictsTheLeastRecentlyUsedFirst() {
        let cache = LRUCache<Int, String>(maxEntries: 3, maxBytes: 1000, shards: 1)
        cache.set("one", for: 1, cost: 1)
        cache.set("two", for: 2, cost: 1)
        cache.set("three", for: 3, cost: 1)
        XCTAssertEqual(cache.keysInRecencyOrder(), [3, 2, 1])
        cache.set("four", for: 4, cost: 1)                 // 1 is the least recent
        XCTAssertEqual(cache.keysInRecencyOrder(), [4, 3, 2])
        XCTAssertNil(cache.value(for: 1))
        XCTAssertEqual(cache.statistics.evictions, 1)
    }

    func testAReadRefreshesRecency() {
        let cache = LRUCache<Int, String>(maxEntries: 3, maxBytes: 1000, shards: 1)
        cache.set("one", for: 1, cost: 1)
        cache.set("two", for: 2, cost: 1)
        cache.set("three", for: 3, cost: 1)
        XCTAssertEqual(cache.value(for: 1), "one")          // 1 becomes the most recent
        XCTAssertEqual(cache.keysInRecencyOrder(), [1, 3, 2])
        cache.set("four", for: 4, cost: 1)                 // so 2 goes
        XCTAssertEqual(cache.keysInRecencyOrder(), [4, 1, 3])
        XCTAssertNil(cache.value(for: 2))
        XCTAssertEqual(cache.value(for: 3), "three")
        XCTAssertEqual(cache.value(for: 1), "one")
        cache.set("five", for: 5, cost: 1)                 // 4 is now the least recent
        XCTAssertEqual(cache.keysInRecencyOrder(), [5, 1, 3])
        // A miss does not change the order.
        XCTAssertNil(cache.value(for: 42))
        XCTAssertEqual(cache.keysInRecencyOrder(), [5, 1, 3])
        // Re-setting an existing key refreshes it too.
        cache.set("three again", for: 3, cost: 1)
        XCTAssertEqual(cache.keysInRecencyOrder(), [3, 5, 1])
        cache.set("six", for: 6, cost: 1)
        XCTAssertEqual(cache.keysInRecencyOrder(), [6, 3, 5])
        XCTAssertEqual(cache.value(for: 3), "three again")
    }

    func testEntryBound() {
        let cache = LRUCache<Int, String>(maxEntries: 5, maxBytes: 1 << 20, shards: 1)
        for k in 0..<100 { cache.set("\(k)", for: k, cost: 10) }
        XCTAssertEqual(cache.keysInRecencyOrder(), [99, 98, 97, 96, 95])
        XCTAssertEqual(stats(of: cache), stats(evictions: 95, entries: 5, bytes: 50))
        for k in 95..<100 { XCTAssertEqual(cache.value(for: k), "\(k)") }
        XCTAssertNil(cache.value(for: 94))
    }

    func testEntryBoundWithShards() {
        // Totals are split across shards; the whole cache never holds more than maxEntries.
        let cache = LRUCache<Int, Int>(maxEntries: 64, maxBytes: 1 << 20, shards: 8)
        for k in 0..<10_000 { cache.set(k, for: k, cost: 1) }
        let s = cache.statistics
        XCTAssertLessThanOrEqual(s.entries, 64)
        XCTAssertGreaterThan(s.entries, 0)
        XCTAssertEqual(s.bytes, s.entries)
        XCTAssertEqual(s.evictions, 10_000 - s.entries)
        XCTAssertEqual(Set(cache.keysInRecencyOrder()).count, s.entries)
        // More shards than entries: still bounded.
        let tiny = LRUCache<Int, Int>(maxEntries: 3, maxBytes: 1 << 20, shards: 16)
        for k in 0..<1000 { tiny.set(k, for: k, cost: 1) }
        XCTAssertLessThanOrEqual(tiny.statistics.entries, 3)
    }

    func testByteBound() {
        let cache = LRUCache<Int, String>(maxEntries: 100, maxBytes: 100, shards: 1)
        cache.set("a", for: 1, cost: 40)
        cache.set("b", for: 2, cost: 40)
        XCTAssertEqual(stats(of: cache), stats(entries: 2, bytes: 80))
        cache.set("c", for: 3, cost: 30)                   // 110 > 100: 1 goes → 70
        XCTAssertEqual(cache.keysInRecencyOrder(), [3, 2])
        XCTAssertEqual(stats(of: cache), stats(evictions: 1, entries: 2, bytes: 70))
        cache.set("d", for: 4, cost: 100)                  // exactly the budget: everything else goes
        XCTAssertEqual(cache.keysInRecencyOrder(), [4])
        XCTAssertEqual(stats(of: cache), stats(evictions: 3, entries: 1, bytes: 100))
        // A value larger than the whole budget is not stored and evicts nothing.
        cache.set("huge", for: 5, cost: 101)
        XCTAssertNil(cache.value(for: 5))
        XCTAssertEqual(cache.keysInRecencyOrder(), [4])
        XCTAssertEqual(cache.statistics.bytes, 100)
    }

    func testReplacingAKeyAdjustsBytes() {
        let cache = LRUCache<Int, String>(maxEntries: 10, maxBytes: 100, shards: 1)
        cache.set("a", for: 1, cost: 40)
        cache.set("b", for: 2, cost: 30)
        cache.set("a2", for: 1, cost: 10)                  // 70 → 40
        XCTAssertEqual(stats(of: cache), stats(entries: 2, bytes: 40))
        XCTAssertEqual(cache.value(for: 1), "a2")
        cache.set("b2", for: 2, cost: 90)                  // 100: fits exactly, nothing evicted
        XCTAssertEqual(stats(of: cache), stats(hits: 1, entries: 2, bytes: 100))
        cache.set("a3", for: 1, cost: 20)                  // 110: the least recent (2) goes, not the key just set
        XCTAssertEqual(cache.keysInRecencyOrder(), [1])
        XCTAssertEqual(stats(of: cache), stats(hits: 1, evictions: 1, entries: 1, bytes: 20))
        XCTAssertEqual(cache.value(for: 1), "a3")
    }

    func testReplacingWithAValueOverTheBudgetDropsTheOldValue() {
        // The new value is not stored; the old one must not be answered as if it were current.
        let cache = LRUCache<Int, String>(maxEntries: 10, maxBytes: 100, shards: 1)
        cache.set("old", for: 1, cost: 10)
        cache.set("new but huge", for: 1, cost: 1000)
        XCTAssertNil(cache.value(for: 1))
        XCTAssertEqual(cache.statistics.entries, 0)
        XCTAssertEqual(cache.statistics.bytes, 0)
    }

    func testStatistics() {
        let cache = LRUCache<Int, String>(maxEntries: 2, maxBytes: 1000, shards: 1)
        XCTAssertEqual(stats(of: cache), stats())
        XCTAssertNil(cache.value(for: 1))                  // miss
        cache.set("a", for: 1, cost: 7)
        cache.set("b", for: 2, cost: 8)
        XCTAssertEqual(cache.value(for: 1), "a")           // hit
        XCTAssertEqual(cache.value(for: 1), "a")           // hit
        cache.set("c", for: 3, cost: 9)                    // evicts 2
        XCTAssertNil(cache.value(for: 2))                  // miss
        XCTAssertEqual(stats(of: cache), stats(hits: 2, misses: 2, evictions: 1, entries: 2, bytes: 16))
        cache.removeAll()
        let after = cache.statistics
        XCTAssertEqual(after.entries, 0)
        XCTAssertEqual(after.bytes, 0)
        XCTAssertEqual(cache.keysInRecencyOrder(), [])
        XCTAssertNil(cache.value(for: 1))
        // The cache works normally after removeAll (free list and links reset).
        for k in 0..<5 { cache.set("\(k)", for: k, cost: 1) }
        XCTAssertEqual(cache.keysInRecencyOrder(), [4, 3])
    }

    func testSlotsAreReusedAfterEviction() {
        // Long churn through a small cache keeps it consistent (free-list reuse).
        let cache = LRUCache<Int, Int>(maxEntries: 4, maxBytes: 1000, shards: 1)
        for k in 0..<10_000 {
            cache.set(k, for: k, cost: 1 + k % 3)
            if k % 7 == 0 { _ = cache.value(for: k - 2) }
        }
        let keys = cache.keysInRecencyOrder()
        XCTAssertEqual(keys.count, 4)
        XCTAssertEqual(keys.first, 9999)
        XCTAssertEqual(cache.statistics.bytes, keys.map { 1 + $0 % 3 }.reduce(0, +))
        for k in keys { XCTAssertEqual(cache.value(for: k), k) }
    }

    /// A key whose hash is one of a few: many keys share a home slot and a slot's hash tag,
    /// so probing, deleting from the middle of a run and growing are all exercised.
    struct CollidingKey: Hashable {
        var id: Int
        func hash(into h: inout Hasher) { h.combine(id % 5) }
    }

    func testCollidingKeysAgreeWithAModel() {
        // Against a list in recency order, through inserts, replacements, reads, evictions and
        // growth, with keys that collide in groups (fixed seed).
        let limit = 40
        let cache = LRUCache<CollidingKey, Int>(maxEntries: limit, maxBytes: 1 << 20, shards: 1)
        var model: [Int] = [] // most recent first
        var values: [Int: Int] = [:]
        var rng = SeededGenerator(seed: 20261124)
        for step in 0..<20_000 {
            let id = Int(rng.next() % 120)
            if rng.next() % 3 == 0 {
                let found = cache.value(for: CollidingKey(id: id))
                if let at = model.firstIndex(of: id) {
                    XCTAssertEqual(found, values[id], "step \(step)")
                    model.remove(at: at); model.insert(id, at: 0)
                } else {
                    XCTAssertNil(found, "step \(step)")
                }
            } else {
                cache.set(step, for: CollidingKey(id: id), cost: 1)
                values[id] = step
                if let at = model.firstIndex(of: id) { model.remove(at: at) }
                model.insert(id, at: 0)
                if model.count > limit { model.removeLast() }
            }
        }
        XCTAssertEqual(cache.keysInRecencyOrder().map(\.id), model)
        for id in model { XCTAssertEqual(cache.value(for: CollidingKey(id: id)), values[id]) }
        XCTAssertEqual(cache.statistics.entries, model.count)
    }

    func testConcurrentHammering() {
        let cache = LRUCache<Int, Int>(maxEntries: 256, maxBytes: 1 << 20, shards: 16)
        let threads = 8, opsPerThread = 20_000
        let lock = NSLock()
        var reads = 0, wrongValues = 0
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            var rng: UInt64 = 0x2545F4914F6CDD1D &+ UInt64(t) &* 0x9E3779B97F4A7C15
            var myReads = 0, myWrong = 0
            for _ in 0..<opsPerThread {
                rng = LCG.step(rng)
                let key = Int(rng >> 40) % 1000
                if rng & 1 == 0 {
                    cache.set(key &* 3, for: key, cost: 8)
                } else {
                    myReads += 1
                    if let v = cache.value(for: key), v != key &* 3 { myWrong += 1 }
                }
                if rng % 997 == 0 { _ = cache.statistics; _ = cache.keysInRecencyOrder() }
            }
            lock.lock(); reads += myReads; wrongValues += myWrong; lock.unlock()
        }
        let s = cache.statistics
        XCTAssertEqual(wrongValues, 0)
        XCTAssertEqual(s.hits + s.misses, reads)
        XCTAssertLessThanOrEqual(s.entries, 256)
        XCTAssertEqual(s.bytes, s.entries * 8)
        let keys = cache.keysInRecencyOrder()
        XCTAssertEqual(keys.count, s.entries)
        XCTAssertEqual(Set(keys).count, keys.count)
        for k in keys { XCTAssertEqual(cache.value(for: k), k * 3) }
    }

    /// `maxEntries` 0 means no cache: nothing is stored, every lookup misses (it used to
    /// keep one entry).
    func testZeroEntriesStoresNothing() {
        let cache = LRUCache<Int, Int>(maxEntries: 0, maxBytes: 1 << 20)
        cache.set(1, for: 1, cost: 8)
        cache.set(2, for: 2, cost: 0)
        XCTAssertNil(cache.value(for: 1))
        XCTAssertNil(cache.value(for: 2))
        XCTAssertEqual(cache.statistics.entries, 0)
        XCTAssertEqual(cache.statistics.bytes, 0)
        XCTAssertEqual(cache.statistics.misses, 2)
    }

    /// Sixteen shards, each with a sixteenth of the bytes: a value costing exactly a share is
    /// kept, one byte more is never stored.
    func testAValueOverAShardsShareIsNeverStored() {
        let cache = LRUCache<Int, Int>(maxEntries: 10_000, maxBytes: 16 * 1000)
        cache.set(1, for: 1, cost: 1000)
        cache.set(2, for: 2, cost: 1001)
        XCTAssertEqual(cache.value(for: 1), 1)
        XCTAssertNil(cache.value(for: 2))
        XCTAssertEqual(cache.statistics.bytes, 1000)
    }

    /// The service's response cache with the default 16 shards: a response whose cost (its
    /// body + 224 bytes) fits a sixteenth of `cacheBytes` is answered from the cache the
    /// second time; with one byte less of `cacheBytes` it is laid out again every time.
    /// `cacheEntries` 0: no response is cached.
    func testResponseCacheBoundsThroughTheService() {
        let body = Array(#"{"root": {"type": "node", "id": "a", "style": {"width": 12, "height": 3}}}"#.utf8)
        let size = LayoutService(textMeasurer: nil).layout(body: body).body.count
        func hits(entries: Int, bytes: Int) -> [Bool] {
            var configuration = ServiceConfiguration()
            configuration.cacheEntries = entries
            configuration.cacheBytes = bytes
            let service = LayoutService(configuration: configuration, textMeasurer: nil)
            return (0..<3).map { _ in service.layout(body: body).cacheHit }
        }
        XCTAssertEqual(hits(entries: 10_000, bytes: 16 * (size + 224)), [false, true, true])
        XCTAssertEqual(hits(entries: 10_000, bytes: 16 * (size + 224) - 1), [false, false, false])
        XCTAssertEqual(hits(entries: 0, bytes: 64 << 20), [false, false, false])
        XCTAssertEqual(hits(entries: 1, bytes: 64 << 20), [false, true, true])
    }

    /// A value the cache evicts or replaces is released by the store that evicts it (after
    /// its lock), and `removeAll` releases every value.
    func testEvictedAndReplacedValuesAreReleased() {
        final class Box { let n: Int; init(_ n: Int) { self.n = n } }
        let cache = LRUCache<Int, Box>(maxEntries: 2, maxBytes: 1 << 20, shards: 1)
        weak var first: Box?, second: Box?, third: Box?
        do {
            let a = Box(1), b = Box(2), c = Box(3)
            first = a; second = b; third = c
            cache.set(a, for: 1, cost: 1)
            cache.set(b, for: 2, cost: 1)
        }
        XCTAssertNotNil(first)
        cache.set(Box(4), for: 3, cost: 1)  // evicts key 1
        XCTAssertNil(first)
        cache.set(Box(5), for: 2, cost: 1)  // replaces key 2's value
        XCTAssertNil(second)
        XCTAssertNil(third)  // never stored
        XCTAssertEqual(cache.value(for: 2)?.n, 5)
        weak var kept = cache.value(for: 3)
        XCTAssertNotNil(kept)
        cache.removeAll()
        XCTAssertNil(kept)
        XCTAssertEqual(stats(of: cache), stats(hits: 2, evictions: 1))
    }
}

