import CPango
import LoomLayout

// The word path (WordShaping.swift) for a truncated text whose truncation text does not fit
// after its last visible line: the line keeps its longest grapheme prefix that fits with
// it (Truncation.swift), which needs the advances of the line's clusters.
//
// A line's advances are those of its words shaped apart (the word path's premise), so the
// line's words laid out alone by Pango, with the space and the word after it (against which
// its last glyph is kerned in the paragraph), give them: one short layout instead of the
// whole text's. Its width up to the line's end must be the line's width on the word path,
// or the text goes to Pango. A line that starts or ends inside a fallback word cut into
// pieces starts or ends there: Pango shapes each piece alone. In a paragraph with
// right-to-left letters the direction of the paragraph decides the level of the neutrals,
// and so the items: the slice is laid out with its paragraph's direction (as Pango's
// automatic direction gives it: the first strong letter), not its own.

extension PangoEngine {
    /// The width of the last visible line `line` of a truncated text (its UTF-8 bytes `s`) with
    /// the truncation text fitted to it as Pango's path fits it, or nil when the text needs Pango.
    func fittedLastLineWidth(_ text: TextAttributes, _ s: UnsafeBufferPointer<UInt8>, _ line: WordScratch.Line,
                             base: EngineFont, containerWidth: Double) -> Double? {
        let mode = text.truncationMode
        guard mode != .clip, mode != .charWrap, mode != .head && mode != .middle || line.endsParagraph,
              !line.empty, line.start >= 0, line.end > line.start, line.end <= s.count else { return nil }
        let rightToLeft = PangoEngine.hasRightToLeftLetter(s)
        if !rightToLeft, let width = fittedFromLastWord(text, s, line, base: base, containerWidth: containerWidth) {
            lastLinesFittedFromWords += 1
            return width
        }
        var direction: PangoDirection?
        if rightToLeft {
            guard let d = PangoEngine.paragraphDirection(s, around: line.start, line.end), strategy == .automatic
            else { return nil }
            direction = d
        }
        // The line, and after a space the next word (a line that ends inside a fallback word
        // ends with the part Pango shaped alone: the slice ends there too).
        var e = line.end
        if !line.endsParagraph {
            var j = e
            while j < s.count && (s[j] == 0x20 || s[j] == 0x09) { j += 1 }
            if j > e {
                while j < s.count && s[j] != 0x20 && s[j] != 0x09 && s[j] != 0x0A && s[j] != 0x0D { j += 1 }
                e = j
            }
        }
        // The line's content in scalars, its spaces collapsed (words are separated by one).
        var content = 0
        var i = line.start, inSpace = false
        while i < line.end {
            let b = s[i]
            if b == 0x20 || b == 0x09 {
                if !inSpace { content += 1 }
                inSpace = true
            } else {
                inSpace = false
                if b & 0xC0 != 0x80 { content += 1 }
            }
            i += 1
        }
        var slice = text
        slice.spans = [TextSpan(text: String(decoding: UnsafeBufferPointer(rebasing: s[line.start..<e]), as: UTF8.self))]
        slice.maximumNumberOfLines = 0
        let prepared = TextPreparation.prepare(slice.spans)
        guard prepared.hasLines else { return nil }
        // A paragraph's direction holds for one layout (`layout`, not windows).
        guard direction == nil || PangoEngine.isShort(prepared) else { return nil }
        return withLayoutDirection(direction) {
            fitted(text, slice, prepared, line, content: content, base: base, containerWidth: containerWidth)
        }
    }

