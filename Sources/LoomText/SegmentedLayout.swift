import CPango
import LoomLayout

// Long texts, laid out in windows.
//
// Pango's line breaker costs, for every line it breaks inside an item, time proportional
// to the rest of the item: it adds up the widths of the rest, and in a word with no break
// opportunity it walks (and shapes) on to the word's end before it falls back to breaking
// between characters. A 100 000-character word at a tiny width is 100 000 lines of 100 000
// characters each. Its itemizer counts, for every paragraph, the characters from the text's
// start. And it adds widths in 32-bit integers of 1/1024 px, which overflow past 2 097 152
// px (210 characters 10 000 px apart): then it keeps the whole paragraph on one line.
//
// So a long text (PangoLines.swift: `isShort`) is laid out in pieces, every line still
// Pango's own:
// 1. The whole text at unlimited width, in groups of at most 64 paragraphs: its log
//    attributes, its items (font, bidi level, script, language per scalar), its advances.
//    When every paragraph fits the width, that is the answer.
// 2. From each line start `f` on, a window: the text from `f` to some `e`, laid out by Pango
//    at the container width. Pango's decisions for a line depend on the text from its start
//    to a little past its end (its search stops once it is a "safe distance", three average
//    character widths, past the width), so the window's lines are the whole text's lines
//    as long as they end well before `e`: a line is kept when the text from its start to
//    the last kept line's end (and 8 scalars before `e`) is wider than the width plus six
//    ems. Pango's items end there too (an attribute that changes nothing), so that in a
//    long word it does not shape the rest of the window for every line. A window ending at
//    a paragraph's end (its separator included) keeps every line. A window starting a
//    paragraph includes the separator before it, so that shaping sees the same context; in
//    text of a joining script (Arabic …), whose shaping looks at the characters before a
//    line's start, a window starts at an earlier line start after a space and lays those
//    lines out again. Each paragraph gets the base direction Pango found for it in the
//    whole text.
// 3. A window's log attributes and items are compared with the whole text's before its
//    lines are kept (rules with a long memory, such as UAX #14's numbers, the script of
//    common characters or bidi runs of neutrals, can differ near a window's start); a line
//    is kept only before the first difference. A window that keeps nothing gets more text
//    before it (up to 1 024 scalars) or after it; one whose difference stays at its start
//    (a run of thousands of common characters after the character that gave them their
//    script) takes its own attributes, as Pango would have without the text before.
// Windows cover a few line widths, so the work is linear in the text. A window's widths stay
// below 2^30 units, so Pango's sums cannot overflow. Container widths past 2^28 units
// (262 144 px), which Pango cannot take with room for a window, and the rare paragraph no
// window settles, are broken greedily over the unlimited-width advances and break
// opportunities in 64-bit integers (GreedyLines.swift). The test `SegmentedLayoutTests`
// compares windows, down to the smallest, with whole layouts on texts both can lay out.

/// How an engine lays out the texts that Pango lays out (tests compare the ways).
enum LayoutStrategy: Sendable, Equatable {
    /// One Pango layout for a short text, windows for a long one (SegmentedLayout.swift).
    case automatic
    /// One Pango layout of the whole text, whatever its length (quadratic for a long word
    /// at a small width, and Pango's 32-bit sums can overflow: tests only).
    case whole
    /// Always in windows; `scale` is how many line widths a window covers beyond the least
    /// it needs (0: the smallest windows, the most seams; tests).
    case windows(scale: Double)
}

/// Paragraphs of a prepared text and the base direction Pango gives each.
struct Paragraphs {
    var starts: [Int] = []
    var directions: [PangoDirection] = []
}

extension PangoEngine {
    /// Lays the text out in windows into `collector`; false when the budget stopped it.
    func segmentedLines(_ p: LayoutParameters, into collector: inout LineCollector) -> Bool {
        let prepared = p.prepared
        let n = prepared.count
        let paragraphs = findParagraphs(prepared)
        let savedDirection = pango_context_get_base_dir(context)
        defer { if pango_context_get_base_dir(context) != savedDirection { pango_context_set_base_dir(context, savedDirection) } }

        // 1. The whole text at unlimited width.
        guard let unlimited = unlimitedLines(p, paragraphs) else { return false }

        // 2. Every paragraph fits (Pango's widths are the CSS ones without negative spacing).
        let limit = PangoEngine.widthUnits(p.width)
        if limit == .max
            || (PangoTextMeasurer.hasNoNegativeSpacing(p.text) && unlimited.allSatisfy({ $0.units <= limit })) {
            for raw in unlimited { collector.append(raw, prepared) }
            return true
        }

        // 3. Widths Pango cannot take with room for a window: greedy lines.
        let pangoWidth = Int(PangoEngine.pangoWidth(p.width))
        guard pangoWidth >= 0 && pangoWidth < PangoEngine.safeUnits / 4 else {
            var f = 0
            while !collector.isComplete() {
                let end = paragraphEnd(prepared, f)
                guard greedyLines(p, from: f, to: end, limit: limit, into: &collector) else { return false }
                if end >= n { break }
                f = end + 1
            }
            return true
        }
        return windowLines(p, paragraphs, pangoWidth: pangoWidth, into: &collector)
    }

