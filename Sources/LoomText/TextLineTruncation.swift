import CPango
import LoomLayout

// What a truncated text's last visible line shows: the graphemes that `truncation(...)`
// (Truncation.swift) keeps, the rules `truncatedLineWidth` measures by, with the truncation
// text at the tail, head or middle. Only for `options.includeText`.

extension PangoEngine {
    /// The characters of graphemes `range`, a space where they go from one line to the next.
    private func text(of list: [TruncationChoice.Grapheme], _ indices: some Collection<Int>, _ prepared: PreparedText) -> String {
        var s = ""
        for k in indices {
            if k != indices.first && list[k].opensLine { s += " " }
            s += shownText(prepared, list[k].start, list[k].end)
        }
        return s
    }

    /// The last visible line as drawn, truncation text included (none for `clip`).
    func truncatedLine(text: TextAttributes, prepared: PreparedText, lines: [LineInfo], lastVisible: Int,
                       base: EngineFont, attributes: AttributeSource, containerWidth: Double) -> String {
        let line = lines[lastVisible]
        let token = text.truncationText
        let choice = truncation(text: text, prepared: prepared, lines: lines, lastVisible: lastVisible, base: base,
                                attributes: attributes, containerWidth: containerWidth)
        let list = choice.graphemes
        switch choice.kept {
        case .line(let withToken):
            let whole = shownText(prepared, line.start, line.last + 1)
            return withToken ? whole + token : whole
        case .none: return token
        case .first(let n): return self.text(of: list, choice.firstKept(n), prepared) + token
        case .last(let n): return token + self.text(of: list, (list.count - n)..<list.count, prepared)
        case .ends(let front, let back):
            return self.text(of: list, 0..<front, prepared) + token + self.text(of: list, back..<list.count, prepared)
        }
    }
}
