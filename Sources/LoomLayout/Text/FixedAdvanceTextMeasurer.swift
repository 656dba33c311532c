/// A text measurer without fonts: every character (Unicode scalar) advances
/// `advance × font size` plus the letter spacing, lines break greedily at the container's
/// width (at least one character per line), a line is the line height tall (1.25 × the
/// text's font size when none is given) plus the line spacing between lines, and the line
/// limit cuts. Deterministic and cheap, for laying out trees where real fonts do not matter
/// (previews, fuzzing, tests of the tree rather than of the text).
public final class FixedAdvanceTextMeasurer: TextMeasuring, Sendable {
    /// Advance of one character, in units of its font size.
    public let advance: Double

    public init(advance: Double = 0.5) { self.advance = advance }

    public func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        var widths: [Double] = []
        var current = 0.0
        for span in text.spans {
            let font = span.font ?? text.font
            let step = font.size * advance + (span.letterSpacing ?? text.letterSpacing)
            for _ in span.text.unicodeScalars {
                if current > 0 && current + step > containerSize.width { widths.append(current); current = 0 }
                current += step
            }
        }
        if current > 0 || widths.isEmpty { widths.append(current) }
        var truncated = false
        if text.maximumNumberOfLines > 0 && widths.count > text.maximumNumberOfLines {
            widths = Array(widths.prefix(text.maximumNumberOfLines))
            truncated = true
        }
        let lineHeight = text.lineHeight ?? text.font.size * 1.25
        let height = Double(widths.count) * lineHeight + Double(Swift.max(0, widths.count - 1)) * text.lineSpacing
        return TextMeasurement(size: Size(width: widths.max() ?? 0, height: height), lineCount: widths.count,
                               truncated: truncated, ascender: text.font.size * 0.8, descender: -text.font.size * 0.2)
    }

    public func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
}
