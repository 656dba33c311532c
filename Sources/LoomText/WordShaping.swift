import CPango
import LoomLayout
import Synchronization

// Measuring a paragraph from cached word advances instead of laying it out with Pango.
//
// Shaping dominates an uncached measurement (HarfBuzz ≈ 60 %, Pango ≈ 17 % of ~120 µs for a
// 100-character paragraph), and feeds repeat the same words. So for the texts where it
// provably gives Pango's answer, the engine splits each paragraph at its spaces, takes
// every word's advance from a shared cache (shaped once per font by Pango, with the spaces
// around it) and breaks lines greedily over those advances, as Pango's line breaker does.
//
// Why the sums are exact. A line's width is the sum of its glyph advances (integers in
// Pango units, unrounded positions). Shaping a word on its own gives the advances it has
// inside the paragraph when nothing in the font acts across the spaces around it except
// pair kerning that adjusts the first glyph of a pair (valueFormat2 = 0): then a glyph's
// advance depends on the glyph after it only, so shaping " word " gives the word's glyphs
// their advances in context (the last one kerned against the space that follows) and the
// leading space its advance before the word. Other lookups that involve the space make
// their input characters "triggers": a text with one is laid out by Pango. Except "soft"
// ones (Inter's case-sensitive punctuation, its × between digits: contextual lookups in
// format 3, which skip no glyph): a paragraph with their inputs is measured from words
// when no word's own shaping substituted a glyph and, on the paragraph's nominal glyphs,
// the first rule that matches at each position (if any) applies nothing — then these
// lookups change nothing in the paragraph nor in any line of it (less context only makes
// rules fail), and the sums hold as without them. `loom_face_word_analysis` checks each
// face once.
// When Pango breaks a line inside an item it shapes the two parts again, the second without
// the space before it; with first-glyph kerning only, that changes no advance on the line.
//
// Which texts. One font (every span resolves to the text's font), no letter spacing, not
// `charWrap`; characters: printable ASCII plus a few punctuation marks standing alone as a
// word (· – — • …), all with a glyph in the font and none a (hard) trigger; no break opportunity
// inside a word by Chromium's ASCII pair table (`TextPreparation.chromiumBreak`), so the
// break opportunities are exactly the spaces (always a break in Chromium: the full path
// patches Pango to that); no word wider than the line (break-word would cut it); and a
// line limit that cuts the text only where the truncation text simply follows the line.
// Anything else returns nil and the caller lays the text out with Pango. The test
// `testWordPathAgreesWithPango` compares both paths on thousands of random texts.

/// Which characters of a face the word path may use.
struct FaceWordProfile: Sendable {
    /// Whether words can be shaped apart in this face at all.
    var eligible: Bool
    /// Printable ASCII (index = scalar value) with a glyph and no (hard) trigger.
    var ascii: [Bool]
    /// The stand-alone punctuation marks with a glyph and no (hard) trigger.
    var extra: [UInt32: Bool]
    /// Nominal glyphs of the usable characters (ASCII by scalar value, space included).
    var asciiGlyph: [UInt32]
    var extraGlyph: [UInt32: UInt32]
    /// Usable characters that are inputs of "soft" lookups (`softLookups`: contextual
    /// lookups that involve the space and that the word path evaluates itself).
    var softASCII: [Bool]
    var softExtra: [UInt32: Bool]
    var softLookups: [UInt32]

    static let standAlone: [UInt32] = [0xB7, 0x2013, 0x2014, 0x2022, 0x2026]
    static let ineligible = FaceWordProfile(eligible: false)

    @inline(__always) func usable(_ v: UInt32) -> Bool {
        if v < 0x80 { return v > 0x20 && v < 0x7F && ascii[Int(v)] }
        return extra[v] ?? false
    }

    /// For a usable character: whether it starts soft lookup rules.
    @inline(__always) func soft(_ v: UInt32) -> Bool {
        v < 0x80 ? softASCII[Int(v)] : (softExtra[v] ?? false)
    }

    /// For a usable character or the space: its nominal glyph.
    @inline(__always) func glyph(_ v: UInt32) -> UInt32 {
        v < 0x80 ? asciiGlyph[Int(v)] : (extraGlyph[v] ?? 0)
    }

