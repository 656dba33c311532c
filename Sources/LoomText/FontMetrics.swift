/// Vertical metrics of one face at one pixel size.
struct FontMetrics: Hashable, Sendable {
    /// hhea ascender (or OS/2 typo ascender when the font sets USE_TYPO_METRICS, as
    /// `hb_ot_metrics_get_position` reports it), in px, unrounded, positive.
    var ascender: Double
    /// hhea descender in px, unrounded, negative for normal fonts.
    var descender: Double
    /// hhea line gap in px, unrounded.
    var lineGap: Double

    /// Chromium's rounding (`SkScalarRoundToScalar`, i.e. floor(x + 0.5)) of each value.
    var roundedAscent: Double
    var roundedDescent: Double   // positive
    var roundedLineGap: Double

    /// CSS `line-height: normal`: the three rounded values added.
    var normalLineHeight: Double { roundedAscent + roundedDescent + roundedLineGap }

    init(unitsPerEm: Int32, ascender: Int32, descender: Int32, lineGap: Int32, pixelSize: Double) {
        let scale = pixelSize / Double(max(unitsPerEm, 1))
        self.ascender = Double(ascender) * scale
        self.descender = Double(descender) * scale
        self.lineGap = Double(lineGap) * scale
        roundedAscent = (self.ascender + 0.5).rounded(.down)
        roundedDescent = (-self.descender + 0.5).rounded(.down)
        roundedLineGap = (self.lineGap + 0.5).rounded(.down)
    }

    /// The part of a CSS inline box above (`above`) and below (`below`) the baseline for a
    /// given line height: the rounded ascent and descent plus half the leading each.
    @inline(__always)
    func halfLeadingSplit(lineHeight: Double?) -> (above: Double, below: Double) {
        let l = lineHeight ?? normalLineHeight
        let leading = l - (roundedAscent + roundedDescent)
        // Under `normal` the leading is the rounded line gap, a whole number: Chromium puts the
        // smaller half above (seen where a line mixes fonts: Liberation Serif 12 px with Noto
        // Sans CJK is 18 px tall, not 17.5).
        let above = roundedAscent + (lineHeight == nil ? (leading / 2).rounded(.down) : leading / 2)
        return (above, l - above)
    }

    static let zero = FontMetrics(unitsPerEm: 1000, ascender: 0, descender: 0, lineGap: 0, pixelSize: 0)
}
