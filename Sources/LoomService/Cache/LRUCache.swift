import Synchronization
import LoomLayout

/// A thread-safe LRU cache bounded by entry count and by bytes. It is split into shards,
/// each with its own lock held only for the lookup or the insert (never while laying out),
/// so all cores can use it at once. Eviction is least-recently-used within a shard. Each
/// shard holds an even share of both bounds, so the totals hold without a shared counter:
/// a value costing more than `maxBytes / shards` is never stored. `maxEntries` 0 (or less)
/// stores nothing. Values a store evicts or replaces are released after the shard's lock is
/// dropped (freeing a large layout is the costly part of an eviction). With a doorkeeper
/// (`doorkeeperKeys` > 0), `offer` stores a key only on its second sighting (see `offer`).
public final class LRUCache<Key: Hashable & Sendable, Value>: @unchecked Sendable {
    public struct Statistics: Sendable, Equatable {
        public var hits = 0, misses = 0, evictions = 0, entries = 0, bytes = 0
        /// Values `offer` did not store: their key's first sighting.
        public var deferred = 0
    }

    private final class Shard {
        struct Node {
            var key: Key
            /// nil once the node is unlinked (its slot on the free list).
            var value: Value?
            var cost: Int
            var prev: Int
            var next: Int
            /// The key's hash (`LRUCache.hash`), kept so that the index never hashes a key again.
            var hash: UInt
        }
        /// Open addressing (linear probing) over `nodes`: 0 for an empty slot, else the
        /// node's index + 1 in the low 32 bits and the top 32 bits of its mixed hash (`mixed`)
        /// in the high ones, so that probing, deleting and growing read no node but the one
        /// that matches (the nodes are scattered in memory; the slots are one array). A
        /// power-of-two count, at most three quarters full. Deleting shifts the entries after
        /// it back, so no tombstones build up.
        var slots: [UInt64] = Array(repeating: 0, count: 16)
        var shift = 60  // 64 - log2(slots.count)
        var count = 0
        var nodes: [Node] = []
        var free: [Int] = []
        var head = -1  // most recent
        var tail = -1  // least recent
        var bytes = 0
        var hits = 0, misses = 0, evictions = 0, deferred = 0
        /// The fingerprints (`LRUCache.fingerprint`) of keys offered and not stored: fixed
        /// in size when the cache is made (empty without a doorkeeper).
        var seen: Doorkeeper
        let lock = Mutex<Void>(())

        init(doorkeeperKeys: Int) { seen = Doorkeeper(keys: doorkeeperKeys) }

        /// The top 32 bits of the hash mixed (Fibonacci hashing: a product's high bits, which
        /// differ among keys of one shard, whose hashes share their remainder by the shard
        /// count). A slot's home is its leading bits.
        @inline(__always) static func mixed(_ hash: UInt) -> UInt64 { UInt64(hash &* 0x9E37_79B9_7F4A_7C15) >> 32 }
        /// The home slot of a mixed hash (`shift` is at least 32: at most 2^32 slots).
        @inline(__always) func home(_ mixed: UInt64) -> Int { Int(truncatingIfNeeded: mixed >> UInt64(shift - 32)) }
        @inline(__always) static func node(_ slot: UInt64) -> Int { Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) - 1 }

        /// The node holding `key`, or -1.
        @inline(__always) func find(_ key: Key, _ hash: UInt) -> Int {
            let mask = slots.count - 1
            let m = Shard.mixed(hash)
            var i = home(m)
            return slots.withUnsafeBufferPointer { slots in
                while true {
                    let s = slots[i]
                    if s == 0 { return -1 }
                    if s >> 32 == m {
                        let n = Shard.node(s)
                        if nodes[n].hash == hash && nodes[n].key == key { return n }
                    }
                    i = (i + 1) & mask
                }
            }
        }

        /// Indexes node `n` (its key is not indexed yet).
        func insert(_ n: Int) {
            if (count + 1) * 4 > slots.count * 3 { grow() }
            let mask = slots.count - 1
            let m = Shard.mixed(nodes[n].hash)
            var i = home(m)
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = m << 32 | UInt64(n + 1)
            count += 1
        }

        /// Removes node `n` from the index.
        func remove(_ n: Int) {
            let mask = slots.count - 1
            var i = home(Shard.mixed(nodes[n].hash))
            let mine = UInt64(n + 1)
            slots.withUnsafeMutableBufferPointer { slots in
                while slots[i] & 0xFFFF_FFFF != mine { i = (i + 1) & mask }
                slots[i] = 0
                // Shift back every entry after the hole that would no longer be found.
                var j = i
                while true {
                    j = (j + 1) & mask
                    let s = slots[j]
                    if s == 0 { break }
                    let h = home(s >> 32)
                    // Stays when its home lies cyclically in (i, j].
                    let stays = i <= j ? (i < h && h <= j) : (i < h || h <= j)
                    if !stays {
                        slots[i] = s
                        slots[j] = 0
                        i = j
                    }
                }
            }
            count -= 1
        }

