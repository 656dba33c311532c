import CPango
import LoomLayout

// Lines broken here rather than by Pango, for widths Pango cannot take and paragraphs no
// window settles (SegmentedLayout.swift).

extension PangoEngine {
    // MARK: Greedy lines

    /// Lines of the scalars [from, to) (`to`: a paragraph's end, `from` a line start in it),
    /// broken greedily at the unlimited-width layout's break opportunities (at characters
    /// when no word fits, as `overflow-wrap: break-word`) over its advances, `limit` in
    /// Pango units; false when the budget stopped it. For widths Pango cannot take: a line
    /// there is hundreds of thousands of pixels wide, and its width is the sum of its
    /// advances as shaped in the whole paragraph (Pango's reshaping at the break can change
    /// it by a kerning pair).
    func greedyLines(_ p: LayoutParameters, from: Int, to: Int, limit: Int, into collector: inout LineCollector) -> Bool {
        let prepared = p.prepared
        let charWrap = p.text.truncationMode == .charWrap
        if from >= to {
            // An empty paragraph: one empty line.
            let height = lineBoxHeight(p, start: from, end: from, runFonts: [])
            collector.append(RawLine(start: from, end: from, first: -1, last: -1, units: 0, height: height), prepared)
            return true
        }
        var a = from
        var fonts: [UnsafeMutableRawPointer] = []
        while a < to {
            if shouldStop(every: 256) { return false }
            if collector.isComplete() { return true }
            var i = a, sum = 0, content = 0
            var word = -1, char = -1, firstChar = -1
            while i < to {
                sum &+= clusterWidth[i]
                if isContent(prepared, i) { content = sum }
                i += 1
                let atEnd = i == to
                let attr = fullAttrs[i]
                let wordBreak = atEnd || (charWrap ? attr.is_char_break : attr.is_line_break) != 0
                let charBreak = atEnd || attr.is_char_break != 0
                if content <= limit {
                    if wordBreak { word = i }
                    if charBreak { char = i }
                } else {
                    if charBreak && firstChar < 0 { firstChar = i }
                    if word >= 0 || char >= 0 || firstChar >= 0 { break }
                }
            }
            var b = word >= 0 ? word : (char >= 0 ? char : (firstChar >= 0 ? firstChar : to))
            // Spaces at a break hang at the end of the line.
            while b < to && isCollapsibleSpace(prepared.scalars[b]) { b += 1 }
            var first = -1, last = -1, units = 0, running = 0, beforeFirst = 0
            fonts.removeAll(keepingCapacity: true)
            for j in a..<b {
                if isContent(prepared, j) {
                    if first < 0 { first = j; beforeFirst = running }
                    last = j
                    units = running &+ clusterWidth[j] &- beforeFirst
                }
                running &+= clusterWidth[j]
                if p.lineHeight == nil, !prepared.inserted[j], let font = scalarFonts[j], !fonts.contains(font) {
                    fonts.append(font)
                }
            }
            let height = lineBoxHeight(p, start: a, end: b, runFonts: fonts)
            collector.append(RawLine(start: a, end: b, first: first, last: last, units: units, height: height), prepared)
            a = b
        }
        return true
    }
}
