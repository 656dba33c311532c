import CPango
import LoomLayout

// The last visible line of a truncated text, with its truncation text (the rules are in
// PangoTextMeasurer's documentation).

extension PangoEngine {
    /// `body` with the text's log attributes (one per scalar, plus one).
    func withLogAttributes<T>(_ source: AttributeSource, _ body: (UnsafeBufferPointer<PangoLogAttr>) -> T) -> T {
        switch source {
        case .full:
            return fullAttrs.withUnsafeBufferPointer(body)
        case .layout:
            var count: Int32 = 0
            let attrs = pango_layout_get_log_attrs_readonly(layout, &count)
            return body(UnsafeBufferPointer(start: attrs, count: attrs == nil ? 0 : Int(count)))
        }
    }

    /// The graphemes of a line's content (first...last), each with its scalars and its CSS
    /// width (letter spacing included), appended to `out`.
    private func appendGraphemes(_ line: LineInfo, cursor: UnsafeBufferPointer<PangoLogAttr>, to out: inout [TruncationChoice.Grapheme]) {
        guard line.first >= 0 else { return }
        var acc = 0
        var start = line.first
        for j in line.first...line.last {
            let boundary = j < cursor.count && cursor[j].is_cursor_position != 0
            if boundary && j > line.first {
                out.append(.init(start: start, end: j, width: Double(acc) / Double(LOOM_PANGO_SCALE), opensLine: start == line.first))
                acc = 0
                start = j
            }
            acc &+= clusterWidth[j]
        }
        out.append(.init(start: start, end: line.last + 1, width: Double(acc) / Double(LOOM_PANGO_SCALE), opensLine: start == line.first))
    }