        private func grow() {
            let old = slots
            slots = Array(repeating: 0, count: old.count * 2)
            shift -= 1
            let mask = slots.count - 1
            for s in old where s != 0 {
                var i = home(s >> 32)
                while slots[i] != 0 { i = (i + 1) & mask }
                slots[i] = s
            }
        }
    }

    private let shards: [Shard]
    private let maxEntriesPerShard: Int
    private let maxBytesPerShard: Int
    private let hasDoorkeeper: Bool

    /// `maxEntries` and `maxBytes` are totals, split evenly across shards (fewer shards than
    /// `shards` when there are fewer entries). `doorkeeperKeys` (0: none, at most 2^20) is how
    /// many first sightings the doorkeeper remembers at least, shared evenly by the shards
    /// (a shard's share rounded up to a power of two): four slots of 8 bytes per key a shard
    /// remembers, allocated here, never more.
    public init(maxEntries: Int, maxBytes: Int, shards: Int = 16, doorkeeperKeys: Int = 0) {
        let n = Swift.max(1, Swift.min(shards, Swift.max(1, maxEntries)))
        let perShard = doorkeeperKeys <= 0 ? 0 : (Swift.min(doorkeeperKeys, 1 << 20) + n - 1) / n
        self.hasDoorkeeper = perShard > 0
        self.shards = (0..<n).map { _ in Shard(doorkeeperKeys: perShard) }
        // No entries: no shard may hold one (the byte share is 0 too, so `set` stores nothing).
        self.maxEntriesPerShard = maxEntries <= 0 ? 0 : Swift.max(1, maxEntries / n)
        self.maxBytesPerShard = maxEntries <= 0 ? -1 : Swift.max(1, maxBytes / n)
    }

    /// The key's hash, computed once per lookup or store: it picks the shard and the slot.
    @inline(__always) private func hash(_ key: Key) -> UInt { UInt(bitPattern: key.hashValue) }

    @inline(__always) private func shard(for hash: UInt) -> Shard {
        shards[Int(hash % UInt(shards.count))]
    }

    public func value(for key: Key) -> Value? {
        let h = hash(key)
        let s = shard(for: h)
        return s.lock.withLock { _ in
            let i = s.find(key, h)
            guard i >= 0 else { s.misses += 1; return nil }
            s.hits += 1
            moveToFront(s, i)
            return s.nodes[i].value
        }
    }

    /// Insert or replace. A value larger than a shard's byte budget is not stored (and an
    /// older value under the same key is dropped: it must not be answered as current); with
    /// no entries allowed, nothing is.
    public func set(_ value: Value, for key: Key, cost: Int) {
        let h = hash(key)
        let s = shard(for: h)
        var released = Released()
        defer { released.drop() }
        s.lock.withLock { _ in place(value, key, h, cost, s, &released) }
    }

    /// `set` for a value that may be met only once: stored if its key is held already or was
    /// offered before and is still remembered by the doorkeeper (`Doorkeeper`: at least the
    /// shard's share of `doorkeeperKeys` later first sightings); else the doorkeeper
    /// remembers it and nothing is stored or evicted. Without a doorkeeper it is `set`.
    /// Returns whether the value was stored.
    @discardableResult
    public func offer(_ value: Value, for key: Key, cost: Int) -> Bool {
        let h = hash(key)
        let s = shard(for: h)
        var released = Released()
        defer { released.drop() }
        return s.lock.withLock { _ -> Bool in
            if hasDoorkeeper && s.find(key, h) < 0 && !s.seen.sighted(LRUCache.fingerprint(h)) {
                s.deferred += 1
                return false
            }
            place(value, key, h, cost, s, &released)
            return true
        }
    }

    /// A key's doorkeeper fingerprint: its whole hash, never 0 (the doorkeeper's empty slot).
    @inline(__always) private static func fingerprint(_ hash: UInt) -> UInt64 { UInt64(truncatingIfNeeded: hash) | 1 }

    /// Stores under `s`'s lock; what it evicts or replaces goes to `released`. A value larger
    /// than a shard's byte budget is not stored, and drops an older value under its key.
    private func place(_ value: Value, _ key: Key, _ h: UInt, _ cost: Int, _ s: Shard, _ released: inout Released) {
        guard cost <= maxBytesPerShard else {
            let i = s.find(key, h)
            if i >= 0 { released.add(unlink(s, i)) }
            return
        }
        let found = s.find(key, h)
        if found >= 0 {
            let i = found
            s.bytes += cost - s.nodes[i].cost
            released.add(s.nodes[i].value.take())
            s.nodes[i].value = value
            s.nodes[i].cost = cost
            moveToFront(s, i)
        } else {
            let node = Shard.Node(key: key, value: value, cost: cost, prev: -1, next: s.head, hash: h)
            let i: Int
            if let f = s.free.popLast() { s.nodes[f] = node; i = f } else { s.nodes.append(node); i = s.nodes.count - 1 }
            if s.head >= 0 { s.nodes[s.head].prev = i }
            s.head = i
            if s.tail < 0 { s.tail = i }
            s.insert(i)
            s.bytes += cost
        }
        while s.count > maxEntriesPerShard || s.bytes > maxBytesPerShard, s.tail >= 0 {
            released.add(evictTail(s))
        }
    }

    /// First sightings the doorkeeper remembers at least (0 without one), and its slots
    /// (8 bytes each): fixed when the cache is made.
    public var doorkeeperKeys: Int { shards.count * shards[0].seen.generation }
    public var doorkeeperSlots: Int { shards.count * shards[0].seen.slots }

    /// Values taken out of a shard under its lock, released once it is dropped: one inline
    /// (a store evicts one entry at most, most of the time), any more in an array.
    private struct Released {
        var first: Value?
        var more: [Value] = []
        mutating func add(_ v: Value?) {
            guard let v else { return }
            if first == nil { first = v } else { more.append(v) }
        }
        /// Releases them here (called after the lock is dropped).
        @inline(never) mutating func drop() { first = nil; more = [] }
    }

    private func moveToFront(_ s: Shard, _ i: Int) {
        guard s.head != i else { return }
        let p = s.nodes[i].prev, n = s.nodes[i].next
        if p >= 0 { s.nodes[p].next = n }
        if n >= 0 { s.nodes[n].prev = p } else { s.tail = p }
        s.nodes[i].prev = -1
        s.nodes[i].next = s.head
        if s.head >= 0 { s.nodes[s.head].prev = i }
        s.head = i
    }

    private func evictTail(_ s: Shard) -> Value? {
        s.evictions += 1
        return unlink(s, s.tail)
    }

    /// Remove node `i` from the list and the index; its slot goes to the free list. Returns
    /// its value, for the caller to release after the lock.
    private func unlink(_ s: Shard, _ i: Int) -> Value? {
        let p = s.nodes[i].prev, n = s.nodes[i].next
        if p >= 0 { s.nodes[p].next = n } else { s.head = n }
        if n >= 0 { s.nodes[n].prev = p } else { s.tail = p }
        s.remove(i)
        s.bytes -= s.nodes[i].cost
        s.free.append(i)
        return s.nodes[i].value.take()
    }

    public func removeAll() {
        for s in shards {
            // The nodes (and their values) are released after the lock.
            let nodes = s.lock.withLock { _ -> [Shard.Node] in
                s.slots = Array(repeating: 0, count: 16); s.shift = 60; s.count = 0
                s.free.removeAll()
                s.head = -1; s.tail = -1; s.bytes = 0
                s.seen.removeAll()
                let nodes = s.nodes
                s.nodes = []
                return nodes
            }
            _ = nodes
        }
    }

    public var statistics: Statistics {
        var st = Statistics()
        for s in shards {
            s.lock.withLock { _ in
                st.hits += s.hits; st.misses += s.misses; st.evictions += s.evictions; st.deferred += s.deferred
                st.entries += s.count; st.bytes += s.bytes
            }
        }
        return st
    }

    /// Keys from most to least recently used, per shard concatenated (for tests).
    public func keysInRecencyOrder() -> [Key] {
        var out: [Key] = []
        for s in shards {
            s.lock.withLock { _ in
                var i = s.head
                while i >= 0 { out.append(s.nodes[i].key); i = s.nodes[i].next }
            }
        }
        return out
    }
}