    /// `fittedLastLineWidth` without a layout, for a line whose last word's graphemes have
    /// advances the word path knows: a fallback word of Han, kana or Hangul letters, or the
    /// piece of one cut there (an item shaped alone, one glyph cluster and one grapheme a
    /// letter: CJK lines are full to the edge, so the truncation text seldom fits after them),
    /// an emoji word (one cluster, as wide as the word path took it), or a word of ASCII
    /// letters after a space, each its own nominal glyph (shaped between its spaces). The rest
    /// of the line is kept whole, at its width on the word path (line.units less the word's).
    /// The rule is Truncation.swift's for the tail: the longest prefix that fits with the
    /// truncation text, at least one grapheme. nil when that rule must see more of the line:
    /// letter spacing, another last word, a fit that reaches before the word, or an exact fit
    /// (whose excess is read from the layout's glyphs, EllipsisTies.swift).
    private func fittedFromLastWord(_ text: TextAttributes, _ s: UnsafeBufferPointer<UInt8>, _ line: WordScratch.Line,
                                    base: EngineFont, containerWidth: Double) -> Double? {
        guard text.letterSpacing == 0 else { return nil }
        // The line's last word (or piece): back from its end to a space or the line's start.
        var start = line.end
        while start > line.start && s[start - 1] != 0x20 && s[start - 1] != 0x09 { start -= 1 }
        let word = UnsafeBufferPointer(rebasing: s[start..<line.end])
        let alone = start == line.start
        // What follows the word in its line's layout: nothing at the paragraph's end, else a
        // space before the next line's word, or (nil) the rest of a word cut there.
        let next = line.end < s.count ? s[line.end] : 0x0A
        let trailed: Bool? = line.endsParagraph ? false : next == 0x20 || next == 0x09 ? true : nil
        guard let advances = graphemeAdvances(word, base: base, spaced: !alone, trailed: trailed) else { return nil }
        let wordUnits = advances.reduce(0, +)
        let before = line.units - wordUnits
        guard alone ? before == 0 : before >= 0 else { return nil }
        let scale = Double(LOOM_PANGO_SCALE)
        let available = containerWidth.isNaN ? Double.infinity : max(0, containerWidth)
        let token = tokenWidth(text.truncationText, font: base, spacing: 0)
        let eps = 1e-9
        // Every prefix of the line before the word fits with the truncation text and is no
        // exact fit: the line is kept up to the word.
        var acc = Double(before) / scale
        guard alone || acc + 1.0 / 64 + token <= available else { return nil }
        var best = alone ? Double(advances[0]) / scale : acc
        for (k, advance) in advances.enumerated() {
            acc += Double(advance) / scale
            if acc + token <= available + eps {
                if PangoEngine.fitsExactly(acc, token: token, available: available) { return nil }
                best = acc
            } else if !alone || k > 0 {
                break
            }
        }
        return best + token
    }

