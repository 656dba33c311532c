import Foundation
import LoomLayout

// The tests' text measurers: deterministic stand-ins for Pango whose answers a test can
// derive by hand. One per purpose; doubles that only wrap one of these (to count, signal or
// answer from a memo) stay next to the test that needs them.

/// A fake text measurer with fixed metrics, so the text node's own arithmetic (§9.2, §9.4)
/// can be checked by hand: every character is `charFactor × font.size` wide, a line is
/// `lineFactor × font.size` tall; lines break at any character when the container width is
/// exceeded (at least one character per line); `maximumNumberOfLines` cuts lines. The ascender
/// is `ascFactor × size` of the first span's font, the descender `−descFactor × size` of the
/// last span's font. The reported used size is NOT clamped to the container (the node does it).
public final class FakeTextMeasurer: TextMeasuring, @unchecked Sendable {
    public let charFactor: Double, lineFactor: Double, ascFactor: Double, descFactor: Double
    private let lock = NSLock()
    private var _containers: [Size] = []

    public init(charFactor: Double = 0.5, lineFactor: Double = 1.25, ascFactor: Double = 0.9, descFactor: Double = 0.25) {
        self.charFactor = charFactor; self.lineFactor = lineFactor
        self.ascFactor = ascFactor; self.descFactor = descFactor
    }

    /// Every container size the measurer was asked about, in order.
    public var containers: [Size] { lock.lock(); defer { lock.unlock() }; return _containers }

    public func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        lock.lock(); _containers.append(containerSize); lock.unlock()
        let firstFont = text.spans.first?.font ?? text.font
        let lastFont = text.spans.last?.font ?? text.font
        let size = text.font.size
        let cw = charFactor * size, lh = lineFactor * size
        let n = text.string.count
        if n == 0 {
            return TextMeasurement(size: .zero, lineCount: 0, truncated: false,
                                   ascender: ascFactor * firstFont.size, descender: -descFactor * lastFont.size)
        }
        var perLine = n
        if containerSize.width.isFinite, Double(n) * cw > containerSize.width {
            perLine = Swift.max(1, Int((containerSize.width / cw).rounded(.down)))
        }
        var lines = (n + perLine - 1) / perLine
        var truncated = false
        if text.maximumNumberOfLines > 0, lines > text.maximumNumberOfLines {
            lines = text.maximumNumberOfLines
            truncated = true
        }
        let width = Double(Swift.min(perLine, n)) * cw
        return TextMeasurement(size: Size(width: width, height: Double(lines) * lh), lineCount: lines,
                               truncated: truncated, ascender: ascFactor * firstFont.size,
                               descender: -descFactor * lastFont.size)
    }

    public func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
}

/// A deterministic text measurer whose answer depends on every attribute of a text (so a
/// cache keyed on too little answers wrongly): every character is `0.5 × font size` wide
/// (plus letter spacing), one line is `1.25 × size` tall (or `lineHeight`), greedy
/// character wrapping at the container width, a line limit. Families named "Missing…" are
/// reported as unknown.
public final class AttributeSensitiveTextMeasurer: TextMeasuring, @unchecked Sendable {
    public init() {}
    private let lock = NSLock()
    private var _calls = 0
    public var calls: Int { lock.lock(); defer { lock.unlock() }; return _calls }

    public func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        lock.lock(); _calls += 1; lock.unlock()
        var advances: [Double] = []
        var size = text.font.size
        for span in text.spans {
            let f = span.font ?? text.font
            size = f.size
            let weightFactor = f.weight >= 600 ? 1.1 : 1.0
            let italicFactor = f.italic ? 1.05 : 1.0
            let familyFactor = f.family.lowercased().hasPrefix("courier") ? 1.2 : 1.0
            let spacing = span.letterSpacing ?? text.letterSpacing
            for _ in span.text { advances.append(f.size * 0.5 * weightFactor * italicFactor * familyFactor + spacing) }
        }
        let lineHeight = text.lineHeight ?? size * 1.25
        var lines: [Double] = []
        var current = 0.0
        var started = false
        for a in advances {
            if started && current + a > containerSize.width { lines.append(current); current = 0 }
            current += a
            started = true
        }
        if started { lines.append(current) }
        var truncated = false
        let limit = text.maximumNumberOfLines
        if limit > 0 && lines.count > limit { lines = Array(lines.prefix(limit)); truncated = true }
        let truncationCost = truncated ? Double(text.truncationText.count) * 0.1 : 0
        var height = Double(lines.count) * lineHeight + Double(max(0, lines.count - 1)) * text.lineSpacing
        if text.alignment == .justified { height += 0.5 }
        if text.truncationMode == .clip { height += 0.25 }
        height = min(height, containerSize.height)
        let width = (lines.max() ?? 0) + truncationCost
        return TextMeasurement(size: Size(width: width, height: height), lineCount: lines.count,
                               truncated: truncated, ascender: size * 0.8, descender: -size * 0.2)
    }

    public func validate(_ font: FontDescriptor) -> TextMeasuringError? {
        font.family.hasPrefix("Missing") ? TextMeasuringError("unknown font family '\(font.family)'") : nil
    }
}
