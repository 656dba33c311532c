import CPango
import LoomLayout
import Synchronization

/// Word advances shared by all engines: (font, word, spaces around it) → advances in Pango
/// units. Bounded by entries and by bytes (a full shard is emptied; a word is at most
/// `maxWordBytes` long), sharded, one lock per shard.
final class WordCache: @unchecked Sendable {
    /// The longest word the word path measures (longer ones go to Pango), so that an entry
    /// is small.
    static let maxWordBytes = 256

    /// A word of at most `maxBytes` UTF-8 bytes (nearly all words), its font and flags,
    /// packed in integers: looking a word up builds no string, and keys compare as integers.
    struct Key: Hashable {
        /// The word's bytes, 8 to a word (the first in the low byte), zero-padded.
        let b0: UInt64, b1: UInt64, b2: UInt64
        /// The word's length in bytes (bits 0–7, never 0: a zero `meta` marks an empty slot
        /// of `WordTable`), the flags (bits 8–15) and the font (bits 32–63).
        let meta: UInt64
        /// Computed once from the integers above and `SeededHasher.seed` (three full-width
        /// multiplications, a fraction of what `Hasher` costs per word); picks the shard
        /// and the slot of `WordTable`. Texts come from clients, so the shared
        /// dictionaries hash keys with `Hasher` all the same (`hash(into:)`), and
        /// `WordTable` bounds its probes.
        let hash: Int

        static let maxBytes = 24
        static let empty = Key()

        private init() { b0 = 0; b1 = 0; b2 = 0; meta = 0; hash = 0 }

        /// `word`: 1 to `maxBytes` bytes. Flags: 1 a space before the word, 2 a space after
        /// it, 4 shaped as Common script. `seed`: `SeededHasher.seed`.
        /// `readable`: how many bytes from the word's start may be read (at least its
        /// length; the rest of the text's buffer), so that a short word is read with one
        /// 8-byte load rather than copied byte by byte through memory (whose reload stalls).
        @inline(__always)
        init(_ word: UnsafeBufferPointer<UInt8>, font: Int32, flags: UInt8, seed: SeededHasher.Seed, readable: Int = 0) {
            let n = word.count
            let p = UnsafeRawPointer(word.baseAddress ?? UnsafePointer(bitPattern: 8)!)
            let readable = max(readable, n)
            b0 = Key.word(p, n, readable)
            b1 = n > 8 ? Key.word(p + 8, n - 8, readable - 8) : 0
            b2 = n > 16 ? Key.word(p + 16, n - 16, readable - 16) : 0
            meta = UInt64(n) | UInt64(flags) << 8 | UInt64(UInt32(bitPattern: font)) << 32
            let h = SeededHasher.mix(SeededHasher.mix(b0 ^ seed.0, b1 ^ seed.1) ^ seed.0,
                                     SeededHasher.mix(b2 ^ seed.2, meta ^ seed.3) ^ seed.2)
            hash = Int(bitPattern: UInt(h))
        }

