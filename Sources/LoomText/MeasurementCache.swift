#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomLayout
import Synchronization

/// A bounded cache of measurements: for each text the answers in up to `answersPerText`
/// container sizes, the oldest replaced first. A text is known by its attributes, byte for
/// byte (`TextIdentity`), or by its node's record digest (`TextMeasurementMemo.recordDigest`,
/// 128 bits, keyed per process, which the service's response and subtree caches already
/// trust with whole layouts): a digest finds its text without hashing or comparing the
/// attributes. The two kinds of entry never match each other. Texts are split into shards
/// by their fingerprint (a digest's low half), one lock each; a shard finds a text by open
/// addressing on the fingerprint and evicts whole texts with the CLOCK algorithm (an LRU
/// approximation: a hit sets a reference bit, the sweeping hand spares referenced texts
/// once) while it holds more answers than its share of the capacity, or more bytes than
/// its share of `byteCapacity` (a text's key, `TextIdentity.encode`, holds every string of
/// the attributes; a text too large for a shard's share is not cached).
///
/// The attributes' fingerprint is seeded per process (`SeededHasher`) and only locates a
/// text, which is always compared whole with the stored identity; probes are bounded
/// (`maxProbes`), so texts crafted to collide cost a few comparisons and are not cached, and
/// can never answer for another text.
final class MeasurementCache: @unchecked Sendable {
    /// Answers kept per text: a stack measures a text in its available width, then
    /// stretched or flexed; clients differ in screen width.
    static let answersPerText = 4

    /// How far from its home slot a text may be stored: a shard's table is at most half
    /// full, so only texts crafted to collide (or an astronomically unlikely run) go further,
    /// and those are not cached.
    static let maxProbes = 32

    /// A container size as the cache compares it: bit patterns, so that NaN (a legitimate
    /// input) equals itself; -0 is folded to +0.
    struct Container: Equatable {
        let width: UInt64
        let height: UInt64
        init(_ size: Size) {
            width = (size.width == 0 ? 0 : size.width).bitPattern
            height = (size.height == 0 ? 0 : size.height).bitPattern
        }
    }

    /// What a lookup found.
    struct Lookup {
        /// The answer in exactly this container.
        var hit: TextMeasurement?
        /// Otherwise the answer in a container of unlimited width and the same height, if any.
        var unlimitedWidth: TextMeasurement?
    }

    // MARK: Shards

    private struct Answer {
        var container: Container
        var measurement: TextMeasurement
    }

    /// A cached text. Its first answer is kept in place (most texts have one: a lookup
    /// then reads no other memory); the others in `answersPerText - 1` slots of the shard's
    /// `moreAnswers` from `index * (answersPerText - 1)` on. Plain data (the key is memory
    /// the shard allocates and frees), so reading a text from the array retains nothing.
    private struct Text {
        /// For a text known by its record digest, the digest's low half (`Shard.fingerprint`).
        var fingerprint: Int
        /// The record digest's high half, for a text known by it (then `key` is empty).
        var digestHigh: UInt64
        var first: Answer
        /// `TextIdentity.encode` of the attributes of a text known by them.
        var key: UnsafeRawBufferPointer
        /// 0 once evicted (a stored text has at least one answer).
        var answerCount = 1
        /// What the text is counted for in the shard's bytes (`Shard.bytes(key:)`).
        var bytes = 0
        /// Where the next answer goes once the text holds all it may.
        var nextReplaced = 0
        var referenced = false

        var isEvicted: Bool { answerCount == 0 }
        var isKnownByDigest: Bool { key.baseAddress == nil }

        static let noKey = UnsafeRawBufferPointer(start: nil, count: 0)
        static let evicted = Text(fingerprint: 0, digestHigh: 0,
                                  first: Answer(container: Container(.zero), measurement: TextMeasurement(
                                      size: .zero, lineCount: 0, truncated: false, ascender: 0, descender: 0)),
                                  key: noKey, answerCount: 0)
    }

    /// A shard's state is only touched under its lock, so the run-time exclusivity checks
    /// Swift makes on every access to a class's stored properties are left out.
    private final class Shard {
        let lock = Mutex(())
        /// Maximum answers held (the shard's share of the capacity).
        let capacity: Int
        /// Maximum bytes held (the shard's share of the byte capacity), and the bytes held.
        let byteCapacity: Int
        @exclusivity(unchecked) var bytes = 0
        let answersPerText: Int
        /// Open addressing (linear probing): 0 for an empty slot, else the text's index in
        /// `texts` plus one (low 32 bits) and the high 32 bits of its fingerprint, so that
        /// a probe passes other texts without reading them.
        @exclusivity(unchecked) var table: [UInt64]
        let tableMask: Int
        @exclusivity(unchecked) var texts: [Text] = []
        @exclusivity(unchecked) var moreAnswers: [Answer] = []
        @exclusivity(unchecked) var free: [Int] = []
        @exclusivity(unchecked) var answerCount = 0
        @exclusivity(unchecked) var hand = 0
        @exclusivity(unchecked) var hits = 0
        @exclusivity(unchecked) var misses = 0

