import XCTest
import Foundation
import LoomLayout
import LoomText
import LoomTestSupport

/// Texts a hostile client may send (issue 17, findings 2, 5 and 10): long words at tiny
/// widths, huge letter spacing and font sizes, many large distinct texts. Each answer must
/// come in time proportional to the text, be right (every line within the width unless a
/// single glyph is wider), and leave the caches within their bounds.
final class HostileTextTests: XCTestCase {
    static let measurer = try! PangoTextMeasurer(cacheCapacity: 0)
    let sans = FontDescriptor(family: "Liberation Sans", size: 12)
    let mono = FontDescriptor(family: "Liberation Mono", size: 20)

    func measure(_ spans: [TextSpan], font: FontDescriptor? = nil, width: Double, height: Double = .infinity,
                 letterSpacing: Double = 0, lines: Int = 0, mode: TruncationMode = .wordWrap,
                 token: String = "\u{2026}", measurer: PangoTextMeasurer = measurer) -> (TextMeasurement, Double) {
        let t = TextAttributes(spans: spans, font: font ?? sans, letterSpacing: letterSpacing, maximumNumberOfLines: lines,
                               truncationMode: mode, truncationText: token)
        let start = DispatchTime.now().uptimeNanoseconds
        let m = measurer.measure(t, in: Size(width: width, height: height))
        return (m, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    // MARK: Finding 2: time linear in the text

    /// One long word at a tiny width is one line per character; at 200 px a line per
    /// ~29 characters. Twice the word takes about twice the time (was four times).
    func testLongWordTimeIsLinear() {
        for width in [1e-6, 200] {
            let (small, t1) = measure([TextSpan(text: String(repeating: "a", count: 4_000))], width: width)
            let (large, t2) = measure([TextSpan(text: String(repeating: "a", count: 16_000))], width: width)
            if width < 1 {
                XCTAssertEqual(small.lineCount, 4_000)
                XCTAssertEqual(large.lineCount, 16_000)
            } else {
                XCTAssertEqual(Double(large.lineCount), 4 * Double(small.lineCount), accuracy: 2)
            }
            XCTAssertEqual(large.size.width, small.size.width)
            // Four times the text: linear is ~4x, quadratic was ~16x (0.16 s → 2.5 s at 1e-6).
            XCTAssertLessThan(t2, 8 * t1 + 0.05, "width \(width): \(t1) s, then \(t2) s")
        }
    }

    func testLongTextsOfEveryKindAreMeasuredQuickly() {
        var words = ""
        var i = 0
        let pool = ["lorem", "ipsum", "dolor", "sit", "amet", "élan", "consectetur", "日本語", "שלום", "مرحبا"]
        while words.utf8.count < 40_000 { words += pool[i % pool.count] + " "; i += 1 }
        let word = String(repeating: "x", count: 40_000)
        let cases: [(String, [TextSpan], Double, Int, TruncationMode, String)] = [
            ("short words, tiny width", [TextSpan(text: words)], 1e-6, 0, .wordWrap, "\u{2026}"),
            ("short words, 200", [TextSpan(text: words)], 200, 0, .wordWrap, "\u{2026}"),
            ("long word, middle truncation", [TextSpan(text: word)], 200, 3, .middle, "\u{2026}"),
            ("long word, head truncation", [TextSpan(text: word)], 1e-6, 2, .head, "\u{2026}"),
            ("long truncation text", [TextSpan(text: words)], 200, 1, .tail, String(repeating: "…", count: 30_000)),
            ("mixed spans", [TextSpan(text: word), TextSpan(text: words, font: mono, letterSpacing: 3)], 150, 0,
             .charWrap, "\u{2026}"),
            // HarfBuzz is quadratic in a run of marks or joiners (20 s for 100 000).
            ("marks", [TextSpan(text: "ب" + String(repeating: "\u{064B}", count: 60_000))], 200, 0, .wordWrap, "\u{2026}"),
            ("joiners", [TextSpan(text: String(repeating: "\u{200D}", count: 60_000))], 1e-6, 0, .wordWrap, "\u{2026}"),
            // Pango counts the characters before every paragraph it itemizes.
            ("many paragraphs", [TextSpan(text: String(repeating: "é\n", count: 20_000))], 200, 0, .wordWrap, "\u{2026}"),
            ("many paragraphs, unlimited", [TextSpan(text: String(repeating: "é\n", count: 20_000))], .infinity, 0,
             .wordWrap, "\u{2026}"),
        ]
        for (name, spans, width, lines, mode, token) in cases {
            let (m, seconds) = measure(spans, width: width, lines: lines, mode: mode, token: token)
            XCTAssertGreaterThan(m.lineCount, 0, name)
            // A debug build; the release build is several times faster.
            XCTAssertLessThan(seconds, 4, name)
        }
    }

    // MARK: Finding 10: no silent overflow

    /// 210 characters 10 000 px apart at 200 px: one per line, like 200 of them (Pango's
    /// 32-bit sums overflowed past 2 097 152 px and kept everything on one line).
    func testHugeLetterSpacingBreaksEveryCharacter() {
        for count in [200, 210, 1_000] {
            let (m, _) = measure([TextSpan(text: String(repeating: "a", count: count))], width: 200, letterSpacing: 10_000)
            XCTAssertEqual(m.lineCount, count)
            XCTAssertEqual(m.size.width, 10_000 + 6.673828125, accuracy: 0.01)  // one glyph and its spacing
        }
        let (m, _) = measure([TextSpan(text: String(repeating: "ab ", count: 700))], width: 200, letterSpacing: 1_000)
        XCTAssertEqual(m.lineCount, 1_400)
        // Lines fit the width unless one glyph is wider: 2 500 px holds two glyphs.
        let (two, _) = measure([TextSpan(text: String(repeating: "a", count: 2_100))], width: 2_500, letterSpacing: 1_000)
        XCTAssertEqual(two.lineCount, 1_050)
        XCTAssertLessThanOrEqual(two.size.width, 2_500)
    }

    /// 50 000 words at 1000 px: a word per line (or less) at 200 px, and lines of at most
    /// the width at widths Pango cannot take (3 000 000 px and more), in a font the word
    /// path measures and in one it does not.
    func testHugeFontSizeWraps() {
        let text = String(repeating: "word ", count: 50_000)
        let big = FontDescriptor(family: "Liberation Sans", size: 1_000)
        let (narrow, _) = measure([TextSpan(text: String(repeating: "word ", count: 5_000))], font: big, width: 200)
        XCTAssertEqual(narrow.lineCount, 20_000)  // every character wider than the line
        for spans in [[TextSpan(text: text)], [TextSpan(text: text + "é")]] {
            let (unlimited, _) = measure(spans, font: big, width: .infinity)
            XCTAssertEqual(unlimited.lineCount, 1)
            XCTAssertGreaterThan(unlimited.size.width, 100_000_000)
            let (huge, _) = measure(spans, font: big, width: 1e300)
            XCTAssertEqual(huge.lineCount, 1)
            // A word and its space: 2 445.3 px. A line holds as many words as fit.
            let word = unlimited.size.width / 50_000
            for width in [100_000.0, 3_000_000, 20_000_000] {
                let (m, _) = measure(spans, font: big, width: width)
                let perLine = ((width + 300) / word).rounded(.down)
                XCTAssertEqual(m.lineCount, Int((50_000 / perLine).rounded(.up)), "\(width)")
                XCTAssertLessThanOrEqual(m.size.width, width)
                XCTAssertGreaterThan(m.size.width, width - word)
            }
        }
    }

    // MARK: Finding 5: caches bounded by bytes

    func testMeasurementCacheStaysWithinItsBytes() throws {
        let bound = 4 << 20
        let m = try PangoTextMeasurer(cacheCapacity: 20_000, cacheBytes: bound)
        for i in 0..<80 {
            // 100 KB texts (a fortieth of the bound: a shard holds one or two).
            let text = "\(i) " + String(repeating: "abc def ", count: 12_500)
            _ = measure([TextSpan(text: text)], width: .infinity, measurer: m)
            let s = m.cacheStatistics
            XCTAssertLessThanOrEqual(s.bytes, bound)
            XCTAssertEqual(s.byteCapacity, bound)
        }
        XCTAssertGreaterThan(m.cacheStatistics.entries, 0)
        XCTAssertGreaterThan(m.cacheStatistics.bytes, 100_000)
        // A text larger than a shard's share is measured, not kept.
        m.clearCache()
        _ = measure([TextSpan(text: String(repeating: "abc ", count: 100_000))], width: 300, measurer: m)
        XCTAssertEqual(m.cacheStatistics.entries, 0)
        XCTAssertEqual(m.cacheStatistics.bytes, 0)
        // The truncation text counts too.
        _ = measure([TextSpan(text: "short")], width: 300, token: String(repeating: "-", count: 400_000), measurer: m)
        XCTAssertEqual(m.cacheStatistics.entries, 0)
        _ = measure([TextSpan(text: "short")], width: 300, measurer: m)
        XCTAssertEqual(m.cacheStatistics.entries, 1)
        XCTAssertGreaterThan(m.cacheStatistics.bytes, 0)
    }

    func testWordCacheStaysWithinItsBytes() throws {
        let bound = 64 << 10
        let m = try PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 100_000, wordCacheBytes: bound)
        var r: UInt64 = 1
        for _ in 0..<60 {
            var text = ""
            for _ in 0..<100 {
                r = LCG.step(r)
                let length = 3 + Int(r >> 60) + (r & 1 == 0 ? 30 : 0)   // short and long (> 24 bytes) words
                text += String((0..<length).map { k in Character(Unicode.Scalar(0x61 + UInt8((r >> (k % 60)) & 15))) }) + " "
            }
            _ = measure([TextSpan(text: text)], width: 400, measurer: m)
            let s = m.cacheStatistics
            XCTAssertLessThanOrEqual(s.wordBytes, bound)
            XCTAssertEqual(s.wordByteCapacity, bound)
        }
        XCTAssertGreaterThan(m.cacheStatistics.wordEntries, 0)
        XCTAssertGreaterThan(m.cacheStatistics.wordBytes, 0)
        XCTAssertEqual(m.cacheStatistics.wordEntries, m.wordCacheCount)
    }

    // MARK: The budget

    /// A measurement under a budget that stops (a deadline, here) returns at once with a
    /// placeholder, and nothing of it is cached.
    func testBudgetStopsALongMeasurementAndNothingIsCached() throws {
        let m = try PangoTextMeasurer()
        let t = TextAttributes(spans: [TextSpan(text: String(repeating: "a", count: 60_000))], font: sans)
        let container = Size(width: 1e-6, height: .infinity)
        let budget = LayoutBudget(limits: .unlimited, seconds: 0.05)
        var memo = TextMeasurementMemo()
        let start = DispatchTime.now().uptimeNanoseconds
        let stopped = m.measure(t, in: container, memo: &memo, budget: budget)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        XCTAssertEqual(budget.stop, .deadlineExceeded)
        XCTAssertEqual(stopped.lineCount, 0)
        XCTAssertLessThan(seconds, 1)
        XCTAssertEqual(m.cacheStatistics.entries, 0)
        XCTAssertNil(memo.recent)

        // Stopped before it starts (cancelled): at once, and still nothing cached.
        let cancelled = LayoutBudget()
        cancelled.cancel()
        let plain = TextAttributes(spans: [TextSpan(text: "hello world")], font: sans)
        XCTAssertEqual(m.measure(plain, in: container, memo: &memo, budget: cancelled).lineCount, 0)
        XCTAssertEqual(m.cacheStatistics.entries, 0)

        // Without a budget (or within one) the answer is whole and cached.
        var fresh = TextMeasurementMemo()
        let answer = m.measure(plain, in: Size(width: 300, height: .infinity), memo: &fresh, budget: LayoutBudget())
        XCTAssertEqual(answer.lineCount, 1)
        XCTAssertEqual(m.cacheStatistics.entries, 1)
    }
}