        /// Up to 8 bytes from `p` (`count` of them, `readable` readable) as a little-endian
        /// integer, zero above them.
        @inline(__always) private static func word(_ p: UnsafeRawPointer, _ count: Int, _ readable: Int) -> UInt64 {
            if count >= 8 { return UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) }
            if readable >= 8 {
                return UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) & (UInt64(1) << (8 * count) &- 1)
            }
            var w: UInt64 = 0
            for i in 0..<count { w |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << (8 * i) }
            return w
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(b0); hasher.combine(b1); hasher.combine(b2); hasher.combine(meta)
        }
        @inline(__always) static func == (a: Key, b: Key) -> Bool {
            a.hash == b.hash && a.b0 == b.b0 && a.b1 == b.b1 && a.b2 == b.b2 && a.meta == b.meta
        }
    }

    /// A longer word, by its string.
    struct LongKey: Hashable {
        let word: String
        let font: Int32
        let flags: UInt8
        /// Hashed once, from the word's UTF-8 bytes with `SeededHasher` (hashing a String
        /// feeds the hasher a byte at a time). Equal keys have equal bytes (the word path's
        /// words are ASCII).
        let hash: Int

        init(word: String, font: Int32, flags: UInt8) {
            var word = word
            var h = SeededHasher()
            word.withUTF8 { h.combine(bytes: $0) }
            h.combine(UInt64(UInt32(bitPattern: font)), UInt64(flags))
            self.word = word; self.font = font; self.flags = flags
            hash = h.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: LongKey, b: LongKey) -> Bool {
            a.hash == b.hash && a.font == b.font && a.flags == b.flags && a.word == b.word
        }
    }

    struct Entry {
        /// The word's glyph advances (with the kerning against a following space).
        var word: Int32
        /// The advance of the space after the word when nothing follows it.
        var trailSpace: Int32
        /// The advance of the space before the word (kerned against its first glyph).
        var leadSpace: Int32
        /// False when the word cannot be measured this way (missing glyph, a negative
        /// advance, a cluster joined with a space): the text goes to Pango.
        var valid: Bool
        /// Whether shaping changed a glyph (a glyph other than the characters' nominal
        /// ones, or not one glyph per character): then soft lookup rules cannot be
        /// evaluated on nominal glyphs, and a text that needs that goes to Pango.
        var substituted: Bool

        static let invalid = Entry(word: 0, trailSpace: 0, leadSpace: 0, valid: false, substituted: true)
    }

    private final class Shard {
        let lock = Mutex(())
        var map: [Key: Entry] = [:]
        var long: [LongKey: Entry] = [:]
        /// Cut fallback words' analyses (FallbackBreaks.swift), by font and word.
        var pieces: [LongKey: PangoEngine.PieceAnalysis] = [:]
        /// Fallback words' glyphs by face (any size) and word, when their shaped advances
        /// are the glyphs' own; empty when they are not (FallbackWords.swift).
        var glyphs: [LongKey: [UInt32]] = [:]
        /// What the entries take, as `bytes(of:)` counts them.
        var bytes = 0
        var count: Int { map.count + long.count + pieces.count + glyphs.count }

        /// Makes room for an entry of `size` bytes (a full shard is emptied); false when
        /// it can never fit.
        func reserve(_ perShard: Int, bytes size: Int, of perShardBytes: Int) -> Bool {
            if size > perShardBytes { return false }
            if count >= perShard || bytes + size > perShardBytes {
                map.removeAll(keepingCapacity: true); long.removeAll(keepingCapacity: true)
                pieces.removeAll(keepingCapacity: true); glyphs.removeAll(keepingCapacity: true)
                bytes = 0
            }
            bytes += size
            return true
        }

        func removeAll() { map.removeAll(); long.removeAll(); pieces.removeAll(); glyphs.removeAll(); bytes = 0 }
    }

    /// Bytes an entry is counted for: the dictionary slot (key and entry, with the
    /// dictionary's own share) and, for a long word, its string.
    static let shortEntryBytes = MemoryLayout<Key>.stride + MemoryLayout<Entry>.stride + 16
    static func bytes(of key: LongKey) -> Int {
        MemoryLayout<LongKey>.stride + MemoryLayout<Entry>.stride + 16 + 32 + key.word.utf8.count
    }

    private let shards: [Shard]
    private let perShard: Int
    private let perShardBytes: Int
    let capacity: Int
    let byteCapacity: Int

    private let fontLock = Mutex(())
    /// Font numbers for keys. Never reused: an engine may still hold a number after the
    /// table is emptied (it keeps at most `maxFonts` entries).
    private var fontIDs: [ResolvedFont: Int32] = [:]
    private var nextFontID: Int32 = 0
    static let maxFonts = 4096
    private var profiles: [String: FaceWordProfile] = [:]

    init(capacity: Int, bytes: Int = 16 << 20, shardCount: Int = 16) {
        self.capacity = max(0, capacity)
        byteCapacity = max(0, bytes)
        let count = max(1, min(shardCount, max(1, self.capacity)))
        perShard = max(1, (self.capacity + count - 1) / count)
        perShardBytes = byteCapacity / count
        shards = (0..<count).map { _ in Shard() }
    }

    @inline(__always) private func shard(_ hash: Int) -> Shard {
        shards[Int(UInt(bitPattern: hash) % UInt(shards.count))]
    }

    /// Counts `clear()` calls, so that engines drop their own copies of entries too.
    private let clears = Atomic<Int>(0)
    var generation: Int { clears.load(ordering: .acquiring) }

    /// `body` on the shard of `hash`, under its lock.
    @inline(__always) private func locked<T>(_ hash: Int, _ body: (Shard) -> T) -> T {
        let s = shard(hash)
        return s.lock.withLock { _ in body(s) }
    }

    func get(_ key: Key) -> Entry? { locked(key.hash) { $0.map[key] } }
    func get(_ key: LongKey) -> Entry? { locked(key.hash) { $0.long[key] } }

    func put(_ key: Key, _ entry: Entry) {
        locked(key.hash) { s in
            guard s.map[key] == nil, s.reserve(perShard, bytes: WordCache.shortEntryBytes, of: perShardBytes) else { return }
            s.map[key] = entry
        }
    }
    func put(_ key: LongKey, _ entry: Entry) {
        let size = WordCache.bytes(of: key)
        locked(key.hash) { s in
            guard s.long[key] == nil, s.reserve(perShard, bytes: size, of: perShardBytes) else { return }
            s.long[key] = entry
        }
    }

    /// A cut fallback word's analysis in a font (`key`'s flags 0), if one was stored.
    func pieces(_ key: LongKey) -> PangoEngine.PieceAnalysis? { locked(key.hash) { $0.pieces[key] } }
    func putPieces(_ key: LongKey, _ analysis: PangoEngine.PieceAnalysis) {
        // The key and its string, the three arrays (a header each) and their elements, the
        // script, the flag and the safe distance.
        let size = WordCache.bytes(of: key) + 3 * 32 + 16 + analysis.offsets.count * MemoryLayout<Int>.stride
            + analysis.advance.count * MemoryLayout<Int>.stride + analysis.breakAt.count
        locked(key.hash) { s in
            guard s.pieces[key] == nil, s.reserve(perShard, bytes: size, of: perShardBytes) else { return }
            s.pieces[key] = analysis
        }
    }

    /// A fallback word's glyphs in a face (`key`: its word, face number and shaping flags).
    func glyphs(_ key: LongKey) -> [UInt32]? { locked(key.hash) { $0.glyphs[key] } }
    func putGlyphs(_ key: LongKey, _ glyphs: [UInt32]) {
        let size = WordCache.bytes(of: key) + 32 + glyphs.count * MemoryLayout<UInt32>.stride
        locked(key.hash) { s in
            guard s.glyphs[key] == nil, s.reserve(perShard, bytes: size, of: perShardBytes) else { return }
            s.glyphs[key] = glyphs
        }
    }

    func clear() {
        for s in shards { s.lock.withLock { _ in s.removeAll() } }
        clears.add(1, ordering: .releasing)
    }

    var count: Int { shards.reduce(0) { n, s in n + s.lock.withLock { _ in s.count } } }
    /// Bytes the entries are counted for (at most `byteCapacity`).
    var bytes: Int { shards.reduce(0) { n, s in n + s.lock.withLock { _ in s.bytes } } }

    /// A small number standing for a resolved font in keys.
    func fontID(_ font: ResolvedFont) -> Int32 {
        fontLock.withLock { _ in
            if let id = fontIDs[font] { return id }
            if fontIDs.count >= WordCache.maxFonts { fontIDs.removeAll() }
            let id = nextFontID
            nextFontID = nextFontID == .max ? 0 : nextFontID + 1
            fontIDs[font] = id
            return id
        }
    }

    /// The face's profile (computed once per font file and face index: a collection file
    /// holds several faces).
    func profile(file: String, font: UnsafeMutablePointer<PangoFont>) -> FaceWordProfile {
        var index: Int32 = 0
        let loaded = loom_font_file(font, &index).map { String(cString: $0) } ?? file
        let face = "\(loaded)#\(index)"
        if let p = fontLock.withLock({ _ in profiles[face] }) { return p }
        let p = FaceWordProfile(font: font)
        fontLock.withLock { _ in profiles[face] = p }
        return p
    }
}
