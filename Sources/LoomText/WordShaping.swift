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
// patches Pango to that); no word wider than the line (break-word would cut it). Where a
// line limit cuts the text and the truncation text does not simply follow the last line,
// that line alone is laid out by Pango (WordTruncation.swift).
// Paragraphs with words of fallback fonts: FallbackWords.swift. Anything else returns nil
// and the caller lays the text out with Pango (testWordPathAgreesWithPango compares both).

extension PangoEngine {
    /// The advances of `word` (its UTF-8 bytes) in `font`: from the engine's table, else
    /// from the shared cache, else shaped by Pango.
    @inline(__always)
    func wordEntry(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont, fontID: Int32, flags: UInt8,
                           cache: WordCache, table: inout WordTable, readable: Int = 0) -> WordCache.Entry {
        guard word.count <= WordCache.Key.maxBytes else {
            let key = WordCache.LongKey(word: String(decoding: word, as: UTF8.self), font: fontID, flags: flags)
            if let hit = cache.get(key) { return hit }
            let entry = shapeWord(word, font: font, flags: flags)
            cache.put(key, entry)
            return entry
        }
        let key = WordCache.Key(word, font: fontID, flags: flags, seed: table.seed, readable: readable)
        if let local = table.find(key) { return local }
        let entry: WordCache.Entry
        if let hit = cache.get(key) {
            entry = hit
        } else {
            entry = shapeWord(word, font: font, flags: flags)
            cache.put(key, entry)
        }
        table.insert(key, entry)
        return entry
    }