        init(capacity: Int, byteCapacity: Int) {
            self.capacity = capacity
            self.byteCapacity = byteCapacity
            answersPerText = min(MeasurementCache.answersPerText, capacity)
            // Each text holds at least one answer, so at most `capacity` texts: a table of
            // at least twice that keeps probe sequences short.
            var size = 8
            while size < 2 * capacity { size <<= 1 }
            table = Array(repeating: 0, count: size)
            tableMask = size - 1
        }

        @inline(__always) private func home(_ fingerprint: Int) -> Int {
            // The low bits chose the shard; the slot comes from the middle ones.
            Int(truncatingIfNeeded: UInt(bitPattern: fingerprint) >> 12) & tableMask
        }

        @inline(__always) private static func tag(_ fingerprint: Int) -> UInt64 {
            UInt64(UInt(bitPattern: fingerprint)) & 0xFFFF_FFFF_0000_0000
        }

        @inline(__always) private static func index(_ entry: UInt64) -> Int { Int(entry & 0xFFFF_FFFF) - 1 }

        /// The index in `texts` of `attributes`, or nil.
        private func find(_ attributes: TextAttributes, _ fingerprint: Int) -> Int? {
            probe(fingerprint) { text in
                text.fingerprint == fingerprint && !text.isKnownByDigest && TextIdentity.matches(attributes, text.key)
            }
        }

        /// The index in `texts` of the text known by `digest`, or nil.
        private func find(_ digest: ElementDigest) -> Int? {
            let fingerprint = Shard.fingerprint(digest)
            return probe(fingerprint) { text in
                text.fingerprint == fingerprint && text.digestHigh == digest.high && text.isKnownByDigest
            }
        }

        /// The index of the first text stored from `fingerprint`'s home slot on (the slot's tag
        /// equal to the fingerprint's) that `matches`, or nil. No text is stored more than
        /// `maxProbes` slots from its home.
        @inline(__always) private func probe(_ fingerprint: Int, _ matches: (borrowing Text) -> Bool) -> Int? {
            let tag = Shard.tag(fingerprint)
            return texts.withUnsafeBufferPointer { texts in
                var slot = home(fingerprint)
                for _ in 0..<MeasurementCache.maxProbes {
                    let entry = table[slot]
                    if entry == 0 { return nil }
                    if entry & 0xFFFF_FFFF_0000_0000 == tag, matches(texts[Shard.index(entry)]) { return Shard.index(entry) }
                    slot = (slot + 1) & tableMask
                }
                return nil
            }
        }

        /// Where a digest's text lives: its low half (the digest is uniformly distributed).
        @inline(__always) static func fingerprint(_ digest: ElementDigest) -> Int { Int(bitPattern: UInt(digest.low)) }

        func lookup(_ attributes: TextAttributes, _ fingerprint: Int, _ container: Container) -> Lookup {
            lock.withLock { _ in answers(find(attributes, fingerprint), container, countingMiss: true) }
        }

        func lookup(_ digest: ElementDigest, _ container: Container, countingMiss: Bool) -> Lookup {
            lock.withLock { _ in answers(find(digest), container, countingMiss: countingMiss) }
        }

        /// The answers of the text at `index` (nil: not cached), counted as a hit or a miss.
        @inline(__always)
        private func answers(_ found: Int?, _ container: Container, countingMiss: Bool) -> Lookup {
            var result = Lookup()
            if let index = found {
                for k in 0..<texts[index].answerCount {
                    let answer = self.answer(index, k)
                    if answer.container == container { result.hit = answer.measurement; break }
                    if answer.container.height == container.height && answer.container.width == Double.infinity.bitPattern {
                        result.unlimitedWidth = answer.measurement
                    }
                }
                if result.hit != nil { texts[index].referenced = true }
            }
            if result.hit != nil { hits += 1 } else if countingMiss { misses += 1 }
            return result
        }

        /// What a text is counted for: its key and its fixed share (the text, the slots of
        /// its other answers, two table slots).
        static func bytes(key: Int) -> Int {
            key + MemoryLayout<Text>.stride + (MeasurementCache.answersPerText - 1) * MemoryLayout<Answer>.stride + 16
        }