    init(eligible: Bool) {
        self.eligible = eligible; ascii = []; extra = [:]; asciiGlyph = []; extraGlyph = [:]
        softASCII = []; softExtra = [:]; softLookups = []
    }

    init(font: UnsafeMutablePointer<PangoFont>) {
        self.init(eligible: false)
        guard let face = loom_font_face(font) else { return }
        let space = loom_nominal_glyph(font, 0x20)
        let triggers = hb_set_create(), soft = hb_set_create(), softTriggers = hb_set_create()
        defer { hb_set_destroy(triggers); hb_set_destroy(soft); hb_set_destroy(softTriggers) }
        guard space != 0, loom_face_word_analysis(face, space, triggers, soft, softTriggers) != 0 else { return }
        eligible = true
        func ok(_ g: UInt32) -> Bool { g != 0 && hb_set_has(triggers, g) == 0 }
        ascii = [Bool](repeating: false, count: 128)
        softASCII = [Bool](repeating: false, count: 128)
        asciiGlyph = [UInt32](repeating: 0, count: 128)
        asciiGlyph[0x20] = space
        for v in UInt32(0x21)..<0x7F {
            let g = loom_nominal_glyph(font, v)
            asciiGlyph[Int(v)] = g
            ascii[Int(v)] = ok(g)
            softASCII[Int(v)] = hb_set_has(softTriggers, g) != 0
        }
        for v in FaceWordProfile.standAlone {
            let g = loom_nominal_glyph(font, v)
            extraGlyph[v] = g
            extra[v] = ok(g)
            softExtra[v] = hb_set_has(softTriggers, g) != 0
        }
        var l = hb_codepoint_t.max  // HB_SET_VALUE_INVALID
        while hb_set_next(soft, &l) != 0 { softLookups.append(l) }
    }
}

/// Word advances shared by all engines: (font, word, spaces around it) → advances in Pango
/// units. Bounded (a full shard is emptied), sharded, one lock per shard.
final class WordCache: @unchecked Sendable {
    struct Key: Hashable {
        let word: String
        let font: Int32
        /// 1: a space before the word, 2: a space after it, 4: shaped as Common script.
        let flags: UInt8
        /// Hashed once, from the word's UTF-8 bytes (hashing a String feeds the hasher a
        /// byte at a time), and used for the shard and the dictionary alike. Equal keys have
        /// equal bytes (the word path's words are ASCII).
        let hash: Int