    /// Width of the truncation token in the text's own font. Chromium draws its ellipsis
    /// without letter spacing, both when fitting it and in the line's width (measured
    /// against headless Chromium 156 with scripts/compare-text-with-chromium.py), so
    /// `spacing` is not added. Short tokens are remembered per engine (a long one, which a
    /// client may send, is measured each time: the engine keeps nothing of its size).
    func tokenWidth(_ token: String, font: EngineFont, spacing _: Double) -> Double {
        if token.isEmpty { return 0 }
        let cacheable = token.utf8.count <= PangoEngine.maxCachedTokenBytes
        let key = cacheable ? TokenKey(text: token, font: font.resolved) : nil
        if let key, let cached = tokenWidths[key] { return cached }
        pango_layout_set_font_description(tokenLayout, font.description)
        pango_layout_set_width(tokenLayout, -1)
        pango_layout_set_single_paragraph_mode(tokenLayout, 1)
        var bytes = Array(token.utf8)
        bytes.withUnsafeMutableBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                pango_layout_set_text(tokenLayout, c.baseAddress, Int32(c.count))
            }
        }
        // The logical width, added up here in 64 bits (Pango's own extents are 32-bit).
        var units = 0
        forEachGlyphRun(of: tokenLayout) { _, glyphs in
            for g in 0..<Int(glyphs.pointee.num_glyphs) { units &+= Int(glyphs.pointee.glyphs[g].geometry.width) }
        }
        let width = Double(units) / Double(LOOM_PANGO_SCALE)
        if let key { tokenWidths[key] = width }
        if !cacheable { pango_layout_set_text(tokenLayout, "", 0) }
        return width
    }

    /// Whether `content` (whole 64ths of a pixel) and the truncation text `token` fill
    /// `available` so exactly that Chromium's slightly wider advances may not fit
    /// (EllipsisTies.swift: the line's glyphs decide).
    static func fitsExactly(_ content: Double, token: Double, available: Double) -> Bool {
        let units = content * 64
        return abs(units - units.rounded()) < 1e-6 && content + 1.0 / 64 + token > available + 1e-9
    }

    /// The width of the last visible line of a truncated text, truncation text included.
    func truncatedLineWidth(text: TextAttributes, prepared: PreparedText, lines: [LineInfo], lastVisible: Int,
                            base: EngineFont, attributes: AttributeSource, containerWidth: Double) -> Double {
        truncation(text: text, prepared: prepared, lines: lines, lastVisible: lastVisible, base: base,
                   attributes: attributes, containerWidth: containerWidth).width
    }

    /// What the last visible line of a truncated text keeps (the one place the rules are:
    /// `truncatedLineWidth` and, for `includeText`, `truncatedLine` both read it).
    func truncation(text: TextAttributes, prepared: PreparedText, lines: [LineInfo], lastVisible: Int, base: EngineFont,
                    attributes: AttributeSource, containerWidth: Double) -> TruncationChoice {
        let line = lines[lastVisible]
        let mode = text.truncationMode
        if mode == .clip { return TruncationChoice(kept: .line(token: false), width: line.width) }

        let available = containerWidth.isNaN ? Double.infinity : max(0, containerWidth)
        let token = tokenWidth(text.truncationText, font: base, spacing: PangoEngine.sanitize(text.letterSpacing))
        let eps = 1e-9
        return withLogAttributes(attributes) { cursor -> TruncationChoice in
            guard cursor.baseAddress != nil else { return TruncationChoice(kept: .line(token: true), width: line.width + token) }
            var list: [TruncationChoice.Grapheme] = []

            // Head and middle truncation work on the rest of the paragraph from this line on;
            // when the paragraph ends on this line they behave like tail truncation.
            if (mode == .head || mode == .middle) && !line.endsParagraph {
                var i = lastVisible
                while i < lines.count {
                    appendGraphemes(lines[i], cursor: cursor, to: &list)
                    if lines[i].endsParagraph { break }
                    i += 1
                }
                if list.isEmpty { return TruncationChoice(kept: .none, width: token) }
                let room = available - token
                if mode == .head {
                    var acc = 0.0, best = list[list.count - 1].width, keep = 1
                    for (k, g) in list.reversed().enumerated() {
                        acc += g.width
                        if acc <= room + eps { best = acc; keep = k + 1 } else { break }
                    }
                    return TruncationChoice(kept: .last(keep), width: best + token, graphemes: list)
                }
                var front = 1, back = list.count - 1
                var acc = list[0].width
                var takeBack = true, blocked = false
                while front <= back {
                    let w = takeBack ? list[back].width : list[front].width
                    if acc + w <= room + eps {
                        acc += w
                        if takeBack { back -= 1 } else { front += 1 }
                        blocked = false
                    } else if blocked {
                        break
                    } else {
                        blocked = true
                    }
                    takeBack.toggle()
                }
                return TruncationChoice(kept: .ends(front: front, back: back + 1), width: acc + token, graphemes: list)
            }

            // Tail (and wordWrap / charWrap, which truncate at the tail at a line limit).
            // An exact fit fails where Chromium's advances are wider (EllipsisTies.swift); the
            // text's own layout holds the glyphs to tell. Their excess (`lineExcess`) is read
            // once, at the first exact fit; `keptExcess` sums it over the graphemes kept so far.
            var lineExcess: [Double]? = nil
            func isExactFit(_ content: Double) -> Bool {
                attributes == .layout && PangoEngine.fitsExactly(content, token: token, available: available)
            }
            func excess(of g: TruncationChoice.Grapheme) -> Double {
                if lineExcess == nil { lineExcess = browserExcess(first: line.first, last: line.last, prepared) }
                var sum = 0.0
                for s in g.start..<min(g.end, line.last + 1) { sum += lineExcess![s - line.first] }
                return sum
            }
            if line.first < 0 { return TruncationChoice(kept: .none, width: token) }
            if line.width + token <= available + eps, !isExactFit(line.width)
                || excess(of: .init(start: line.first, end: line.last + 1, width: line.width, opensLine: true)) <= 0 {
                return TruncationChoice(kept: .line(token: true), width: line.width + token)
            }
            appendGraphemes(line, cursor: cursor, to: &list)
            guard !list.isEmpty else { return TruncationChoice(kept: .none, width: token) }
            // Kept from the paragraph's start edge as drawn (VisualTruncation.swift).
            let order = visualKeepOrder(list, prepared)
            var acc = 0.0, best = list[order?[0] ?? 0].width, keep = 1
            var keptExcess = 0.0, counted = 0
            for k in list.indices {
                let g = list[order?[k] ?? k]
                acc += g.width
                var fits = acc + token <= available + eps
                if fits && isExactFit(acc) {
                    while counted <= k { keptExcess += excess(of: list[order?[counted] ?? counted]); counted += 1 }
                    fits = keptExcess <= 0
                }
                if fits { best = acc; keep = k + 1 } else if k > 0 && g.width >= 0 { break }
            }
            return TruncationChoice(kept: .first(keep), width: best + token, graphemes: list, keepOrder: order ?? [])
        }
    }
}

/// What a truncated text's last visible line keeps of its content, and its width with the
/// truncation text.
struct TruncationChoice {
    /// A grapheme of the content: its scalars [start, end), its CSS width, and whether it is
    /// the first of its line.
    struct Grapheme { var start: Int; var end: Int; var width: Double; var opensLine: Bool }
    enum Kept {
        /// The whole line, followed by the truncation text unless `token` is false (`clip`).
        case line(token: Bool)
        /// Only the truncation text.
        case none
        /// The first n graphemes in `keepOrder` (the line as drawn from its start edge: in a
        /// line with right-to-left text not the logical order), then the truncation text (tail).
        case first(Int)
        /// The truncation text, then the last n graphemes (head).
        case last(Int)
        /// `graphemes[..<front]`, the truncation text, `graphemes[back...]` (middle).
        case ends(front: Int, back: Int)
    }
    var kept: Kept
    /// The line's width, truncation text included.
    var width: Double
    /// The graphemes `kept` counts in (empty for `line` and `none`).
    var graphemes: [Grapheme] = []
    /// The order in which `first(n)` keeps `graphemes` (indices); empty: their own order.
    var keepOrder: [Int] = []

    /// The indices of the graphemes kept by `first(n)`, in logical order.
    func firstKept(_ n: Int) -> [Int] {
        keepOrder.isEmpty ? Array(0..<n) : keepOrder.prefix(n).sorted()
    }
}
