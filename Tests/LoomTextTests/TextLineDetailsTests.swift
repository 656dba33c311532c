import XCTest
import Foundation
import LoomLayout
import LoomText

/// `lines(_:in:)` (options.includeText) must agree with `measure`: as many lines as it counts,
/// the longest as wide as its width, the heights and spacing adding up to its height, the
/// same truncation; and the lines' ranges must cover the string in order.
final class TextLineDetailsTests: XCTestCase {
    static let measurer: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)

    private func font(_ family: String = "Liberation Sans", _ size: Double = 16, weight: Int = 400) -> FontDescriptor {
        FontDescriptor(family: family, size: size, weight: weight)
    }

    private func text(_ s: String, _ f: FontDescriptor? = nil, lines: Int = 0, mode: TruncationMode = .wordWrap,
                      spacing: Double = 0, lineSpacing: Double = 0, lineHeight: Double? = nil) -> TextAttributes {
        TextAttributes(spans: [TextSpan(text: s)], font: f ?? font(), lineHeight: lineHeight, lineSpacing: lineSpacing,
                       letterSpacing: spacing, maximumNumberOfLines: lines, truncationMode: mode)
    }

    /// Words of a string (white space collapsed), to compare a line's text with its range.
    private func words(_ s: Substring) -> [Substring] { s.split(whereSeparator: { $0 == " " || $0 == "\t" || $0.isNewline }) }

    /// Checks the agreement described above; returns the lines.
    @discardableResult
    private func check(_ t: TextAttributes, _ size: Size, file: StaticString = #filePath, line: UInt = #line) throws -> TextLines {
        let m = Self.measurer.measureUncached(t, in: size)
        let found = try XCTUnwrap(Self.measurer.lines(t, in: size), file: file, line: line)
        let label = "\(t.string.prefix(40)) in \(size.width)×\(size.height)"
        XCTAssertEqual(found.lines.count, m.lineCount, label, file: file, line: line)
        let widest = found.lines.map(\.width).max() ?? 0
        XCTAssertEqual(widest, m.size.width, accuracy: 1e-9, label, file: file, line: line)
        let height = found.lines.map(\.height).reduce(0, +) + t.lineSpacing * Double(max(0, found.lines.count - 1))
        XCTAssertEqual(height, m.size.height, accuracy: 1e-9, label, file: file, line: line)
        XCTAssertEqual(found.truncatedString != nil, m.truncated, label, file: file, line: line)
        let utf16 = Array(t.string.utf16)
        var y = 0.0
        for (k, l) in found.lines.enumerated() {
            XCTAssertEqual(l.y, y, accuracy: 1e-9, label, file: file, line: line)
            XCTAssertGreaterThan(l.baseline, l.y, label, file: file, line: line)
            XCTAssertLessThanOrEqual(l.baseline, l.y + l.height, label, file: file, line: line)
            XCTAssertFalse(l.fonts.isEmpty && !l.text.isEmpty, label, file: file, line: line)
            y += l.height + t.lineSpacing
            if k + 1 < found.lines.count {
                XCTAssertEqual(found.lines[k + 1].location, l.location + l.length, label, file: file, line: line)
            }
            let range = String(decoding: utf16[l.location..<(l.location + l.length)], as: UTF16.self)
            if k + 1 < found.lines.count || !m.truncated {
                XCTAssertEqual(words(Substring(l.text)), words(Substring(range)), label, file: file, line: line)
            }
        }
        if let first = found.lines.first {
            // Only leading white space comes before the first line.
            XCTAssertTrue(words(Substring(String(decoding: utf16[0..<first.location], as: UTF16.self))).isEmpty, label)
        }
        if !m.truncated, let last = found.lines.last {
            XCTAssertEqual(last.location + last.length, utf16.count, label, file: file, line: line)
        }
        return found
    }

    func testLinesAgreeWithTheMeasurement() throws {
        let latin = "The quick brown fox jumps over the lazy dog and keeps running through the field"
        let cjk = "日本語のテキストは文字ごとに折り返されます。中文文本也是如此，每个字都可以换行。"
        let bidi = "Hello مرحبا بالعالم world and more English words العربية here"
        let emoji = "Party 🎉 time 👩‍👩‍👧 with friends 👍🏽 and more words 🇫🇷 here"
        for width in [40.0, 90.0, 160.0, 333.0, .infinity] {
            let size = Size(width: width, height: .infinity)
            for s in [latin, cjk, bidi, emoji, "Line one\nLine two\r\n\nafter a blank line", "  leading   and\ttabs  "] {
                try check(text(s), size)
                try check(text(s, spacing: 1.5, lineSpacing: 3), size)
                try check(text(s, font("Liberation Serif", 13)), size)
                try check(text(s, lineHeight: 24), size)
            }
        }
        // Spans in different fonts.
        let spans = TextAttributes(spans: [TextSpan(text: "Bold start ", font: font(weight: 700)),
                                           TextSpan(text: "then serif words ", font: font("Liberation Serif", 20)),
                                           TextSpan(text: "and 漢字 at the end", letterSpacing: 2)], font: font())
        for width in [50.0, 120.0, 400.0] { try check(spans, Size(width: width, height: .infinity)) }
        // A long text (laid out in windows).
        let long = String(repeating: "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", count: 40)
        try check(text(long), Size(width: 200, height: .infinity))
        try check(text(long, lines: 5, mode: .tail), Size(width: 200, height: .infinity))
    }

    func testTruncationShowsTheTruncationTextOnItsSide() throws {
        let s = "One two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        let size = Size(width: 120, height: .infinity)
        let tail = try check(text(s, lines: 2, mode: .tail), size)
        XCTAssertEqual(tail.lines.count, 2)
        XCTAssertTrue(tail.lines[1].text.hasSuffix("\u{2026}"), tail.lines[1].text)
        let shownTail = try XCTUnwrap(tail.truncatedString)
        XCTAssertTrue(shownTail.hasSuffix("\u{2026}"))
        XCTAssertTrue(shownTail.hasPrefix(tail.lines[0].text), shownTail)

        let head = try check(text(s, lines: 2, mode: .head), size)
        XCTAssertTrue(head.lines[1].text.hasPrefix("\u{2026}"), head.lines[1].text)
        XCTAssertTrue(head.lines[1].text.hasSuffix("fourteen"), head.lines[1].text)  // the paragraph's end

        let middle = try check(text(s, lines: 2, mode: .middle), size)
        let m = middle.lines[1].text
        XCTAssertTrue(m.contains("\u{2026}") && !m.hasPrefix("\u{2026}") && !m.hasSuffix("\u{2026}"), m)
        // Graphemes from the line's start, then from the paragraph's end.
        let parts = m.components(separatedBy: "\u{2026}")
        XCTAssertEqual(parts.count, 2)
        XCTAssertTrue(s.hasSuffix(parts[1]) && s.contains(parts[0]), m)
        let tailParts = try XCTUnwrap(middle.truncatedString).components(separatedBy: "\u{2026}")
        XCTAssertTrue(s.hasPrefix(tailParts[0]), tailParts[0])

        // Cut by the container height: one 18 px line of 16 px Liberation Sans (rounded ascent 14, descent 3, gap 1) fits in 20.
        let byHeight = try check(text(s, mode: .tail), Size(width: 120, height: 20))
        XCTAssertEqual(byHeight.lines.count, 1)
        XCTAssertTrue(byHeight.truncatedString?.hasSuffix("\u{2026}") ?? false)

        // Clip: no truncation text.
        let clip = try check(text(s, lines: 1, mode: .clip), size)
        XCTAssertFalse(clip.lines[0].text.contains("\u{2026}"))
    }

    /// A line is as wide as its own text measured alone (no kerning or shaping crosses a
    /// break in these texts).
    func testEachLineIsAsWideAsItsTextAlone() throws {
        let s = "The quick brown fox jumps over the lazy dog 日本語のテキストは文字ごとに折り返されます"
        let found = try check(text(s), Size(width: 110, height: .infinity))
        XCTAssertGreaterThan(found.lines.count, 3)
        for l in found.lines {
            let alone = Self.measurer.measureUncached(text(l.text), in: Size(width: .infinity, height: .infinity))
            XCTAssertEqual(alone.lineCount, 1)
            XCTAssertEqual(l.width, alone.size.width, accuracy: 1e-6, l.text)
        }
    }

    func testFontsNameTheRequestedFamilyAndTheFallback() throws {
        let found = try check(text("Latin words 中文字"), Size(width: .infinity, height: .infinity))
        XCTAssertEqual(found.lines.count, 1)
        let fonts = found.lines[0].fonts
        XCTAssertEqual(fonts.first, "Liberation Sans")
        XCTAssertTrue(fonts.contains { $0.hasPrefix("Noto Sans CJK") }, "\(fonts)")
        // UTF-16 ranges: a character outside the BMP counts two.
        let astral = try check(text("𝐀𝐁 ab"), Size(width: .infinity, height: .infinity))
        XCTAssertEqual(astral.lines[0].length, 7)
    }

    func testRightToLeftParagraphs() throws {
        let found = try check(text("مرحبا بالعالم\nHello"), Size(width: .infinity, height: .infinity))
        XCTAssertEqual(found.lines.map(\.rightToLeft), [true, false])
    }
}
