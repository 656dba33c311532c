import CPango
import LoomLayout

// What a truncated text's last visible line shows: the graphemes that `truncatedLineWidth`
// (Truncation.swift) keeps, by the same rules, with the truncation text at the tail, head
// or middle. Only for `options.includeText`.

extension PangoEngine {
    /// A grapheme of a line's content: its scalars [start, end) and its CSS width.
    private struct Grapheme { var start: Int; var end: Int; var width: Double; var opensLine: Bool }

    private func graphemes(_ line: LineInfo, cursor: UnsafeBufferPointer<PangoLogAttr>, into out: inout [Grapheme]) {
        guard line.first >= 0 else { return }
        var acc = 0
        var start = line.first
        for j in line.first...line.last {
            let boundary = j < cursor.count && cursor[j].is_cursor_position != 0
            if boundary && j > line.first {
                out.append(Grapheme(start: start, end: j, width: Double(acc) / Double(LOOM_PANGO_SCALE),
                                    opensLine: start == line.first))
                acc = 0
                start = j
            }
            acc &+= clusterWidth[j]
        }
        out.append(Grapheme(start: start, end: line.last + 1, width: Double(acc) / Double(LOOM_PANGO_SCALE),
                            opensLine: start == line.first))
    }

    /// The characters of graphemes `range`, a space where they go from one line to the next.
    private func text(of list: [Grapheme], _ range: Range<Int>, _ prepared: PreparedText) -> String {
        var s = ""
        for k in range {
            if k > range.lowerBound && list[k].opensLine { s += " " }
            s += shownText(prepared, list[k].start, list[k].end)
        }
        return s
    }

    /// The last visible line as drawn, truncation text included (none for `clip`).
    func truncatedLine(text: TextAttributes, prepared: PreparedText, lines: [LineInfo], lastVisible: Int,
                       base: EngineFont, attributes: AttributeSource, containerWidth: Double) -> String {
        let line = lines[lastVisible]
        let whole = shownText(prepared, line.start, line.last + 1)
        let mode = text.truncationMode
        if mode == .clip { return whole }
        let token = text.truncationText
        let available = containerWidth.isNaN ? Double.infinity : max(0, containerWidth)
        let tokenWidth = self.tokenWidth(token, font: base, spacing: PangoEngine.sanitize(text.letterSpacing))
        let eps = 1e-9
        return withLogAttributes(attributes) { cursor -> String in
            guard cursor.baseAddress != nil else { return whole + token }
            if (mode == .head || mode == .middle) && !line.endsParagraph {
                var list: [Grapheme] = []
                var i = lastVisible
                while i < lines.count {
                    graphemes(lines[i], cursor: cursor, into: &list)
                    if lines[i].endsParagraph { break }
                    i += 1
                }
                if list.isEmpty { return token }
                let room = available - tokenWidth
                if mode == .head {
                    var acc = 0.0, keep = 1
                    for (k, g) in list.reversed().enumerated() {
                        acc += g.width
                        if acc <= room + eps { keep = k + 1 } else { break }
                    }
                    return token + self.text(of: list, (list.count - keep)..<list.count, prepared)
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
                return self.text(of: list, 0..<front, prepared) + token
                    + self.text(of: list, (back + 1)..<list.count, prepared)
            }
            if line.first < 0 { return token }
            if line.width + tokenWidth <= available + eps { return whole + token }
            var list: [Grapheme] = []
            graphemes(line, cursor: cursor, into: &list)
            guard !list.isEmpty else { return token }
            var acc = 0.0, keep = 1
            for (k, g) in list.enumerated() {
                acc += g.width
                if acc + tokenWidth <= available + eps { keep = k + 1 } else if k > 0 && g.width >= 0 { break }
            }
            return self.text(of: list, 0..<keep, prepared) + token
        }
    }
}