    /// The advances (Pango units) of the graphemes of `word` as a layout of its line has
    /// them, for the words `fittedFromLastWord` takes (`spaced`: a space before it on its
    /// line; `trailed`: one after it, nil: the rest of a word cut at the line's end); nil for
    /// others.
    private func graphemeAdvances(_ word: UnsafeBufferPointer<UInt8>, base: EngineFont, spaced: Bool,
                                  trailed: Bool?) -> [Int]? {
        guard !word.isEmpty, word.count <= WordCache.maxWordBytes else { return nil }
        if PangoEngine.isCJKLetters(word) {
            guard let font = fallbackWordFont(word, base: base), let clusters = wordClusters(word, font: font) else { return nil }
            for k in clusters.advance.indices where !clusters.clusterStart[k] || clusters.advance[k] < 0 { return nil }
            return clusters.advance
        }
        if word.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A }) {
            guard spaced, let trailed else { return nil }
            return latinAdvances(word, base: base, trailed: trailed)
        }
        let emoji = shapeEmojiWord(word, font: base)
        return emoji.valid && emoji.word >= 0 ? [Int(emoji.word)] : nil
    }

    /// A word of ASCII letters in the text's font after a space (and before one when
    /// `trailed`), shaped as the word path shapes it (the spaces kern against its ends):
    /// each letter's advance, when each is its own nominal glyph (no ligature, no contextual
    /// form), else nil.
    private func latinAdvances(_ word: UnsafeBufferPointer<UInt8>, base: EngineFont, trailed: Bool) -> [Int]? {
        guard let pangoFont = base.font, let profile = base.cachedProfile else { return nil }
        let glyphs = shapeBetweenSpaces(word, pangoFont, lead: true, trail: trailed, script: PANGO_SCRIPT_LATIN)
        guard Int(glyphs.pointee.num_glyphs) == word.count + (trailed ? 2 : 1) else { return nil }
        var advances: [Int] = []
        advances.reserveCapacity(word.count)
        for k in 0..<word.count {
            let g = k + 1
            let info = glyphs.pointee.glyphs[g]
            guard Int(glyphs.pointee.log_clusters[g]) == g, info.glyph == profile.glyph(UInt32(word[k])),
                  info.geometry.width >= 0 else { return nil }
            advances.append(Int(info.geometry.width))
        }
        return advances
    }

    /// Whether the UTF-8 word holds only Han ideographs, kana (ー among them) and Hangul
    /// syllables: letters that are each one grapheme.
    static func isCJKLetters(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < word.count {
            guard word[i] >= 0xE0 && word[i] < 0xF0, i + 2 < word.count else { return false }
            let (v, length) = PangoEngine.decodeUTF8(word, i)
            switch v {
            case 0x3041...0x3096, 0x30A1...0x30FA, 0x30FC, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3: break
            default: return false
            }
            i += length
        }
        return true
    }

    /// `body` with `layout` laid out in `direction` (nil: its own, automatic), until `body`
    /// has read what it needs of it (the truncation reads its attributes).
    private func withLayoutDirection<T>(_ direction: PangoDirection?, _ body: () -> T) -> T {
        guard let direction else { return body() }
        let saved = pango_context_get_base_dir(context)
        pango_layout_set_auto_dir(layout, 0)
        pango_context_set_base_dir(context, direction)
        defer {
            pango_layout_set_auto_dir(layout, 1)
            pango_context_set_base_dir(context, saved)
        }
        return body()
    }

    /// `fittedLastLineWidth` once the slice (`slice`, prepared) is chosen: `content` is the
    /// number of the line's scalars in it.
    private func fitted(_ text: TextAttributes, _ slice: TextAttributes, _ prepared: PreparedText,
                        _ line: WordScratch.Line, content: Int, base: EngineFont, containerWidth: Double) -> Double? {
        // The line's last content scalar in the prepared slice (which may hold inserted ones).
        var last = -1, seen = 0
        for k in 0..<prepared.count where !prepared.inserted[k] {
            seen += 1
            if seen == content { last = k; break }
        }
        guard last >= 0,
              let (_, lines, source, _) = collectLines(slice, prepared, base: base, spanFonts: [base], spanSpacing: [0],
                                                       lineHeight: nil, lineSpacing: 0,
                                                       container: Size(width: .infinity, height: .infinity)),
              source == .layout, lines.count == 1, lines[0].first == 0, last <= lines[0].last,
              clusterWidth.count > last else { return nil }
        var units = 0
        for k in 0...last { units &+= clusterWidth[k] }
        guard units == line.units else { return nil }
        let lastLine = LineInfo(start: 0, end: last + 1, first: 0, last: last, width: Double(units) / Double(LOOM_PANGO_SCALE),
                              height: lines[0].height, endsParagraph: line.endsParagraph)
        return truncation(text: text, prepared: prepared, lines: [lastLine], lastVisible: 0, base: base,
                          attributes: source, containerWidth: containerWidth).width
    }

    /// The base direction Pango gives the paragraph of the UTF-8 text `s` that holds the
    /// bytes [start, end): its first strong letter's. nil when it has none (Pango would take
    /// the paragraph before's) or the text has separators other than line feeds and
    /// carriage returns (U+2029, U+0085: paragraphs the search here would not see).
    static func paragraphDirection(_ s: UnsafeBufferPointer<UInt8>, around start: Int, _ end: Int) -> PangoDirection? {
        for i in 0..<s.count where (s[i] == 0xE2 && i + 2 < s.count && s[i + 1] == 0x80 && s[i + 2] == 0xA9)
            || (s[i] == 0xC2 && i + 1 < s.count && s[i + 1] == 0x85) { return nil }
        var from = start, to = end
        while from > 0 && s[from - 1] != 0x0A && s[from - 1] != 0x0D { from -= 1 }
        while to < s.count && s[to] != 0x0A && s[to] != 0x0D { to += 1 }
        let direction = s.withMemoryRebound(to: CChar.self) { loom_find_base_dir($0.baseAddress! + from, Int32(to - from)) }
        return direction == PANGO_DIRECTION_LTR || direction == PANGO_DIRECTION_RTL ? direction : nil
    }

    /// Whether the UTF-8 text has a letter the word path takes as right to left (U+0590–U+08FF).
    static func hasRightToLeftLetter(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < s.count {
            let b = s[i]
            if b >= 0xD6 && b <= 0xDF { return true }
            if b == 0xE0 && i + 1 < s.count && s[i + 1] >= 0xA0 && s[i + 1] <= 0xA3 { return true }
            i += 1
        }
        return false
    }
}
