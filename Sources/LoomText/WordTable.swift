import CPango
import LoomLayout

/// An engine's own copy of the word entries it used lately, for words of at most
/// `WordCache.Key.maxBytes` bytes: open addressing with linear probing over a power of two
/// of slots that hold keys and entries by value, so a lookup takes no lock and retains
/// nothing. A key is looked for in at most `maxProbes` slots (and, when they are all taken,
/// replaces the entry in its first one), so words crafted to collide cost a bounded number
/// of comparisons and then go to the shared cache. At most `limit` entries (then emptied);
/// valid while the shared cache's `generation` is. A value type over memory that
/// `WordScratch` owns: a measurement keeps it in a local variable (no exclusivity checks
/// per word) and stores it back.
struct WordTable {
    /// One cache line (64 bytes, so aligned): a lookup reads one line, not two.
    struct Slot {
        var key: WordCache.Key
        var entry: WordCache.Entry
        private var padding: UInt64 = 0
        init(key: WordCache.Key, entry: WordCache.Entry) { self.key = key; self.entry = entry }
    }
    private static let slotAlignment = 64
    private var slots: UnsafeMutablePointer<Slot>? = nil
    private var mask = 0
    private var count = 0
    var generation = -1
    /// `SeededHasher.seed`, read once.
    let seed = SeededHasher.seed

    static let limit = 8192
    static let maxProbes = 16
    private static let initialSlots = 512

    @inline(__always) func find(_ key: WordCache.Key) -> WordCache.Entry? {
        guard let slots else { return nil }
        var i = key.hash & mask
        for _ in 0..<WordTable.maxProbes {
            let slot = slots + i
            if slot.pointee.key.meta == 0 { return nil }
            if slot.pointee.key == key { return slot.pointee.entry }
            i = (i + 1) & mask
        }
        return nil
    }

    /// Adds a key that `find` did not find.
    mutating func insert(_ key: WordCache.Key, _ entry: WordCache.Entry) {
        if count >= WordTable.limit { removeAll() }
        if slots == nil || (count + 1) * 2 > mask + 1 { grow() }
        if place(key, entry) { count += 1 }
    }

    /// Stores the entry in the first free slot of the key's probes, or in its first slot
    /// when none is free; true when it took a free slot.
    private mutating func place(_ key: WordCache.Key, _ entry: WordCache.Entry) -> Bool {
        guard let slots else { return false }
        let home = key.hash & mask
        var i = home
        for _ in 0..<WordTable.maxProbes {
            if slots[i].key.meta == 0 {
                slots[i] = Slot(key: key, entry: entry)
                return true
            }
            i = (i + 1) & mask
        }
        slots[home] = Slot(key: key, entry: entry)
        return false
    }

    /// Doubles the slots (at most half of them taken), keeping the entries.
    private mutating func grow() {
        let old = slots, oldSize = old == nil ? 0 : mask + 1
        let size = old == nil ? WordTable.initialSlots : oldSize * 2
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: size * MemoryLayout<Slot>.stride,
                                                     alignment: WordTable.slotAlignment)
            .bindMemory(to: Slot.self, capacity: size)
        fresh.initialize(repeating: Slot(key: .empty, entry: .invalid), count: size)
        slots = fresh
        mask = size - 1
        count = 0
        guard let old else { return }
        for i in 0..<oldSize where old[i].key.meta != 0 {
            if place(old[i].key, old[i].entry) { count += 1 }
        }
        old.deinitialize(count: oldSize)
        old.deallocate()
    }

    mutating func removeAll() {
        if let slots { slots.update(repeating: Slot(key: .empty, entry: .invalid), count: mask + 1) }
        count = 0
    }

    /// Frees the slots (by the owner, once).
    func deallocate() {
        guard let slots else { return }
        slots.deinitialize(count: mask + 1)
        slots.deallocate()
    }
}

/// Per-engine buffers of the word path, reused between measurements.
final class WordScratch {
    /// A line: its width, and the largest parts above and below the baseline of its
    /// fallback fonts (0: none; FallbackWords.swift); the bytes of the text from its first
    /// word's start (or piece's: FallbackBreaks.swift) to its last one's end (-1: not known).
    struct Line {
        var units: Int; var endsParagraph: Bool; var empty: Bool
        var above = 0.0, below = 0.0
        var start = -1, end = -1
    }
    var lines: [Line] = []
    /// The text's bytes when it has several spans.
    var bytes: [UInt8] = []
    /// A paragraph's nominal glyphs and, per glyph, its character's start code
    /// (`FaceWordProfile.startCode`: which soft rules may start there; `WordLineState`).
    var glyphs: [UInt32] = []
    var starts: [UInt8] = []
    var words = WordTable()

    /// Drops buffers that grew past `elements` (after a long text).
    func shrink(to elements: Int) {
        if lines.capacity > elements { lines = [] }
        if bytes.capacity > elements { bytes = [] }
        if glyphs.capacity > elements { glyphs = [] }
        if starts.capacity > elements { starts = [] }
    }

    deinit { words.deallocate() }
}

/// What a word-path measurement works in: its lines, the glyphs of a paragraph whose soft
/// rules are checked, the engine's word table.
struct WordLineState {
    var lines: [WordScratch.Line]
    var glyphs: [UInt32]
    var starts: [UInt8]
    var table: WordTable
    /// Whether the text breaks Thai (Lao, Khmer, Myanmar) at ICU's words: known once a word
    /// of theirs is cut (DictionaryBreaks.withinLimit).
    var dictionary: Bool? = nil
}

extension PangoEngine {
    /// The scalar value and length of the UTF-8 sequence starting at `i` (a lead byte of
    /// valid UTF-8, as a String's bytes are).
    @inline(__always)
    static func decodeUTF8(_ s: UnsafeBufferPointer<UInt8>, _ i: Int) -> (UInt32, Int) {
        let c = s[i]
        if c < 0xE0 { return (UInt32(c & 0x1F) << 6 | UInt32(s[i + 1] & 0x3F), 2) }
        if c < 0xF0 { return (UInt32(c & 0x0F) << 12 | UInt32(s[i + 1] & 0x3F) << 6 | UInt32(s[i + 2] & 0x3F), 3) }
        return (UInt32(c & 0x07) << 18 | UInt32(s[i + 1] & 0x3F) << 12 | UInt32(s[i + 2] & 0x3F) << 6
                | UInt32(s[i + 3] & 0x3F), 4)
    }

    /// The width of the last visible line, with the truncation text when the text is
    /// `truncated` (and not clipped); nil when that needs Pango (head or middle truncation
    /// inside a paragraph, a line cut into graphemes: Pango's cluster widths, or an exact fit).
    @inline(__always)
    func lastVisibleWidth(_ text: TextAttributes, _ line: WordScratch.Line, truncated: Bool, base: EngineFont,
                                  containerWidth width: Double) -> Double? {
        let lineWidth = Double(line.units) / Double(LOOM_PANGO_SCALE)
        let mode = text.truncationMode
        guard truncated && mode != .clip else { return lineWidth }
        if (mode == .head || mode == .middle) && !line.endsParagraph { return nil }
        let available = width.isNaN ? Double.infinity : max(0, width)
        let token = tokenWidth(text.truncationText, font: base, spacing: 0)
        if line.empty { return token }
        guard lineWidth + token <= available + 1e-9 else { return nil }
        // An exact fit is decided from the line's glyphs (EllipsisTies.swift): by its layout.
        return PangoEngine.fitsExactly(lineWidth, token: token, available: available) ? nil : lineWidth + token
    }
}