        init(word: String, font: Int32, flags: UInt8) {
            var word = word
            var h = Hasher()
            word.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
            h.combine(font)
            h.combine(flags)
            self.word = word; self.font = font; self.flags = flags
            hash = h.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        static func == (a: Key, b: Key) -> Bool {
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
    }

    private final class Shard {
        let lock = Lock()
        var map: [Key: Entry] = [:]
    }

    private let shards: [Shard]
    private let perShard: Int
    let capacity: Int

    private let fontLock = Lock()
    private var fontIDs: [ResolvedFont: Int32] = [:]
    private var profiles: [String: FaceWordProfile] = [:]

    init(capacity: Int, shardCount: Int = 16) {
        self.capacity = max(0, capacity)
        let count = max(1, min(shardCount, max(1, self.capacity)))
        perShard = max(1, (self.capacity + count - 1) / count)
        shards = (0..<count).map { _ in Shard() }
    }

    @inline(__always) private func shard(_ key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
    }

    /// Counts `clear()` calls, so that engines drop their own copies of entries too.
    private let clears = Atomic<Int>(0)
    var generation: Int { clears.load(ordering: .acquiring) }

    func get(_ key: Key) -> Entry? {
        let s = shard(key)
        s.lock.lock(); defer { s.lock.unlock() }
        return s.map[key]
    }

    func put(_ key: Key, _ entry: Entry) {
        let s = shard(key)
        s.lock.lock(); defer { s.lock.unlock() }
        if s.map.count >= perShard { s.map.removeAll(keepingCapacity: true) }
        s.map[key] = entry
    }

    func clear() {
        for s in shards { s.lock.withLock { s.map.removeAll() } }
        clears.add(1, ordering: .releasing)
    }

    var count: Int { shards.reduce(0) { n, s in n + s.lock.withLock { s.map.count } } }

    /// A small number standing for a resolved font in keys.
    func fontID(_ font: ResolvedFont) -> Int32 {
        fontLock.withLock {
            if let id = fontIDs[font] { return id }
            let id = Int32(fontIDs.count)
            fontIDs[font] = id
            return id
        }
    }

    /// The face's profile (computed once per font file and face index).
    func profile(file: String, font: UnsafeMutablePointer<PangoFont>) -> FaceWordProfile {
        if let p = fontLock.withLock({ profiles[file] }) { return p }
        let p = FaceWordProfile(font: font)
        fontLock.withLock { profiles[file] = p }
        return p
    }
}

/// Per-engine buffers of the word path, reused between measurements.
final class WordScratch {
    struct Line { var units: Int; var endsParagraph: Bool; var empty: Bool }
    var lines: [Line] = []
    var starts: [Int] = []
    var entries: [WordCache.Entry] = []
    var bytes: [UInt8] = []
    var glyphs: [UInt32] = []
    var starts8: [UInt8] = []
    /// The engine's own copy of the word entries it used lately (no lock; at most
    /// `localWordLimit`, then emptied), valid while the shared cache's generation is.
    var words: [WordCache.Key: WordCache.Entry] = [:]
    var wordsGeneration = -1
    static let localWordLimit = 8192
}

extension PangoEngine {
    /// The word advances of `word` in `font` (shaped by Pango on a miss).
    func wordAdvance(_ word: String, font: EngineFont, flags: UInt8, cache: WordCache) -> WordCache.Entry {
        let key = WordCache.Key(word: word, font: font.wordFontID(cache), flags: flags)
        let scratch = wordScratch
        let generation = cache.generation
        if scratch.wordsGeneration != generation {
            scratch.words.removeAll(keepingCapacity: true)
            scratch.wordsGeneration = generation
        }
        if let local = scratch.words[key] { return local }
        let entry: WordCache.Entry
        if let hit = cache.get(key) {
            entry = hit
        } else {
            entry = shapeWord(word, font: font, flags: flags)
            cache.put(key, entry)
        }
        if scratch.words.count >= WordScratch.localWordLimit { scratch.words.removeAll(keepingCapacity: true) }
        scratch.words[key] = entry
        return entry
    }

    private func shapeWord(_ word: String, font: EngineFont, flags: UInt8) -> WordCache.Entry {
        let invalid = WordCache.Entry(word: 0, trailSpace: 0, leadSpace: 0, valid: false, substituted: true)
        guard let pangoFont = font.font else { return invalid }
        let lead = flags & 1 != 0, trail = flags & 2 != 0
        var bytes: [UInt8] = []
        bytes.reserveCapacity(word.utf8.count + 2)
        if lead { bytes.append(0x20) }
        bytes.append(contentsOf: word.utf8)
        if trail { bytes.append(0x20) }
        let lo = lead ? 1 : 0, hi = bytes.count - (trail ? 1 : 0)
        let script = flags & 4 != 0 ? PANGO_SCRIPT_COMMON : PANGO_SCRIPT_LATIN
        let glyphs = wordGlyphs
        bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                loom_shape_word(pangoFont, script.rawValue, c.baseAddress, Int32(c.count), glyphs)
            }
        }
        let count = Int(glyphs.pointee.num_glyphs)
        // One glyph per character (all the word path's characters are one UTF-8 sequence
        // each), each the character's nominal glyph: nothing was substituted.
        var substituted = count != word.unicodeScalars.count + (lead ? 1 : 0) + (trail ? 1 : 0)
        if !substituted, let profile = font.cachedProfile {
            var g = 0
            if lead { substituted = substituted || glyphs.pointee.glyphs[0].glyph != profile.glyph(0x20); g = 1 }
            for scalar in word.unicodeScalars {
                if glyphs.pointee.glyphs[g].glyph != profile.glyph(scalar.value) { substituted = true; break }
                g += 1
            }
            if trail && !substituted { substituted = glyphs.pointee.glyphs[count - 1].glyph != profile.glyph(0x20) }
        } else {
            substituted = true
        }
        var wordUnits: Int32 = 0, leadUnits: Int32 = 0, trailUnits: Int32 = 0
        var sawLead = !lead, sawTrail = !trail, sawFirst = false
        for g in 0..<count {
            let info = glyphs.pointee.glyphs[g]
            if info.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 || info.glyph == PANGO_GLYPH_EMPTY { return invalid }
            let cluster = Int(glyphs.pointee.log_clusters[g])
            let w = info.geometry.width
            if cluster < lo {
                sawLead = true
                leadUnits &+= w
            } else if cluster < hi {
                if cluster == lo { sawFirst = true }
                if w < 0 { return invalid }
                wordUnits &+= w
            } else {
                sawTrail = true
                trailUnits &+= w
            }
        }
        // Each space must stay a cluster of its own (no ligature or merge across it).
        guard sawLead, sawTrail, sawFirst else { return invalid }
        return WordCache.Entry(word: wordUnits, trailSpace: trailUnits, leadSpace: leadUnits, valid: true,
                               substituted: substituted)
    }

