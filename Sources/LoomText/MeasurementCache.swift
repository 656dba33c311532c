import LoomLayout

/// Hit and miss counts of the measurement cache.
public struct TextCacheStatistics: Hashable, Sendable, Codable {
    public var hits: Int
    public var misses: Int
    /// Entries currently stored.
    public var entries: Int
    /// Maximum number of entries (0 = caching disabled).
    public var capacity: Int

    public init(hits: Int, misses: Int, entries: Int, capacity: Int) {
        self.hits = hits; self.misses = misses; self.entries = entries; self.capacity = capacity
    }

    /// hits / (hits + misses), 0 when there were no lookups.
    public var hitRate: Double { hits + misses == 0 ? 0 : Double(hits) / Double(hits + misses) }
}

/// A bounded cache of measurements keyed by (text attributes, container size), split into
/// shards with one lock each; each shard evicts with the CLOCK algorithm (an LRU
/// approximation: a hit sets a reference bit, the sweeping hand spares referenced entries
/// once).
final class MeasurementCache: @unchecked Sendable {
    struct Key: Hashable {
        let attributes: TextAttributes
        let width: UInt64
        let height: UInt64
        let hash: Int

        /// `attributesHash` is `Key.fingerprint(attributes)` (computed once per text by the caller).
        init(_ attributes: TextAttributes, _ size: Size, attributesHash: Int) {
            self.attributes = attributes
            // Bit patterns: NaN is a legitimate input and must equal itself; -0 is folded to +0.
            self.width = (size.width == 0 ? 0 : size.width).bitPattern
            self.height = (size.height == 0 ? 0 : size.height).bitPattern
            var h = Hasher()
            h.combine(attributesHash)
            h.combine(width)
            h.combine(height)
            self.hash = h.finalize()
        }

        /// A hash of everything in `attributes`, strings by their UTF-8 bytes (hashing a
        /// String normalizes it and feeds the hasher byte by byte: several times slower).
        /// Keys are equal only when their hashes are, so canonically equivalent strings
        /// with different bytes (which Pango may shape differently) are different keys.
        static func fingerprint(_ a: TextAttributes) -> Int {
            // Helpers take the hasher inout: captured by nested functions it would live in a
            // box with a run-time exclusivity check on every use.
            var h = Hasher()
            h.combine(a.spans.count)
            for span in a.spans {
                combine(span.text, into: &h)
                h.combine(span.letterSpacing?.bitPattern ?? 0)
                h.combine(span.letterSpacing == nil)
                if let f = span.font { h.combine(true); combine(f, into: &h) } else { h.combine(false) }
            }
            combine(a.font, into: &h)
            h.combine(a.lineHeight?.bitPattern ?? 0)
            h.combine(a.lineHeight == nil)
            h.combine(a.lineSpacing.bitPattern)
            h.combine(a.letterSpacing.bitPattern)
            h.combine(code(a.alignment))
            h.combine(a.maximumNumberOfLines)
            h.combine(code(a.truncationMode))
            combine(a.truncationText, into: &h)
            return h.finalize()
        }

        /// A string's UTF-8 bytes and length.
        private static func combine(_ s: String, into h: inout Hasher) {
            var s = s
            s.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
            h.combine(s.utf8.count)
        }

        private static func combine(_ f: FontDescriptor, into h: inout Hasher) {
            combine(f.family, into: &h)
            h.combine(f.size.bitPattern)
            h.combine(f.weight)
            h.combine(f.italic)
        }

        static func code(_ a: TextAlignment) -> UInt64 {
            switch a { case .left: 0; case .center: 1; case .right: 2; case .justified: 3; case .natural: 4 }
        }
        static func code(_ m: TruncationMode) -> UInt64 {
            switch m { case .tail: 0; case .head: 1; case .middle: 2; case .clip: 3; case .wordWrap: 4; case .charWrap: 5 }
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Key, b: Key) -> Bool {
            a.hash == b.hash && a.width == b.width && a.height == b.height && a.attributes == b.attributes
        }
    }

    /// A shard's state is only touched under its lock, so the run-time exclusivity checks
    /// Swift makes on every access to a class's stored properties are left out.
    private final class Shard {
        let lock = Lock()
        let capacity: Int
        @exclusivity(unchecked) var index: [Key: Int] = [:]
        @exclusivity(unchecked) var keys: [Key] = []
        @exclusivity(unchecked) var values: [TextMeasurement] = []
        @exclusivity(unchecked) var referenced: [Bool] = []
        @exclusivity(unchecked) var hand = 0
        @exclusivity(unchecked) var hits = 0
        @exclusivity(unchecked) var misses = 0

        init(capacity: Int) {
            self.capacity = capacity
            index.reserveCapacity(capacity)
        }

        func get(_ key: Key) -> TextMeasurement? {
            lock.lock(); defer { lock.unlock() }
            if let slot = index[key] {
                referenced[slot] = true
                hits += 1
                return values[slot]
            }
            misses += 1
            return nil
        }

        /// A lookup that does not count as a hit or a miss.
        func peek(_ key: Key) -> TextMeasurement? {
            lock.lock(); defer { lock.unlock() }
            guard let slot = index[key] else { return nil }
            referenced[slot] = true
            return values[slot]
        }

        func put(_ key: Key, _ value: TextMeasurement) {
            lock.lock(); defer { lock.unlock() }
            if let slot = index[key] { values[slot] = value; return }
            if keys.count < capacity {
                index[key] = keys.count
                keys.append(key); values.append(value); referenced.append(false)
                return
            }
            while referenced[hand] {
                referenced[hand] = false
                hand = (hand + 1) % capacity
            }
            index.removeValue(forKey: keys[hand])
            keys[hand] = key; values[hand] = value; referenced[hand] = false
            index[key] = hand
            hand = (hand + 1) % capacity
        }

        func clear() {
            lock.lock(); defer { lock.unlock() }
            index.removeAll(keepingCapacity: true); keys.removeAll(keepingCapacity: true)
            values.removeAll(keepingCapacity: true); referenced.removeAll(keepingCapacity: true)
            hand = 0; hits = 0; misses = 0
        }
    }

    private let shards: [Shard]
    let capacity: Int

    init(capacity: Int, shardCount: Int = 16) {
        self.capacity = max(0, capacity)
        let count = self.capacity == 0 ? 0 : max(1, min(shardCount, self.capacity))
        let per = count == 0 ? 0 : (self.capacity + count - 1) / count
        shards = (0..<count).map { _ in Shard(capacity: per) }
    }

    @inline(__always) private func shard(_ key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
    }

    var isEnabled: Bool { !shards.isEmpty }

    func get(_ key: Key) -> TextMeasurement? { shard(key).get(key) }
    func peek(_ key: Key) -> TextMeasurement? { shard(key).peek(key) }
    func put(_ key: Key, _ value: TextMeasurement) { shard(key).put(key, value) }
    func clear() { for s in shards { s.clear() } }

    var statistics: TextCacheStatistics {
        var hits = 0, misses = 0, entries = 0
        for s in shards {
            s.lock.withLock {
                hits += s.hits; misses += s.misses; entries += s.keys.count
            }
        }
        return TextCacheStatistics(hits: hits, misses: misses, entries: entries, capacity: capacity)
    }
}
