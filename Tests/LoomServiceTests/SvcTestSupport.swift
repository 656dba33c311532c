import Foundation
import LoomLayout
import LoomService
import XCTest

// Shared helpers of the LoomService tests (JSON plumbing and a deterministic stub text
// measurer). Expected numbers in the tests are derived by hand from
// shared/design/texture-layout-semantics.md and wire-format.md, never computed here.

enum Svc {
    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

    /// Foundation's view of a response body (for reading numbers and structure).
    static func object(_ b: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let o = (try? JSONSerialization.jsonObject(with: Data(b))) as? [String: Any] else {
            XCTFail("not a JSON object: \(text(b))", file: file, line: line)
            return [:]
        }
        return o
    }

    static func number(_ v: Any?) -> Double? { (v as? NSNumber)?.doubleValue }

    /// `{"x","y","width","height"}` → tuple as an array (easy to compare).
    static func frame(_ v: Any?) -> [Double]? {
        guard let d = v as? [String: Any] else { return nil }
        let keys = ["x", "y", "width", "height"]
        let values = keys.compactMap { number(d[$0]) }
        return values.count == 4 ? values : nil
    }

    /// The `frames` map of a response body.
    static func frames(_ b: [UInt8]) -> [String: [Double]] {
        var out: [String: [Double]] = [:]
        for (k, v) in (object(b)["frames"] as? [String: Any]) ?? [:] { out[k] = frame(v) }
        return out
    }

    /// The error object of an error body.
    static func error(_ b: [UInt8]) -> [String: Any] {
        (object(b)["error"] as? [String: Any]) ?? [:]
    }
}

/// A deterministic text measurer for tests: every character is `0.5 × font size` wide
/// (plus letter spacing), one line is `1.25 × size` tall (or `lineHeight`), greedy
/// character wrapping at the container width, a line limit. Families named "Missing…" are
/// reported as unknown.
final class SvcStubTextMeasurer: TextMeasuring, @unchecked Sendable {
    private let lock = NSLock()
    private var _calls = 0
    var calls: Int { lock.lock(); defer { lock.unlock() }; return _calls }

    func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
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

    func validate(_ font: FontDescriptor) -> TextMeasuringError? {
        font.family.hasPrefix("Missing") ? TextMeasuringError("unknown font family '\(font.family)'") : nil
    }
}
