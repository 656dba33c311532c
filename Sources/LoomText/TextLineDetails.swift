import CPango
import LoomLayout

// A text's visible lines in detail (`options.includeText`): laid out by Pango as `measure`
// lays it out when it does not use word advances (the two agree: WordPathTests), then each
// line's characters, range in the string, box, baseline and fonts read off the layout. Run
// only for responses that ask for lines: nothing here is on the measuring path.

extension PangoEngine {
    /// The visible lines of `text` in `container`; nil when it cannot tell (no fonts).
    func lineDetails(_ text: TextAttributes, in container: Size) -> TextLines? {
        budget = nil
        stopped = false
        let length = text.spans.reduce(text.truncationText.utf8.count) { $0 + $1.text.utf8.count }
        defer { releaseLargeScratch(textLength: length) }
        let base = font(for: text.font)
        let spanFonts = text.spans.map { $0.font.map { font(for: $0) } ?? base }
        let spanSpacing = text.spans.map { PangoEngine.sanitize($0.letterSpacing ?? text.letterSpacing) }
        let lineHeight: Double? = text.lineHeight.flatMap { ($0.isFinite && $0 >= 0) ? $0 : nil }
        let lineSpacing = text.lineSpacing.isFinite ? max(0, text.lineSpacing) : 0
        let prepared = TextPreparation.prepare(text.spans, letterSpaced: spanSpacing.contains { $0 != 0 })
        guard prepared.hasLines else { return TextLines(lines: []) }

        let mode = text.truncationMode
        guard let (p, lines, source, visible) = collectLines(text, prepared, base: base, spanFonts: spanFonts, spanSpacing: spanSpacing,
                                                             lineHeight: lineHeight, lineSpacing: lineSpacing, container: container)
        else { return nil }
        guard visible > 0 else { return TextLines(lines: []) }
        let truncated = visible < lines.count

        let fonts = scalarFontsOfLayout(source, prepared)
        let origins = SourceOffsets(text.spans, prepared)
        let directions = findParagraphs(prepared)
        var names: [UnsafeMutableRawPointer: String] = [:]
        func family(_ font: UnsafeMutableRawPointer) -> String {
            if let name = names[font] { return name }
            let desc = pango_font_describe(font.assumingMemoryBound(to: PangoFont.self))
            let name = desc.flatMap { pango_font_description_get_family($0) }.map { String(cString: $0) } ?? ""
            if let desc { pango_font_description_free(desc) }
            names[font] = name
            return name
        }

        var out: [TextLine] = []
        var y = 0.0
        var paragraph = 0
        for k in 0..<visible {
            let line = lines[k]
            while paragraph + 1 < directions.starts.count && directions.starts[paragraph + 1] <= line.start { paragraph += 1 }
            var used: [String] = []
            if line.first >= 0 {
                for j in line.first...line.last where isContent(prepared, j) {
                    if let f = fonts[j] { let name = family(f); if !used.contains(name) { used.append(name) } }
                }
            }
            let location = origins.utf16(at: line.start)
            let end = k + 1 < lines.count ? origins.utf16(at: lines[k + 1].start) : origins.total
            out.append(TextLine(text: shownText(prepared, line.start, line.last + 1), location: location,
                                length: end - location, y: y, width: line.width, height: line.height,
                                baseline: y + lineBoxAbove(p, start: line.start, end: line.end, fonts: fonts),
                                rightToLeft: directions.directions[paragraph] == PANGO_DIRECTION_RTL, fonts: used))
            y += line.height + lineSpacing
        }
        guard truncated else { return TextLines(lines: out) }

        // The last visible line with its truncation text: the width `measure` gives it, and
        // the characters the same rules keep.
        let last = visible - 1
        out[last].width = truncatedLineWidth(text: text, prepared: prepared, lines: lines, lastVisible: last,
                                             base: base, attributes: source, containerWidth: container.width)
        var shown = truncatedLine(text: text, prepared: prepared, lines: lines, lastVisible: last,
                                  base: base, attributes: source, containerWidth: container.width)
        if mode == .head || mode == .middle, !lines[last].endsParagraph {
            // The line stands for the rest of its paragraph.
            var e = last
            while e + 1 < lines.count && !lines[e].endsParagraph { e += 1 }
            let end = e + 1 < lines.count ? origins.utf16(at: lines[e + 1].start) : origins.total
            out[last].length = end - out[last].location
        }
        if mode != .clip, !text.truncationText.isEmpty {
            let name = base.font.map { family(UnsafeMutableRawPointer($0)) } ?? base.resolved.family
            if !out[last].fonts.contains(name) { out[last].fonts.append(name) }
        }
        if shown.isEmpty && mode == .clip { shown = out[last].text }
        out[last].text = shown
        let before = origins.prefix(text, utf16: out[last].location)
        return TextLines(lines: out, truncatedString: before + shown)
    }

