import CPango
import LoomLayout

/// One laid-out line, in the terms the CSS rules need.
struct LineInfo {
    /// Scalar range of the line (without its paragraph separator).
    var start: Int
    var end: Int
    /// First and last content scalar (not white space, not inserted), or -1 when none.
    var first: Int
    var last: Int
    /// CSS width: advances up to the last content character, letter spacing after each.
    var width: Double
    /// CSS line box height.
    var height: Double
    /// Whether the line ends its paragraph.
    var endsParagraph: Bool
}

/// A line as Pango laid it out, in scalars of the whole prepared text.
struct RawLine {
    var start: Int
    var end: Int
    /// First and last content scalar (not white space, not inserted), or -1 when none.
    var first: Int
    var last: Int
    /// CSS width in Pango units: advances up to the last content character.
    var units: Int
    /// CSS line box height.
    var height: Double
}

/// What laying a text out needs.
struct LayoutParameters {
    let text: TextAttributes
    let prepared: PreparedText
    let base: EngineFont
    let spanFonts: [EngineFont]
    let spanSpacing: [Double]
    let lineHeight: Double?
    /// The container width.
    let width: Double
    /// Emoji clusters the engine measures itself (Emoji.swift); empty for most texts.
    var emoji = EmojiLayout()
    /// Whether Pango gets the core chain only (PangoEngine.needsCoreChainOnly).
    var coreChain = false
}

/// Collects a text's lines as they are laid out (hanging soft-wrapped white space on the
/// line before, as CSS does), and tells when there are enough of them: once a line is not
/// visible (line limit, container height), the answer is known, except that head and
/// middle truncation read the rest of the last visible line's paragraph.
struct LineCollector {
    private(set) var lines: [LineInfo] = []
    let limit: Int
    let height: Double
    let spacing: Double
    let throughParagraph: Bool
    /// Lines known to be visible, and whether some line is not.
    private(set) var visible = 0
    private(set) var cut = false
    private var total = 0.0
    private var scanned = 0

    init(limit: Int, height: Double, spacing: Double, throughParagraph: Bool) {
        self.limit = limit; self.height = height; self.spacing = spacing; self.throughParagraph = throughParagraph
    }

    /// Adds a line as Pango laid it out.
    mutating func append(_ raw: RawLine, _ prepared: PreparedText) {
        let n = prepared.count
        let endsParagraph = raw.end >= n || prepared.scalars[raw.end] == "\n"
        let paragraphStart = raw.start == 0 || prepared.scalars[raw.start - 1] == "\n"
        if raw.first < 0 && !paragraphStart && !lines.isEmpty {
            // A soft-wrapped line of nothing but white space (Pango wraps a space that
            // does not fit onto its own line): in CSS it hangs at the end of the previous line.
            lines[lines.count - 1].end = raw.end
            lines[lines.count - 1].endsParagraph = endsParagraph
            return
        }
        let line = LineInfo(start: raw.start, end: raw.end, first: raw.first, last: raw.last,
                            width: Double(raw.units) / Double(LOOM_PANGO_SCALE), height: raw.height,
                            endsParagraph: endsParagraph)
        let index = lines.count
        lines.append(line)
        guard !cut else { return }
        // As TextPreparation.visibleLineCount counts them.
        if limit > 0 && index >= limit { cut = true; return }
        if height.isFinite {
            let t = total + line.height + (index > 0 ? spacing : 0)
            if t > height + 1e-6 { cut = true; return }
            total = t
        }
        visible += 1
    }

    /// Whether the lines so far decide the answer.
    mutating func isComplete() -> Bool {
        guard cut else { return false }
        if !throughParagraph || visible == 0 { return true }
        var k = max(scanned, visible - 1)
        while k < lines.count {
            if lines[k].endsParagraph { return true }
            k += 1
        }
        // The last line may still take a hanging space (and end its paragraph then).
        scanned = max(visible - 1, lines.count - 1)
        return false
    }
}

/// Where the text's log attributes (grapheme boundaries for truncation) are: the whole
/// text's layout, or `fullAttrs` (a text laid out in windows).
enum AttributeSource { case layout, full }

extension PangoEngine {
    /// Pango keeps widths in 32-bit integers of 1/1024 px. A layout whose widths (the
    /// container's and the sum of all its advances) each stay below 2^30 units cannot
    /// overflow them; the engine keeps every layout it trusts within that.
    static let safeUnits = 1 << 30

    /// A container width as the width Pango wraps at, or -1 for none. Chromium keeps a line
    /// that overshoots the width by up to its layout unit (1/64 px): Pango wraps at the
    /// same point. Widths from `safeUnits / 2` on are not given to Pango (-1).
    static func pangoWidth(_ width: Double) -> Int32 {
        guard !width.isNaN else { return -1 }
        let units = ((max(0, width) + 1.0 / 64) * Double(LOOM_PANGO_SCALE)).rounded(.down)
        return units < Double(safeUnits / 2) ? Int32(units) : -1
    }