    /// The measurement from cached word advances, or nil when this text needs Pango (see
    /// the top of this file). The caller has checked one font and no letter spacing.
    func measureFromWords(_ text: TextAttributes, in container: Size, base: EngineFont, lineHeight: Double?,
                          lineSpacing: Double, ascender: Double, descender: Double,
                          cache: WordCache) -> TextMeasurement? {
        guard text.truncationMode != .charWrap, let pangoFont = base.font else { return nil }
        let profile = base.wordProfile(cache, pangoFont)
        guard profile.eligible else { return nil }
        let (scalars, _, hasLines) = TextPreparation.collapse(text.spans)
        guard hasLines else { return nil }

        let width = container.width
        let limit: Int = (width.isNaN || width >= 2_000_000)
            ? Int.max : Int(Int32(((max(0, width) + 1.0 / 64) * Double(LOOM_PANGO_SCALE)).rounded(.down)))

        // Lines (widths in Pango units), in buffers borrowed from the engine.
        let scratch = wordScratch
        var lines = scratch.lines, wordStarts = scratch.starts, entries = scratch.entries, bytes = scratch.bytes
        scratch.lines = []; scratch.starts = []; scratch.entries = []; scratch.bytes = []
        lines.removeAll(keepingCapacity: true)
        defer { scratch.lines = lines; scratch.starts = wordStarts; scratch.entries = entries; scratch.bytes = bytes }

        let n = scalars.count
        var p = 0
        while p <= n {
            // Paragraph [p, e).
            var e = p
            while e < n && scalars[e] != "\n" { e += 1 }
            if e == p {
                lines.append(.init(units: 0, endsParagraph: true, empty: true))
                p = e + 1
                continue
            }
            // Check the characters, find the words and the script.
            wordStarts.removeAll(keepingCapacity: true)
            var latin = false
            var needsRules = false
            var i = p
            while i < e {
                let v = scalars[i].value
                if v == 0x20 { i += 1; continue }
                guard profile.usable(v) else { return nil }
                if profile.soft(v) { needsRules = true }
                if (v | 0x20) >= 0x61 && (v | 0x20) <= 0x7A { latin = true }
                if i == p || scalars[i - 1] == " " {
                    wordStarts.append(i)
                } else {
                    // Inside a word: both ASCII, and no break opportunity between them.
                    let u = scalars[i - 1].value
                    guard v < 0x80, u < 0x80, TextPreparation.chromiumBreak(scalars, i) == false else { return nil }
                }
                i += 1
            }
            let script: UInt8 = latin ? 0 : 4
            entries.removeAll(keepingCapacity: true)
            for k in 0..<wordStarts.count {
                let ws = wordStarts[k]
                var we = ws
                bytes.removeAll(keepingCapacity: true)
                while we < e && scalars[we] != " " {
                    TextPreparation.appendUTF8(scalars[we], to: &bytes)
                    we += 1
                }
                let word = String(decoding: bytes, as: UTF8.self)
                let flags: UInt8 = script | (k > 0 ? 1 : 0) | (k < wordStarts.count - 1 ? 2 : 0)
                let adv = wordAdvance(word, font: base, flags: flags, cache: cache)
                guard adv.valid else { return nil }
                entries.append(adv)
            }
            if needsRules {
                // Contextual lookups that involve the space (Inter's case-sensitive forms,
                // its × between digits) must change nothing anywhere in the paragraph
                // (loom_lookup_changes_nothing). Then, with no glyph substituted in any word (each shaped as its
                // nominal glyphs), the paragraph is its nominal glyphs when these lookups
                // run, in Pango's shaping of the whole paragraph as in the shaping of any
                // line of it (less context only makes a rule fail), and the words' advances
                // add up as without them.
                guard entries.allSatisfy({ !$0.substituted }), let face = loom_font_face(pangoFont) else { return nil }
                var glyphs = scratch.glyphs, starts = scratch.starts8
                glyphs.removeAll(keepingCapacity: true); starts.removeAll(keepingCapacity: true)
                for q in p..<e {
                    let v = scalars[q].value
                    glyphs.append(profile.glyph(v))
                    starts.append(v != 0x20 && profile.soft(v) ? 1 : 0)
                }
                var ok = true
                for lookup in profile.softLookups where ok {
                    ok = loom_lookup_changes_nothing(face, lookup, glyphs, Int32(glyphs.count), starts) != 0
                }
                scratch.glyphs = glyphs; scratch.starts8 = starts
                guard ok else { return nil }
            }
            // Greedy breaking. Pango takes a break after word k when the line up to it fits
            // with this measure: the line shaped again up to the break, its final space
            // included (kerning nothing), less that space's advance in the paragraph's
            // shaping (kerned against the next word). Found by scanning widths against
            // Pango (testBreakThresholdsAgreeWithPango); it is the content width when the
            // space does not kern.
            var units = 0
            var started = false
            for k in 0..<entries.count {
                let adv = entries[k]
                let w = Int(adv.word)
                let atBreak = k + 1 < entries.count ? Int(adv.trailSpace) - Int(entries[k + 1].leadSpace) : 0
                if started {
                    let candidate = units + Int(adv.leadSpace) + w
                    if candidate + atBreak <= limit {
                        units = candidate
                        continue
                    }
                    lines.append(.init(units: units, endsParagraph: false, empty: false))
                }
                // The word starts a line: it must fit whole (break-word would cut it).
                guard w + atBreak <= limit else { return nil }
                units = w
                started = true
            }
            lines.append(.init(units: units, endsParagraph: true, empty: false))
            p = e + 1
        }

        // Visible lines, as measure() counts them.
        let (above, below) = base.metrics.halfLeadingSplit(lineHeight: lineHeight)
        let lineBox = above + below
        let total = lines.count
        let visible = TextPreparation.visibleLineCount(total, limit: text.maximumNumberOfLines, containerHeight: container.height,
                                                       lineSpacing: lineSpacing) { _ in lineBox }
        let truncated = visible < total
        if visible == 0 {
            return TextMeasurement(size: .zero, lineCount: 0, truncated: truncated, ascender: ascender, descender: descender)
        }
        var widths = lines[0..<visible].map { Double($0.units) / Double(LOOM_PANGO_SCALE) }
        if truncated {
            let last = visible - 1
            let mode = text.truncationMode
            if mode != .clip {
                if (mode == .head || mode == .middle) && !lines[last].endsParagraph { return nil }
                let available = width.isNaN ? Double.infinity : max(0, width)
                let token = tokenWidth(text.truncationText, font: base, spacing: 0)
                if lines[last].empty {
                    widths[last] = token
                } else if widths[last] + token <= available + 1e-9 {
                    widths[last] += token
                } else {
                    return nil  // the line is cut into graphemes: Pango's cluster widths needed
                }
            }
        }
        var height = 0.0
        for _ in 0..<visible { height += lineBox }
        height += lineSpacing * Double(visible - 1)
        let used = widths.max() ?? 0
        return TextMeasurement(size: Size(width: used, height: height), lineCount: visible, truncated: truncated,
                               ascender: ascender, descender: descender)
    }
}
