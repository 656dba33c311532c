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

    /// CSS widths of the graphemes of a line's content (first...last), letter spacing
    /// included, appended to `widths`.
    private func appendGraphemeWidths(_ line: LineInfo, cursor: UnsafeBufferPointer<PangoLogAttr>, to widths: inout [Double]) {
        guard line.first >= 0 else { return }
        var acc = 0
        var started = false
        for j in line.first...line.last {
            let boundary = j < cursor.count && cursor[j].is_cursor_position != 0
            if boundary && started {
                widths.append(Double(acc) / Double(LOOM_PANGO_SCALE))
                acc = 0
            }
            started = true
            acc &+= clusterWidth[j]
        }
        if started { widths.append(Double(acc) / Double(LOOM_PANGO_SCALE)) }
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
        var node = pango_layout_get_lines_readonly(tokenLayout)
        while let current = node {
            node = current.pointee.next
            guard let line = current.pointee.data?.assumingMemoryBound(to: PangoLayoutLine.self) else { continue }
            var run = line.pointee.runs
            while let r = run {
                run = r.pointee.next
                guard let glyphs = r.pointee.data?.assumingMemoryBound(to: PangoGlyphItem.self).pointee.glyphs else { continue }
                for g in 0..<Int(glyphs.pointee.num_glyphs) { units &+= Int(glyphs.pointee.glyphs[g].geometry.width) }
            }
        }
        let width = Double(units) / Double(LOOM_PANGO_SCALE)
        if let key { tokenWidths[key] = width }
        if !cacheable { pango_layout_set_text(tokenLayout, "", 0) }
        return width
    }

    func truncatedLineWidth(text: TextAttributes, prepared: PreparedText, lines: [LineInfo], lastVisible: Int,
                            base: EngineFont, attributes: AttributeSource, containerWidth: Double) -> Double {
        let line = lines[lastVisible]
        let mode = text.truncationMode
        if mode == .clip { return line.width }

        let available = containerWidth.isNaN ? Double.infinity : max(0, containerWidth)
        let token = tokenWidth(text.truncationText, font: base, spacing: PangoEngine.sanitize(text.letterSpacing))
        let eps = 1e-9
        return withLogAttributes(attributes) { cursor -> Double in
            guard cursor.baseAddress != nil else { return line.width + token }

            // Head and middle truncation work on the rest of the paragraph from this line on;
            // when the paragraph ends on this line they behave like tail truncation.
            if (mode == .head || mode == .middle) && !line.endsParagraph {
                var graphemes: [Double] = []
                var i = lastVisible
                while i < lines.count {
                    appendGraphemeWidths(lines[i], cursor: cursor, to: &graphemes)
                    if lines[i].endsParagraph { break }
                    i += 1
                }
                if graphemes.isEmpty { return token }
                let room = available - token
                if mode == .head {
                    var acc = 0.0, best = graphemes[graphemes.count - 1]
                    for w in graphemes.reversed() {
                        acc += w
                        if acc <= room + eps { best = acc } else { break }
                    }
                    return best + token
                } else {
                    var front = 0, back = graphemes.count - 1
                    var acc = graphemes[0]
                    front = 1
                    var takeBack = true
                    var blocked = false
                    while front <= back {
                        let w = takeBack ? graphemes[back] : graphemes[front]
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
                    return acc + token
                }
            }

            // Tail (and wordWrap / charWrap, which truncate at the tail at a line limit).
            if line.first < 0 { return token }
            if line.width + token <= available + eps { return line.width + token }
            var graphemes: [Double] = []
            appendGraphemeWidths(line, cursor: cursor, to: &graphemes)
            guard !graphemes.isEmpty else { return token }
            var acc = 0.0
            var best = graphemes[0]
            for (index, w) in graphemes.enumerated() {
                acc += w
                if acc + token <= available + eps { best = acc } else if index > 0 && w >= 0 { break }
            }
            return best + token
        }
    }
}