    /// Lays the text out at unlimited width, in groups of paragraphs (Pango counts the
    /// characters from the text's start for every paragraph it itemizes: quadratic in a
    /// text of many paragraphs), each with the base direction Pango gives it in the whole
    /// text, and keeps each scalar's advances (`clusterWidth`), item (`fullItems`), font
    /// (`scalarFonts`) and log attributes (`fullAttrs`). Returns the lines (one a
    /// paragraph), or nil when the budget stopped it.
    private func unlimitedLines(_ p: LayoutParameters, _ paragraphs: Paragraphs) -> [RawLine]? {
        let prepared = p.prepared
        let n = prepared.count
        if clusterWidth.count < n { clusterWidth = [Int](repeating: 0, count: n) }
        if fullItems.count < n { fullItems = [UInt64](repeating: 0, count: n) }
        if scalarFonts.count < n { scalarFonts = [UnsafeMutableRawPointer?](repeating: nil, count: n) }
        fullAttrs.removeAll(keepingCapacity: true)
        fullAttrs.append(contentsOf: repeatElement(PangoLogAttr(), count: n + 1))
        var lines: [RawLine] = []
        var first = 0
        let count = paragraphs.starts.count
        while first < count {
            if shouldStop() { return nil }
            // A group: paragraphs of one direction, at most 64 of them and (unless one is
            // longer) 16 384 scalars.
            var last = first
            while last + 1 < count && last + 1 - first < 64 && paragraphs.directions[last + 1] == paragraphs.directions[first]
                    && paragraphs.starts[last + 2 < count ? last + 2 : last + 1] - paragraphs.starts[first] <= 16_384 {
                last += 1
            }
            let groupStart = paragraphs.starts[first]
            let groupEnd = last + 1 < count ? paragraphs.starts[last + 1] - 1 : n
            // The separators around the group come along, as context (SegmentedLayout's top).
            let from = groupStart > 0 ? groupStart - 1 : 0
            let to = groupEnd < n ? groupEnd + 1 : n
            if pango_context_get_base_dir(context) != paragraphs.directions[first] {
                pango_context_set_base_dir(context, paragraphs.directions[first])
            }
            configureLayout(windowLayout, p, from: from, to: to, width: -1)
            rawLines.removeAll(keepingCapacity: true)
            clusterWidth.withUnsafeMutableBufferPointer { widths in
                fullItems.withUnsafeMutableBufferPointer { items in
                    scalarFonts.withUnsafeMutableBufferPointer { fonts in
                        _ = analyzeLines(windowLayout, p, from: from, to: to, widths: widths.baseAddress! + from,
                                         items: items.baseAddress! + from, fonts: fonts.baseAddress! + from)
                    }
                }
            }
            var attrCount: Int32 = 0
            if let attrs = pango_layout_get_log_attrs_readonly(windowLayout, &attrCount) {
                for i in groupStart...to where i - from < Int(attrCount) { fullAttrs[i] = attrs[i - from] }
            }
            for line in rawLines where line.start >= groupStart && (line.start <= groupEnd || line.start == n) {
                lines.append(line)
            }
            first = last + 1
        }
        return lines
    }

    /// The paragraphs' starts and Pango's base direction for each (pango_layout_check_lines
    /// with auto direction: the first strong character's, a neutral paragraph the one before
    /// it, the first one the text's or the context's).
    func findParagraphs(_ prepared: PreparedText) -> Paragraphs {
        var result = Paragraphs()
        prepared.utf8.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { text in
                var previous = loom_find_base_dir(text.baseAddress, Int32(text.count))
                if previous == PANGO_DIRECTION_NEUTRAL { previous = pango_context_get_base_dir(context) }
                var start = 0
                while true {
                    let end = paragraphEnd(prepared, start)
                    let from = Int(prepared.byteOffset[start]), to = Int(prepared.byteOffset[end])
                    var direction = loom_find_base_dir(text.baseAddress! + from, Int32(to - from))
                    if direction == PANGO_DIRECTION_NEUTRAL { direction = previous } else { previous = direction }
                    result.starts.append(start)
                    result.directions.append(direction)
                    if end >= prepared.count { break }
                    start = end + 1
                }
            }
        }
        return result
    }

    /// The end of the paragraph holding scalar `i` (its separator's index, or the text's end).
    func paragraphEnd(_ prepared: PreparedText, _ i: Int) -> Int {
        var e = i
        while e < prepared.count && prepared.scalars[e] != "\n" { e += 1 }
        return e
    }
}