    /// The same width in Pango units without Pango's bound (Int.max for an unlimited width).
    static func widthUnits(_ width: Double) -> Int {
        guard !width.isNaN else { return .max }
        let units = ((max(0, width) + 1.0 / 64) * Double(LOOM_PANGO_SCALE)).rounded(.down)
        return units < 9e18 ? Int(units) : .max
    }

    // MARK: Choosing how

    /// Lays `text` out into lines (as many as an answer needs) and counts the visible ones
    /// (the line limit, then the container height): the step `measureText` and
    /// `lines(_:in:)` share. nil when the budget stopped the layout.
    func collectLines(_ text: TextAttributes, _ prepared: PreparedText, base: EngineFont, spanFonts: [EngineFont],
                      spanSpacing: [Double], lineHeight: Double?, lineSpacing: Double, container: Size)
        -> (parameters: LayoutParameters, lines: [LineInfo], source: AttributeSource, visible: Int)? {
        let mode = text.truncationMode
        var collector = LineCollector(limit: text.maximumNumberOfLines, height: container.height, spacing: lineSpacing,
                                      throughParagraph: mode == .head || mode == .middle)
        var p = LayoutParameters(text: text, prepared: prepared, base: base, spanFonts: spanFonts,
                                 spanSpacing: spanSpacing, lineHeight: lineHeight, width: container.width)
        p.emoji = EmojiLayout.make(prepared, spanFonts: spanFonts, engine: self,
                                   letterSpaced: spanSpacing.contains { $0 != 0 })
        p.coreChain = !wholeChain && needsCoreChainOnly(prepared, spanFonts: spanFonts)
        guard let source = layOut(p, into: &collector) else { return nil }
        let lines = collector.lines
        let visible = TextPreparation.visibleLineCount(lines.count, limit: text.maximumNumberOfLines,
                                                       containerHeight: container.height, lineSpacing: lineSpacing) { lines[$0].height }
        return (p, lines, source, visible)
    }

    /// Lays the text out into `collector`, as many lines as the answer needs; nil when the
    /// budget stopped the measurement.
    ///
    /// A short text is one Pango layout. A long one (or a word too long to break cheaply,
    /// or one whose widths could overflow Pango's integers) is laid out in windows whose
    /// lines are Pango's own (SegmentedLayout.swift): Pango spends time proportional to the
    /// rest of an item for every line it breaks inside it, quadratic in a long word, and
    /// proportional to the text before a paragraph for every paragraph.
    func layOut(_ p: LayoutParameters, into collector: inout LineCollector) -> AttributeSource? {
        switch strategy {
        case .whole:
            wholeLines(p, into: &collector, trusting: true)
            return .layout
        case .windows:
            return segmentedLines(p, into: &collector) ? .full : nil
        case .automatic:
            if PangoEngine.isShort(p.prepared), wholeLines(p, into: &collector, trusting: false) {
                return .layout
            }
            return segmentedLines(p, into: &collector) ? .full : nil
        }
    }

    /// Texts that one Pango layout measures in little time at any width: few scalars, and
    /// no long run without a space or an ideograph (break opportunities, so Pango's search
    /// for a break never goes far).
    static func isShort(_ prepared: PreparedText) -> Bool {
        let n = prepared.count
        if n <= 256 { return true }
        if n > 1024 { return false }
        var run = 0
        for s in prepared.scalars {
            let v = s.value
            if v == 0x20 || v == 0x0A || v == 0x200B || (v >= 0x2E80 && v < 0xA000) || (v >= 0xAC00 && v < 0xD7B0) {
                run = 0
            } else {
                run += 1
                if run > 64 { return false }
            }
        }
        return true
    }

    /// The whole text as one Pango layout. Unless `trusting`, false (and nothing collected)
    /// when Pango's integers could have overflowed, or when a width Pango cannot take was
    /// taken as unlimited and a line is wider than it.
    @discardableResult
    func wholeLines(_ p: LayoutParameters, into collector: inout LineCollector, trusting: Bool) -> Bool {
        let n = p.prepared.count
        let pangoWidth = PangoEngine.pangoWidth(p.width)
        configureLayout(layout, p, from: 0, to: n, width: pangoWidth)
        if clusterWidth.count < n { clusterWidth = [Int](repeating: 0, count: n) }
        rawLines.removeAll(keepingCapacity: true)
        let magnitude = clusterWidth.withUnsafeMutableBufferPointer { widths in
            analyzeLines(layout, p, from: 0, to: n, widths: widths.baseAddress!, items: nil, fonts: nil)
        }
        if !trusting {
            if pangoWidth >= 0 && magnitude >= PangoEngine.safeUnits { return false }
            if pangoWidth < 0 && !p.width.isNaN && p.width != .infinity {
                // Unlimited for Pango, finite for CSS: right when every line fits (Pango's
                // widths are the CSS ones without negative letter spacing).
                let limit = PangoEngine.widthUnits(p.width)
                guard PangoTextMeasurer.hasNoNegativeSpacing(p.text), rawLines.allSatisfy({ $0.units <= limit })
                else { return false }
            }
        }
        for raw in rawLines { collector.append(raw, p.prepared) }
        return true
    }