    /// The prepared scalars [from, to) without the inserted ones.
    func shownText(_ prepared: PreparedText, _ from: Int, _ to: Int) -> String {
        var s = String.UnicodeScalarView()
        var j = from
        while j < to { if !prepared.inserted[j] { s.append(prepared.scalars[j]) }; j += 1 }
        return String(s)
    }

    /// The font of every scalar, as the layout that measured the text chose it.
    private func scalarFontsOfLayout(_ source: AttributeSource, _ prepared: PreparedText) -> [UnsafeMutableRawPointer?] {
        let n = prepared.count
        if source == .full { return Array(scalarFonts.prefix(n)) }
        var fonts = [UnsafeMutableRawPointer?](repeating: nil, count: n)
        forEachGlyphRun(of: layout) { item, _ in
            let a = Int(item.pointee.offset), b = a + Int(item.pointee.length)
            let s0 = Int(prepared.scalarAtByte[min(a, prepared.utf8.count)])
            let s1 = Int(prepared.scalarAtByte[min(b, prepared.utf8.count)])
            let font = item.pointee.analysis.font.map { UnsafeMutableRawPointer($0) }
            if s0 < s1 { for s in s0..<min(s1, n) { fonts[s] = font } }
        }
        return fonts
    }

    /// The part of the line box of [start, end) above the baseline: the strut and every
    /// inline box on the line, as `lineBoxHeight` adds them up.
    private func lineBoxAbove(_ p: LayoutParameters, start: Int, end: Int, fonts: [UnsafeMutableRawPointer?]) -> Double {
        let prepared = p.prepared
        let n = prepared.count
        var above = p.base.metrics.halfLeadingSplit(lineHeight: p.lineHeight).above
        let spanEnd = (end < n && prepared.scalars[end] == "\n") ? end + 1 : end
        let baseFont = p.base.font.map { UnsafeMutableRawPointer($0) }
        var j = start
        while j < min(spanEnd, n) {
            defer { j += 1 }
            guard !prepared.inserted[j] else { continue }
            let f = p.spanFonts[Int(prepared.span[j])]
            if f !== p.base && f.resolved != p.base.resolved {
                above = max(above, f.metrics.halfLeadingSplit(lineHeight: p.lineHeight).above)
            }
            guard p.lineHeight == nil else { continue }
            let c = p.emoji.isEmpty ? -1 : p.emoji.cluster(at: j)
            if c >= 0 {
                above = max(above, p.emoji.clusters[c].metrics.halfLeadingSplit(lineHeight: nil).above)
            } else if let font = fonts[j], font != baseFont {
                above = max(above, metrics(ofRunFont: font).halfLeadingSplit(lineHeight: nil).above)
            }
        }
        return above
    }
}

/// Where each prepared scalar came from in the text's string, in UTF-16 code units.
/// Preparing only drops characters (collapsed white space, the second half of `\r\n`, a
/// final newline, long runs of marks), turns tabs into spaces and `\r` into `\n`, and
/// inserts break patches: each kept scalar is matched to the first fitting one from there.
struct SourceOffsets {
    private var offsets: [Int]
    let total: Int

    init(_ spans: [TextSpan], _ prepared: PreparedText) {
        var source: [Unicode.Scalar] = []
        for span in spans { source.append(contentsOf: span.text.unicodeScalars) }
        var utf16 = [Int](repeating: 0, count: source.count + 1)
        for (k, s) in source.enumerated() { utf16[k + 1] = utf16[k] + (s.value > 0xFFFF ? 2 : 1) }
        total = utf16[source.count]
        let n = prepared.count
        offsets = [Int](repeating: total, count: n + 1)
        var j = 0
        for i in 0..<n where !prepared.inserted[i] {
            let s = prepared.scalars[i]
            while j < source.count
                    && !(source[j] == s || (s == " " && source[j] == "\t") || (s == "\n" && source[j] == "\r")) { j += 1 }
            offsets[i] = utf16[min(j, source.count)]
            if j < source.count {
                j += source[j] == "\r" && j + 1 < source.count && source[j + 1] == "\n" ? 2 : 1
            }
        }
        // An inserted scalar stands where the next kept one does.
        var i = n - 1
        while i >= 0 { if prepared.inserted[i] { offsets[i] = offsets[i + 1] }; i -= 1 }
    }

    func utf16(at scalar: Int) -> Int { offsets[min(scalar, offsets.count - 1)] }

    /// The string's first `utf16` code units.
    func prefix(_ text: TextAttributes, utf16 count: Int) -> String {
        let units = Array(text.string.utf16.prefix(count))
        return String(decoding: units, as: UTF16.self)
    }
}