/// The shared subtree cache: measured subtrees keyed by digest and constraints, each with
/// what computing it cost (charged again when it is reused). Used as a pass's cache directly
/// (`store` keeps everything), or through a `PassSubtreeCache` (the service's passes), which
/// `offer`s: a subtree is kept from its second sighting on, so that one seen once stores and
/// evicts nothing. The doorkeeper remembers at least as many first sightings as the cache may
/// hold entries (by default), in about 32 bytes each.
public final class SubtreeLayoutCache: SubtreeLayoutCaching, @unchecked Sendable {
    public let storage: LRUCache<SubtreeLayoutKey, CachedSubtreeLayout>
    public init(maxEntries: Int, maxBytes: Int, doorkeeperKeys: Int? = nil) {
        storage = LRUCache(maxEntries: maxEntries, maxBytes: maxBytes,
                           doorkeeperKeys: maxEntries <= 0 ? 0 : doorkeeperKeys ?? maxEntries)
    }
    public func layout(for key: SubtreeLayoutKey) -> CachedSubtreeLayout? { storage.value(for: key) }
    public func store(_ layout: CachedSubtreeLayout, for key: SubtreeLayoutKey) {
        storage.set(layout, for: key, cost: Self.cost(layout))
    }
    /// Stores `layout` if `key` was offered before (or is held): see `LRUCache.offer`.
    @discardableResult
    public func offer(_ layout: CachedSubtreeLayout, for key: SubtreeLayoutKey) -> Bool {
        storage.offer(layout, for: key, cost: Self.cost(layout))
    }
    @inline(__always) static func cost(_ layout: CachedSubtreeLayout) -> Int { 120 + layout.layout.subtreeCount * 80 }
}
