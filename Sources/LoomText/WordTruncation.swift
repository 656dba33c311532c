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
// pieces starts or ends there: Pango shapes each piece alone. Paragraphs with right-to-left
// letters go to Pango (the direction of the paragraph decides the level of the neutrals,
// and so the items).

extension PangoEngine {
    /// The width of the last visible line `line` of a truncated text (its UTF-8 bytes `s`) with
    /// the truncation text fitted to it as Pango's path fits it, or nil when the text needs Pango.
    func fittedLastLineWidth(_ text: TextAttributes, _ s: UnsafeBufferPointer<UInt8>, _ line: WordScratch.Line,
                             base: EngineFont, containerWidth: Double) -> Double? {
        let mode = text.truncationMode
        guard mode != .clip, mode != .charWrap, mode != .head && mode != .middle || line.endsParagraph,
              !line.empty, line.start >= 0, line.end > line.start, line.end <= s.count else { return nil }
        if PangoEngine.hasRightToLeftLetter(s) { return nil }
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
        let fitted = LineInfo(start: 0, end: last + 1, first: 0, last: last, width: Double(units) / Double(LOOM_PANGO_SCALE),
                              height: lines[0].height, endsParagraph: line.endsParagraph)
        return truncation(text: text, lines: [fitted], lastVisible: 0, base: base, attributes: source,
                          containerWidth: containerWidth).width
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