    // MARK: Pango layouts

    /// Gives `layout` the scalars [from, to) of the prepared text with their fonts and
    /// letter spacing, wrapping at `width` (Pango units, -1: no wrapping). With `split`,
    /// Pango's items end at that scalar (SegmentedLayout.swift: so that its search for a
    /// break in a long word stops there, instead of shaping the rest of the window for
    /// every line).
    func configureLayout(_ layout: OpaquePointer, _ p: LayoutParameters, from: Int, to: Int, width: Int32,
                         split: Int? = nil) {
        let prepared = p.prepared
        pango_layout_set_font_description(layout, p.coreChain ? p.base.coreDescription(catalog) : p.base.description)
        pango_layout_set_wrap(layout, p.text.truncationMode == .charWrap ? PANGO_WRAP_CHAR : PANGO_WRAP_WORD_CHAR)
        pango_layout_set_width(layout, width)

        let origin = prepared.byteOffset[from]
        let list = pango_attr_list_new()!
        pango_attr_list_insert(list, pango_attr_insert_hyphens_new(0))
        // Fonts (runs of scalars whose span font differs from the base font) and letter
        // spacing (runs of equal non-zero spacing, inserted characters excluded), inserted
        // in the order of their starts, fonts first: Pango's list is an array that an
        // insertion out of order searches and shifts.
        var fontRuns: [(Int, Int, EngineFont)] = []
        var i = from
        while i < to {
            let f = p.spanFonts[Int(prepared.span[i])]
            var j = i + 1
            while j < to && p.spanFonts[Int(prepared.span[j])] === f { j += 1 }
            if f !== p.base && f.resolved != p.base.resolved { fontRuns.append((i, j, f)) }
            i = j
        }
        var nextFont = 0
        func insertFonts(before limit: Int) {
            while nextFont < fontRuns.count && fontRuns[nextFont].0 <= limit {
                let (a, b, f) = fontRuns[nextFont]
                let attr = pango_attr_font_desc_new(p.coreChain ? f.coreDescription(catalog) : f.description)!
                attr.pointee.start_index = UInt32(prepared.byteOffset[a] - origin)
                attr.pointee.end_index = UInt32(prepared.byteOffset[b] - origin)
                pango_attr_list_insert(list, attr)
                nextFont += 1
            }
        }
        i = from
        while i < to {
            let s = spacing(p, i)
            var j = i + 1
            while j < to && spacing(p, j) == s { j += 1 }
            if s != 0 {
                insertFonts(before: i)
                let attr = pango_attr_letter_spacing_new(Int32((s * Double(LOOM_PANGO_SCALE)).rounded()))!
                attr.pointee.start_index = UInt32(prepared.byteOffset[i] - origin)
                attr.pointee.end_index = UInt32(prepared.byteOffset[j] - origin)
                pango_attr_list_insert(list, attr)
                // Chromium turns ligatures and contextual alternates off under letter spacing.
                let features = pango_attr_font_features_new("liga 0, clig 0, calt 0")!
                features.pointee.start_index = UInt32(prepared.byteOffset[i] - origin)
                features.pointee.end_index = UInt32(prepared.byteOffset[j] - origin)
                pango_attr_list_insert(list, features)
            }
            i = j
        }
        insertFonts(before: to)
        if !p.emoji.isEmpty { insertEmoji(list, p, from: from, to: to, origin: origin) }
        if !prepared.markedWords.isEmpty { markWords(list, prepared, from: from, to: to, origin: origin) }
        if let split, split > from, split < to {
            // An attribute that changes nothing but starts a new item.
            let attr = pango_attr_rise_new(0)!
            attr.pointee.start_index = UInt32(prepared.byteOffset[split] - origin)
            attr.pointee.end_index = UInt32(prepared.byteOffset[to] - origin)
            pango_attr_list_insert(list, attr)
        }
        pango_layout_set_attributes(layout, list)
        pango_attr_list_unref(list)
        let start = Int(origin), end = Int(prepared.byteOffset[to])
        if start == end {
            pango_layout_set_text(layout, "", 0)
        } else {
            prepared.utf8.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    pango_layout_set_text(layout, chars.baseAddress! + start, Int32(end - start))
                }
            }
        }
    }

    /// The first index in 0..<count where `reached` holds (it holds from there on), or count.
    @inline(__always) static func firstIndex(_ count: Int, where reached: (Int) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi { let mid = (lo + hi) / 2; if reached(mid) { hi = mid } else { lo = mid + 1 } }
        return lo
    }

    /// ICU's dictionary words within [from, to) (DictionaryBreaks.swift) as `PangoAttrWord`s:
    /// Pango then breaks at each word's start and nowhere inside it (between characters
    /// still, where a word is wider than the line). Items stay whole.
    private func markWords(_ list: OpaquePointer, _ prepared: PreparedText, from: Int, to: Int, origin: Int32) {
        let words = prepared.markedWords
        // The first word ending after the window's start (a long text is laid out in windows).
        var k = PangoEngine.firstIndex(words.count / 2) { Int(words[2 * $0 + 1]) > from }
        while k < words.count / 2, Int(words[2 * k]) < to {
            // Clamped to the window: a word cut at the window's start adds no break there,
            // one cut at its end none after it.
            let start = max(Int(words[2 * k]), from), end = min(Int(words[2 * k + 1]), to)
            let attr = pango_attr_word_new()!
            attr.pointee.start_index = UInt32(prepared.byteOffset[start] - origin)
            attr.pointee.end_index = UInt32(prepared.byteOffset[end] - origin)
            pango_attr_list_insert(list, attr)
            k += 1
        }
    }

    /// Spaces between fallback characters in their span's family, and emoji clusters within
    /// [from, to) as shape attributes: the first scalar of a cluster as wide as the cluster,
    /// the others 0 (the widths Pango cannot compute: Emoji.swift).
    private func insertEmoji(_ list: OpaquePointer, _ p: LayoutParameters, from: Int, to: Int, origin: Int32) {
        let prepared = p.prepared
        // Both lists are in text order: start at the first entry of the window (a long text is
        // laid out in many windows).
        let spaces = p.emoji.spaces, clusters = p.emoji.clusters
        for space in spaces[PangoEngine.firstIndex(spaces.count) { spaces[$0].start >= from }...] {
            if space.start >= to { break }
            guard space.end <= to else { continue }
            let attr = pango_attr_family_new(space.family)!
            attr.pointee.start_index = UInt32(prepared.byteOffset[space.start] - origin)
            attr.pointee.end_index = UInt32(prepared.byteOffset[space.end] - origin)
            pango_attr_list_insert(list, attr)
        }
        for c in clusters[PangoEngine.firstIndex(clusters.count) { clusters[$0].start >= from }...] {
            if c.start >= to { break }
            guard c.end <= to else { continue }
            let a = c.metrics.roundedAscent, d = c.metrics.roundedDescent
            let unit = Double(LOOM_PANGO_SCALE)
            var ink = PangoRectangle(x: 0, y: Int32(-a * unit), width: Int32((c.width * unit).rounded()),
                                     height: Int32((a + d) * unit))
            var logical = ink
            let first = pango_attr_shape_new(&ink, &logical)!
            first.pointee.start_index = UInt32(prepared.byteOffset[c.start] - origin)
            first.pointee.end_index = UInt32(prepared.byteOffset[c.start + 1] - origin)
            pango_attr_list_insert(list, first)
            if c.end > c.start + 1 {
                var none = PangoRectangle(x: 0, y: ink.y, width: 0, height: ink.height)
                var noneLogical = none
                let rest = pango_attr_shape_new(&none, &noneLogical)!
                rest.pointee.start_index = UInt32(prepared.byteOffset[c.start + 1] - origin)
                rest.pointee.end_index = UInt32(prepared.byteOffset[c.end] - origin)
                pango_attr_list_insert(list, rest)
            }
        }
    }

    @inline(__always)
    func spacing(_ prepared: PreparedText, _ spanSpacing: [Double], _ i: Int) -> Double {
        prepared.inserted[i] ? 0 : spanSpacing[Int(prepared.span[i])]
    }

    /// The same, and none for the scalars the browser leaves unspaced (Emoji.swift).
    @inline(__always)
    func spacing(_ p: LayoutParameters, _ i: Int) -> Double {
        p.emoji.takesNoSpacing(i) ? 0 : spacing(p.prepared, p.spanSpacing, i)
    }

    @inline(__always)
    func isContent(_ prepared: PreparedText, _ i: Int) -> Bool {
        !prepared.inserted[i] && !isCollapsibleSpace(prepared.scalars[i])
    }
}