        func store(_ attributes: TextAttributes, _ fingerprint: Int, _ container: Container, _ measurement: TextMeasurement,
                   keyBytes: Int) {
            lock.withLock { _ in
                let size = Shard.bytes(key: keyBytes)
                store(at: find(attributes, fingerprint), fingerprint, container, measurement, bytes: size) {
                    Text(fingerprint: fingerprint, digestHigh: 0, first: $0,
                         key: Shard.key(attributes, keyBytes), bytes: size)
                }
            }
        }

        func store(_ digest: ElementDigest, _ container: Container, _ measurement: TextMeasurement, countingMiss: Bool) {
            lock.withLock { _ in
                if countingMiss { misses += 1 }
                let fingerprint = Shard.fingerprint(digest)
                let size = Shard.bytes(key: 0)
                store(at: find(digest), fingerprint, container, measurement, bytes: size) {
                    Text(fingerprint: fingerprint, digestHigh: digest.high, first: $0, key: Text.noKey, bytes: size)
                }
            }
        }

        /// Adds `measurement` to the text at `found`, or stores a new text (`make`, given its
        /// first answer; `size` bytes) when it is not cached and fits.
        private func store(at found: Int?, _ fingerprint: Int, _ container: Container, _ measurement: TextMeasurement,
                           bytes size: Int, make: (Answer) -> Text) {
            let answer = Answer(container: container, measurement: measurement)
            if let index = found {
                let count = texts[index].answerCount
                for k in 0..<count where self.answer(index, k).container == container {
                    setAnswer(index, k, answer)
                    return
                }
                if count < answersPerText {
                    texts[index].referenced = true
                    makeRoom(sparing: index)
                    if answerCount < capacity {
                        setAnswer(index, count, answer)
                        texts[index].answerCount += 1
                        answerCount += 1
                        return
                    }
                }
                // Full (or nothing else left to evict): the oldest answer makes way.
                let k = texts[index].nextReplaced
                setAnswer(index, k, answer)
                texts[index].nextReplaced = (k + 1) % count
                return
            }
            guard size <= byteCapacity else { return }
            makeRoom(sparing: nil, bytes: size)
            var slot = home(fingerprint)
            var probes = 1
            while table[slot] != 0 {
                if probes == MeasurementCache.maxProbes { return }
                slot = (slot + 1) & tableMask
                probes += 1
            }
            let text = make(answer)
            let index: Int
            if let reused = free.popLast() {
                texts[reused] = text
                index = reused
            } else {
                texts.append(text)
                for _ in 1..<MeasurementCache.answersPerText { moreAnswers.append(answer) }
                index = texts.count - 1
            }
            answerCount += 1
            bytes += size
            table[slot] = Shard.tag(fingerprint) | UInt64(index + 1)
        }

        /// The attributes' identity (`keyBytes` long), written straight into the memory
        /// the shard keeps: one allocation per stored text.
        private static func key(_ attributes: TextAttributes, _ keyBytes: Int) -> UnsafeRawBufferPointer {
            let key = UnsafeMutableRawBufferPointer.allocate(byteCount: keyBytes, alignment: 8)
            TextIdentity.encode(attributes, into: key)
            return UnsafeRawBufferPointer(key)
        }

        private func freeKeys() {
            for text in texts where !text.isEvicted && !text.isKnownByDigest { text.key.deallocate() }
        }

        deinit { freeKeys() }

        @inline(__always) private func answer(_ index: Int, _ k: Int) -> Answer {
            k == 0 ? texts[index].first : moreAnswers[index * (MeasurementCache.answersPerText - 1) + k - 1]
        }

        @inline(__always) private func setAnswer(_ index: Int, _ k: Int, _ answer: Answer) {
            if k == 0 { texts[index].first = answer } else {
                moreAnswers[index * (MeasurementCache.answersPerText - 1) + k - 1] = answer
            }
        }

        /// Evicts texts (CLOCK) until one more answer (and a new text of `size` bytes) fits,
        /// never the text at `sparing`.
        private func makeRoom(sparing: Int?, bytes size: Int = 0) {
            var spared = 0
            while answerCount >= capacity || bytes + size > byteCapacity {
                guard !texts.isEmpty else { return }
                if hand >= texts.count { hand = 0 }
                let index = hand
                hand += 1
                if texts[index].isEvicted { continue }
                if index == sparing {
                    spared += 1
                    // The only text left: it replaces its own oldest answer instead.
                    if spared > 1 { return }
                    continue
                }
                if texts[index].referenced { texts[index].referenced = false; continue }
                evict(index)
            }
        }