    /// A word of the text's font shaped with a space before it (`lead`) and after it (`trail`),
    /// in `script`, as its run shapes it (the spaces kern against its ends): the glyphs, in
    /// `wordGlyphs`.
    func shapeBetweenSpaces(_ word: UnsafeBufferPointer<UInt8>, _ pangoFont: UnsafeMutablePointer<PangoFont>, lead: Bool,
                            trail: Bool, script: PangoScript) -> UnsafeMutablePointer<PangoGlyphString> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(word.count + 2)
        if lead { bytes.append(0x20) }
        bytes.append(contentsOf: word)
        if trail { bytes.append(0x20) }
        let glyphs = wordGlyphs
        bytes.withUnsafeBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                loom_shape_word(pangoFont, script.rawValue, c.baseAddress, Int32(c.count), glyphs)
            }
        }
        return glyphs
    }

    private func shapeWord(_ word: UnsafeBufferPointer<UInt8>, font: EngineFont, flags: UInt8) -> WordCache.Entry {
        let invalid = WordCache.Entry.invalid
        if flags & 192 == 192 {
            return shapeFallbackWord(word, font: font, script: flags & 1 != 0 ? G_UNICODE_SCRIPT_ARABIC : G_UNICODE_SCRIPT_HEBREW,
                                     leftToRight: true, flags: flags)
        }
        if flags & 64 != 0 { return shapeFallbackWord(word, font: font, script: G_UNICODE_SCRIPT_ARABIC, flags: flags) }
        if flags & 128 != 0 { return shapeFallbackWord(word, font: font, script: G_UNICODE_SCRIPT_HEBREW, flags: flags) }
        if flags & 32 != 0 {
            return shapeFallbackWord(word, font: font, script: G_UNICODE_SCRIPT_LATIN, rightToLeft: true, flags: flags)
        }
        if flags & 8 != 0 { return shapeFallbackWord(word, font: font, flags: flags) }
        if flags & 16 != 0 { return shapeEmojiWord(word, font: font) }
        guard let pangoFont = font.font else { return invalid }
        let lead = flags & 1 != 0, trail = flags & 2 != 0
        let lo = lead ? 1 : 0, hi = lo + word.count
        let glyphs = shapeBetweenSpaces(word, pangoFont, lead: lead, trail: trail,
                                        script: flags & 4 != 0 ? PANGO_SCRIPT_COMMON : PANGO_SCRIPT_LATIN)
        let count = Int(glyphs.pointee.num_glyphs)
        let scalars = String(decoding: word, as: UTF8.self).unicodeScalars
        // One glyph per character (all the word path's characters are one UTF-8 sequence
        // each), each the character's nominal glyph: nothing was substituted.
        var substituted = count != scalars.count + (lead ? 1 : 0) + (trail ? 1 : 0)
        if !substituted, let profile = font.cachedProfile {
            var g = 0
            if lead { substituted = substituted || glyphs.pointee.glyphs[0].glyph != profile.glyph(0x20); g = 1 }
            for scalar in scalars {
                if glyphs.pointee.glyphs[g].glyph != profile.glyph(scalar.value) { substituted = true; break }
                g += 1
            }
            if trail && !substituted { substituted = glyphs.pointee.glyphs[count - 1].glyph != profile.glyph(0x20) }
        } else {
            substituted = true
        }
        var wordUnits = 0, leadUnits = 0, trailUnits = 0
        var sawLead = !lead, sawTrail = !trail, sawFirst = false
        for g in 0..<count {
            let info = glyphs.pointee.glyphs[g]
            if info.glyph & PANGO_GLYPH_UNKNOWN_FLAG != 0 || info.glyph == PANGO_GLYPH_EMPTY { return invalid }
            let cluster = Int(glyphs.pointee.log_clusters[g])
            let w = info.geometry.width
            if cluster < lo {
                sawLead = true
                leadUnits &+= Int(w)
            } else if cluster < hi {
                if cluster == lo { sawFirst = true }
                if w < 0 { return invalid }
                wordUnits &+= Int(w)
            } else {
                sawTrail = true
                trailUnits &+= Int(w)
            }
        }
        // Each space must stay a cluster of its own (no ligature or merge across it).
        guard sawLead, sawTrail, sawFirst,
              let wordWidth = Int32(exactly: wordUnits), let trailWidth = Int32(exactly: trailUnits),
              let leadWidth = Int32(exactly: leadUnits) else { return invalid }
        return WordCache.Entry(word: wordWidth, trailSpace: trailWidth, leadSpace: leadWidth, valid: true,
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

        let width = container.width
        // Sums are 64-bit here: any width wraps (Int.max: no wrapping).
        let limit = PangoEngine.widthUnits(width)

        // Lines (widths in Pango units), in buffers borrowed from the engine (taken out, so
        // that appending copies nothing, and put back).
        let scratch = wordScratch
        var state = WordLineState(lines: scratch.lines, glyphs: scratch.glyphs, starts: scratch.starts,
                                  table: scratch.words)
        scratch.lines = []; scratch.glyphs = []; scratch.starts = []
        defer {
            scratch.lines = state.lines; scratch.glyphs = state.glyphs; scratch.starts = state.starts
            scratch.words = state.table
        }
        state.lines.removeAll(keepingCapacity: true)
        let generation = cache.generation
        if state.table.generation != generation {
            state.table.removeAll()
            state.table.generation = generation
        }
        let fontID = base.wordFontID(cache)
        let spans = text.spans
        let ok: Bool
        if spans.count == 1 {
            var string = spans[0].text
            ok = string.withUTF8 { breakLines($0, profile: profile, font: base, fontID: fontID, limit: limit,
                                              cache: cache, state: &state) }
        } else {
            var bytes = scratch.bytes
            scratch.bytes = []
            bytes.removeAll(keepingCapacity: true)
            for span in spans { bytes.append(contentsOf: span.text.utf8) }
            ok = bytes.withUnsafeBufferPointer { breakLines($0, profile: profile, font: base, fontID: fontID,
                                                            limit: limit, cache: cache, state: &state) }
            scratch.bytes = bytes
        }
        guard ok else { return nil }
        let lines = state.lines

        // Visible lines, as measure() counts them.
        let (above, below) = base.metrics.halfLeadingSplit(lineHeight: lineHeight)
        // A line with fallback words, under `normal`, is as tall as its fonts need.
        func box(_ line: WordScratch.Line) -> Double {
            lineHeight != nil || (line.above == 0 && line.below == 0) ? above + below : max(above, line.above) + max(below, line.below)
        }
        let total = lines.count
        let visible = TextPreparation.visibleLineCount(total, limit: text.maximumNumberOfLines, containerHeight: container.height,
                                                       lineSpacing: lineSpacing) { box(lines[$0]) }
        let truncated = visible < total
        if visible == 0 {
            return TextMeasurement(size: .zero, lineCount: 0, truncated: truncated, ascender: ascender, descender: descender)
        }
        // The widest visible line (the last one with the truncation text, if any).
        let last = visible - 1
        var used = Double(lines[0].units) / Double(LOOM_PANGO_SCALE)
        for k in 1..<max(1, last) {
            let w = Double(lines[k].units) / Double(LOOM_PANGO_SCALE)
            if used < w { used = w }
        }
        var fitted: Double? = nil
        if let w = lastVisibleWidth(text, lines[last], truncated: truncated, base: base, containerWidth: width) {
            fitted = w
        } else if spans.count == 1 {
            var string = spans[0].text
            fitted = string.withUTF8 { fittedLastLineWidth(text, $0, lines[last], base: base, containerWidth: width) }
        } else {
            fitted = scratch.bytes.withUnsafeBufferPointer {
                fittedLastLineWidth(text, $0, lines[last], base: base, containerWidth: width)
            }
        }
        guard let lastWidth = fitted else { return nil }
        if last == 0 { used = lastWidth } else if used < lastWidth { used = lastWidth }
        var height = 0.0
        for k in 0..<visible { height += box(lines[k]) }
        height += lineSpacing * Double(visible - 1)
        return TextMeasurement(size: Size(width: used, height: height), lineCount: visible, truncated: truncated,
                               ascender: ascender, descender: descender)
    }

    /// Splits the text (its UTF-8 bytes) into paragraphs and words and breaks its lines
    /// greedily into `state.lines`; false when the text needs Pango.
    ///
    /// One pass over the bytes does what `TextPreparation.collapse` (CSS `pre-line`) does
    /// with the word path's characters, without building the collapsed text: a `\r\n`, `\r`
    /// or `\n` ends a paragraph, a word is a run of bytes other than spaces, tabs and line
    /// ends (collapsed, the words of a paragraph are separated by one space, with none
    /// before the first or after the last), a paragraph without words is an empty line,
    /// except the last one after a line end (the final `\n` that CSS drops), and a text
    /// without words or line ends has no lines (nil, as before: Pango answers). Each
    /// paragraph is read twice: its characters and words checked and counted (the script
    /// and the flags need the whole paragraph), then its words looked up and the lines
    /// broken, each word's break decided once the next word's advances are known.
    private func breakLines(_ s: UnsafeBufferPointer<UInt8>, profile: FaceWordProfile, font: EngineFont, fontID: Int32,
                            limit: Int, cache: WordCache, state: inout WordLineState) -> Bool {
        let n = s.count
        let kinds = profile.asciiKind
        var i = 0
        var lineEnds = 0
        while true {
            // The paragraph [p, i): its characters (usable; ASCII inside words, with no
            // break opportunity between them by Chromium's pair table; a mark stands alone),
            // its words, whether a letter makes it Latin, whether soft rules need checking.
            let p = i
            if shouldStop(every: 64) { return false }
            var count = 0
            var latin = false, needsRules = false, mixed = false
            var inWord = false, fallback = false, rightToLeft = false
            var wordStart = 0
            // The previous two characters of the current word (0: none, or not ASCII).
            var prev: UInt8 = 0, prev2: UInt8 = 0
            // Whether `prev` is a letter or digit: no break after it inside a word.
            var prevAlnum = false
            while i < n {
                let c = s[i]
                if c == 0x20 || c == 0x09 { inWord = false; i += 1; continue }
                if c == 0x0A || c == 0x0D { break }
                if c < 0x80 {
                    let kind = kinds[Int(c)]
                    guard kind & FaceWordProfile.usableBit != 0 else { return false }
                    if kind & FaceWordProfile.softBit != 0 { needsRules = true }
                    if kind & FaceWordProfile.letterBit != 0 { latin = true }
                    if inWord {
                        guard prev != 0, prevAlnum || !TextPreparation.chromiumBreaksInsideWord(prev2, prev, c),
                              i - wordStart < WordCache.maxWordBytes else { return false }
                        prev2 = prev
                    } else {
                        count += 1
                        inWord = true
                        fallback = false
                        wordStart = i
                        prev2 = 0
                    }
                    prev = c
                    prevAlnum = kind & FaceWordProfile.alnumBit != 0
                    i += 1
                    // Then a run of plain letters (usable, no soft rule; no break after a
                    // letter or digit): only the word's length to check.
                    if prevAlnum {
                        let run = i
                        while i < n && s[i] < 0x80 && kinds[Int(s[i])] & FaceWordProfile.plainLetterBit != 0 { i += 1 }
                        if i > run {
                            guard i - 1 - wordStart < WordCache.maxWordBytes else { return false }
                            latin = true
                            prev2 = i - run >= 2 ? s[i - 2] : prev
                            prev = s[i - 1]
                        }
                    }
                } else {
                    let (v, length) = PangoEngine.decodeUTF8(s, i)
                    if !inWord && profile.usable(v) {
                        // A stand-alone mark.
                        if profile.soft(v) { needsRules = true }
                        fallback = false
                    } else {
                        // A letter of a fallback word (FallbackWords.swift) or a part of an
                        // emoji word (EmojiWords.swift; a keycap's base is ASCII).
                        let keycap = inWord && !fallback && i - wordStart == 1 && (v == 0xFE0F || v == 0x20E3)
                        guard !inWord || fallback || keycap,
                              PangoEngine.mayBeFallbackLetter(v) || PangoEngine.mayBeEmojiPart(v) else { return false }
                        if keycap { fallback = true }
                        if v < 0x900 && v >= 0x590 { rightToLeft = true }
                        if inWord {
                            guard i - wordStart < WordCache.maxWordBytes else { return false }
                        } else {
                            fallback = true
                            wordStart = i
                        }
                        mixed = true
                    }
                    if !inWord { count += 1 }
                    inWord = true
                    prev = 0
                    i += length
                }
            }
            let atEnd = i == n
            if count == 0 {
                if atEnd {
                    // Nothing after the last line end (dropped), or no line at all.
                    return lineEnds > 0
                }
                state.lines.append(.init(units: 0, endsParagraph: true, empty: true))
            } else {
                guard mixed
                    ? mixedParagraphLines(s, p, i, words: count, profile: profile, font: font, fontID: fontID, limit: limit,
                                          cache: cache, rightToLeft: rightToLeft, needsRules: needsRules, state: &state)
                    : paragraphLines(s, p, i, words: count, script: latin ? 0 : 4, needsRules: needsRules,
                                     profile: profile, font: font, fontID: fontID, limit: limit, cache: cache,
                                     state: &state) else { return false }
            }
            if atEnd { return true }
            i += s[i] == 0x0D && i + 1 < n && s[i + 1] == 0x0A ? 2 : 1
            lineEnds += 1
        }
    }

    /// The lines of the paragraph [p, e) of `s`, which has `words` words (all checked).
    @inline(__always)
    private func paragraphLines(_ s: UnsafeBufferPointer<UInt8>, _ p: Int, _ e: Int, words: Int, script: UInt8,
                                needsRules: Bool, profile: FaceWordProfile, font: EngineFont, fontID: Int32,
                                limit: Int, cache: WordCache, state: inout WordLineState) -> Bool {
        if needsRules {
            state.glyphs.removeAll(keepingCapacity: true)
            state.starts.removeAll(keepingCapacity: true)
        }
        var substituted = false
        var units = 0
        var started = false
        var previous = WordCache.Entry.invalid
        // The bytes of word k − 1 and of the line so far.
        var previousStart = p, previousEnd = p, lineStart = p, lineEnd = p
        var j = p
        // Word k is looked up at step k, and word k − 1 placed then, knowing the advance of
        // the space before word k (the last word is placed at step `words`).
        for k in 0...words {
            var next: WordCache.Entry? = nil
            var nextStart = j
            if k & 4095 == 4095 && shouldStop() { return false }
            if k < words {
                while s[j] == 0x20 || s[j] == 0x09 { j += 1 }
                let start = j
                nextStart = start
                while j < e && s[j] != 0x20 && s[j] != 0x09 { j += 1 }
                let flags: UInt8 = script | (k > 0 ? 1 : 0) | (k < words - 1 ? 2 : 0)
                let entry = wordEntry(UnsafeBufferPointer(rebasing: s[start..<j]), font: font, fontID: fontID,
                                      flags: flags, cache: cache, table: &state.table, readable: s.count - start)
                guard entry.valid else { return false }
                if entry.substituted { substituted = true }
                if needsRules {
                    // The paragraph's nominal glyphs (one space between words) and where
                    // soft rules may start.
                    if k > 0 { state.glyphs.append(profile.glyph(0x20)); state.starts.append(0) }
                    appendNominalGlyphs(s, start, j, profile: profile, state: &state)
                }
                next = entry
            }
            if k > 0 {
                // Greedy breaking. Pango takes a break after a word when the line up to it
                // fits with this measure: the line shaped again up to the break, its final
                // space included (kerning nothing), less that space's advance in the
                // paragraph's shaping (kerned against the next word). Found by scanning
                // widths against Pango (testBreakThresholdsAgreeWithPango); it is the
                // content width when the space does not kern.
                let w = Int(previous.word)
                let atBreak = next.map { Int(previous.trailSpace) - Int($0.leadSpace) } ?? 0
                var placed = false
                if started {
                    let candidate = units + Int(previous.leadSpace) + w
                    if candidate + atBreak <= limit {
                        units = candidate
                        placed = true
                    } else {
                        state.lines.append(.init(units: units, endsParagraph: false, empty: false,
                                                 start: lineStart, end: lineEnd))
                    }
                }
                if !placed {
                    // The word starts a line: it must fit whole (break-word would cut it).
                    guard w + atBreak <= limit else { return false }
                    units = w
                    started = true
                    lineStart = previousStart
                }
                lineEnd = previousEnd
            }
            if let next { previous = next }
            previousStart = nextStart; previousEnd = j
        }
        state.lines.append(.init(units: units, endsParagraph: true, empty: false, start: lineStart, end: lineEnd))
        if needsRules {
            // Contextual lookups that involve the space (Inter's case-sensitive forms, its
            // × between digits) must change nothing anywhere in the paragraph
            // (loom_rules_change_nothing). Then, with no glyph substituted in any word
            // (each shaped as its nominal glyphs), the paragraph is its nominal glyphs when
            // these lookups run, in Pango's shaping of the whole paragraph as in the shaping
            // of any line of it (less context only makes a rule fail), and the words'
            // advances add up as without them.
            guard !substituted, softLookupsChangeNothing(profile: profile, state: state) else { return false }
        }
        return true
    }
}
