import XCTest
import LoomLayout
import LoomText

/// A node measured unbounded, then in a height between its answer's and the one it was
/// measured in (a stack giving a text its own height), is answered from its memo, truncated
/// or not: the answer must be exactly a fresh one (Pango's path and the word path alike).
final class MemoHeightTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    static func text(_ r: inout Rng) -> TextAttributes {
        let latin = ["quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog.", "Layout", "Text", "river", "(coffee)"]
        var words: [String] = []
        for _ in 0..<(1 + r.int(30)) {
            words.append(r.chance(0.3) ? r.pick(FallbackWordTests.fallbackWords)
                         : r.chance(0.15) ? r.pick(RightToLeftWordTests.arabic + RightToLeftWordTests.hebrew)
                         : r.chance(0.1) ? r.pick(FallbackWordTests.emojiWords)
                         : r.chance(0.05) ? r.pick(["·", "4h", "—", "\n"]) : r.pick(latin))
        }
        let font = r.pick(WordPathTests.fonts)
        return TextAttributes(spans: [TextSpan(text: words.joined(separator: " "))], font: font,
                              lineHeight: r.chance(0.3) ? font.size * 1.4 : nil,
                              lineSpacing: r.chance(0.3) ? Double(r.int(4)) : 0,
                              letterSpacing: r.chance(0.15) ? 0.5 : 0,
                              maximumNumberOfLines: r.pick([0, 1, 2, 3, 3]),
                              truncationMode: r.pick([.tail, .tail, .wordWrap, .head, .middle, .clip]))
    }

    func testTruncatedAnswersInTheirOwnHeightAreFreshAnswers() {
        var r = Rng(state: 4001)
        // Cached answers off: only the memo can answer the second measurement.
        let measurer = try! PangoTextMeasurer(cacheCapacity: 0)
        var fromMemo = 0, truncatedFromMemo = 0
        for index in 0..<250 {
            let attributes = Self.text(&r)
            let width = r.pick([Double.infinity, 343, 200, 120, 77.5])
            let first = Size(width: width, height: r.chance(0.7) ? .infinity : Double(20 + r.int(120)))
            var memo = TextMeasurementMemo()
            memo.claim(for: measurer)
            let answer = measurer.measure(attributes, in: first, memo: &memo)
            XCTAssertEqual(answer, measurer.measureUncached(attributes, in: first), "#\(index)")
            let h = answer.size.height
            // The answer's own height, a little more, halfway to the first height, and just
            // under the answer's (not from the memo: one line fewer may fit).
            for height in [h, h + 0.25, first.height.isFinite ? (h + first.height) / 2 : h + 1000, max(0, h - 0.01)] {
                let container = Size(width: width, height: height)
                var copy = memo
                let before = measurer.measurementPaths.fromWords + measurer.measurementPaths.fromLayout
                let got = measurer.measure(attributes, in: container, memo: &copy)
                let measured = measurer.measurementPaths.fromWords + measurer.measurementPaths.fromLayout > before
                let fresh = measurer.measureUncached(attributes, in: container)
                XCTAssertEqual(got, fresh, "#\(index) \(attributes.string.debugDescription) in \(width)×\(height)")
                if !measured && height <= first.height && height >= h {
                    fromMemo += 1
                    if answer.truncated { truncatedFromMemo += 1 }
                }
            }
        }
        print("memo answered \(fromMemo), \(truncatedFromMemo) of them truncated")
        XCTAssertGreaterThan(fromMemo, 300)
        XCTAssertGreaterThan(truncatedFromMemo, 100)
    }
}