        private func evict(_ index: Int) {
            var slot = home(texts[index].fingerprint)
            while Shard.index(table[slot]) != index { slot = (slot + 1) & tableMask }
            answerCount -= texts[index].answerCount
            bytes -= texts[index].bytes
            if !texts[index].isKnownByDigest { texts[index].key.deallocate() }
            texts[index] = Text.evicted
            free.append(index)
            // Backward-shift deletion keeps every probe sequence unbroken.
            var hole = slot
            var next = (slot + 1) & tableMask
            while table[next] != 0 {
                let wanted = home(texts[Shard.index(table[next])].fingerprint)
                // Move the entry back when the hole lies between its home and its slot.
                if (next - wanted) & tableMask >= (next - hole) & tableMask {
                    table[hole] = table[next]
                    hole = next
                }
                next = (next + 1) & tableMask
            }
            table[hole] = 0
        }

        func clear() {
            lock.withLock { _ in
                for i in table.indices { table[i] = 0 }
                freeKeys()
                texts.removeAll(keepingCapacity: true); moreAnswers.removeAll(keepingCapacity: true)
                free.removeAll(keepingCapacity: true)
                answerCount = 0; bytes = 0; hand = 0; hits = 0; misses = 0
            }
        }
    }

    private let shards: [Shard]
    let capacity: Int
    let byteCapacity: Int

    /// - Parameters:
    ///   - capacity: maximum answers (0: no cache).
    ///   - bytes: maximum bytes of the stored texts (`TextCacheStatistics.bytes`), split
    ///     evenly between the shards: a text larger than a shard's share is not cached.
    init(capacity: Int, bytes: Int = 32 << 20, shardCount: Int = 16) {
        self.capacity = max(0, capacity)
        byteCapacity = max(0, bytes)
        let count = self.capacity == 0 ? 0 : max(1, min(shardCount, self.capacity))
        let per = count == 0 ? 0 : (self.capacity + count - 1) / count
        let perBytes = count == 0 ? 0 : byteCapacity / count
        shards = (0..<count).map { _ in Shard(capacity: per, byteCapacity: perBytes) }
    }

    /// `body` with the shard holding texts of `fingerprint` (borrowed from the array, not
    /// retained).
    @inline(__always) private func withShard<T>(_ fingerprint: Int, _ body: (Shard) -> T) -> T {
        shards.withUnsafeBufferPointer { shards in
            // Borrowed: the array holds the shard for the cache's lifetime, and a retain and
            // release of an object every thread uses would be two atomic writes to one line.
            Unmanaged.passUnretained(shards[Int(UInt(bitPattern: fingerprint) % UInt(shards.count))])
                ._withUnsafeGuaranteedRef { body($0) }
        }
    }

    var isEnabled: Bool { !shards.isEmpty }

    /// The answer for `attributes` (whose fingerprint is `fingerprint`) in `container`, and
    /// the one in unlimited width; counted as a hit or a miss.
    func lookup(_ attributes: TextAttributes, fingerprint: Int, in container: Size) -> Lookup {
        withShard(fingerprint) { $0.lookup(attributes, fingerprint, Container(container)) }
    }

    func store(_ attributes: TextAttributes, fingerprint: Int, in container: Size, _ answer: TextMeasurement) {
        // The key's size, known before it is made: a text too large is not encoded at all.
        let keyBytes = TextIdentity.encodedSize(attributes)
        guard Shard.bytes(key: keyBytes) <= byteCapacity / max(1, shards.count) else { return }
        withShard(fingerprint) { $0.store(attributes, fingerprint, Container(container), answer, keyBytes: keyBytes) }
    }

    /// The answers of the text known by `digest`; a hit is counted, a miss only when
    /// `countingMiss` (a caller that measures the text counts the miss when it stores the
    /// answer, and a measurement the budget stops is no miss).
    func lookup(digest: ElementDigest, in container: Size, countingMiss: Bool = true) -> Lookup {
        withShard(Shard.fingerprint(digest)) { $0.lookup(digest, Container(container), countingMiss: countingMiss) }
    }

    /// Stores an answer under `digest`, counting the miss that led to it when `countingMiss`.
    func store(digest: ElementDigest, in container: Size, _ answer: TextMeasurement, countingMiss: Bool = false) {
        withShard(Shard.fingerprint(digest)) { $0.store(digest, Container(container), answer, countingMiss: countingMiss) }
    }

    func clear() { for s in shards { s.clear() } }

    var statistics: TextCacheStatistics {
        var hits = 0, misses = 0, entries = 0, bytes = 0
        for s in shards {
            s.lock.withLock { _ in
                hits += s.hits; misses += s.misses; entries += s.answerCount; bytes += s.bytes
            }
        }
        return TextCacheStatistics(hits: hits, misses: misses, entries: entries, capacity: capacity, bytes: bytes,
                                   byteCapacity: byteCapacity)
    }
}
