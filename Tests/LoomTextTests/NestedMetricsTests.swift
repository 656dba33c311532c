import XCTest
import LoomLayout
import LoomText

/// A fallback font whose metrics Pango computes inside another font's (its sample text falls
/// back to it) gets an approximate character width of 0, the same on every fresh engine: not
/// a race. The measurer used to retry such a text on a fresh engine (sixteen times at first,
/// then twice, each fresh engine loading its fonts again: a feed of such texts ran 100 times
/// slower cold); the engine is now healed in place (the font forgets the 0, computed again by
/// the retry) and kept.
final class NestedMetricsTests: XCTestCase {
    static let words = ["1️⃣", "again", "long", "spec", "weekend", "ちょっと", "コーヒー", "サーバー", "東京", "👋🏽"]
    /// Texts of a mixed-scripts feed (words by index, family, size, maximum lines), in order:
    /// the first poisons every fresh engine through "Noto Sans CJK JP 15".
    static let cases: [([Int], String, Double, Int)] = [
        ([7, 3, 6, 0, 2, 7, 5, 5, 9, 4, 0, 6, 1, 8, 8, 9, 5, 6, 7, 9, 9, 0, 8, 7, 8], "DejaVu Sans", 15, 0),
        ([6, 2, 0, 0, 9, 8, 8, 8, 7, 5, 9, 8, 5, 5, 6, 1, 9, 9, 7, 4, 3, 7, 7, 6, 0], "Noto Sans", 14, 3),
        ([0, 1, 6, 7, 3, 8, 6, 2, 7, 8, 0, 0, 5, 9, 4, 6, 9, 8, 5, 7, 9, 8, 7, 5, 9], "Inter", 15, 3),
        ([7, 6, 0, 7, 5, 1, 2, 9, 8, 5, 6, 4, 9, 5, 7, 7, 8, 8, 8, 0, 3, 9, 9, 0, 6], "Inter", 16, 0),
        ([8, 7, 1, 7, 7, 9, 9, 8, 7, 3, 9, 9, 6, 0, 0, 4, 8, 6, 6, 5, 8, 0, 5, 5, 2], "Liberation Sans", 15, 2),
        ([4, 7, 7, 9, 7, 9, 7, 5, 8, 9, 2, 1, 5, 0, 5, 6, 8, 0, 6, 0, 8, 9, 6, 3, 8], "Inter", 16, 0),
        ([0, 6, 9, 7, 8, 5, 3, 7, 0, 7, 6, 0, 5, 8, 7, 6, 9, 2, 9, 5, 8, 8, 1, 4, 9], "Liberation Sans", 13, 2),
        ([6, 0, 7, 3, 2, 0, 0, 8, 9, 5, 9, 6, 9, 1, 5, 7, 7, 9, 6, 4, 7, 8, 8, 8, 5], "Liberation Sans", 14, 0),
        ([9, 0, 7, 3, 9, 8, 0, 8, 6, 7, 5, 7, 8, 0, 9, 8, 5, 9, 7, 5, 1, 2, 6, 6, 4], "DejaVu Sans", 13, 0),
        ([4, 5, 6, 8, 8, 7, 9, 0, 0, 6, 7, 9, 3, 8, 0, 1, 7, 8, 5, 9, 7, 5, 2, 9, 6], "Roboto", 16, 2),
        ([6, 9, 6, 5, 9, 0, 9, 3, 7, 7, 2, 6, 0, 9, 1, 8, 7, 8, 5, 8, 8, 7, 4, 5, 0], "Roboto", 12, 3),
        ([8, 9, 7, 4, 5, 9, 5, 7, 2, 6, 6, 1, 0, 8, 6, 9, 8, 7, 0, 3, 7, 9, 0, 5, 8], "DejaVu Sans", 16, 3),
        ([0, 6, 8, 8, 5, 7, 7, 0, 8, 9, 9, 9, 5, 5, 4, 2, 7, 6, 3, 0, 1, 7, 8, 9, 6], "Noto Sans", 16, 3),
        ([7, 8, 9, 3, 4, 8, 6, 7, 6, 5, 8, 5, 8, 0, 0, 7, 7, 9, 2, 9, 9, 5, 0, 6, 1], "DejaVu Sans", 14, 0),
        ([0, 5, 4, 9, 1, 9, 8, 5, 8, 6, 7, 6, 9, 9, 7, 7, 2, 8, 6, 8, 7, 5, 3, 0, 0], "Inter", 12, 3),
        ([7, 7, 9, 5, 9, 1, 8, 9, 7, 0, 9, 7, 6, 8, 8, 5, 8, 2, 0, 5, 4, 0, 6, 6, 3], "Roboto", 15, 3),
        ([9, 8, 7, 9, 5, 1, 7, 5, 3, 0, 0, 6, 4, 8, 8, 9, 0, 9, 8, 2, 6, 6, 5, 7, 7], "Noto Sans", 15, 3),
        ([4, 5, 8, 9, 0, 9, 7, 9, 8, 2, 9, 7, 6, 6, 8, 5, 0, 0, 6, 7, 3, 5, 1, 7, 8], "Roboto", 16, 2),
        ([8, 5, 2, 3, 7, 6, 9, 8, 9, 8, 0, 0, 6, 5, 7, 7, 4, 8, 7, 1, 6, 0, 5, 9, 9], "Roboto", 14, 1),
        ([8, 8, 7, 7, 3, 2, 8, 9, 7, 4, 6, 5, 0, 8, 9, 7, 0, 6, 9, 9, 5, 0, 5, 1, 6], "Liberation Sans", 14, 3)
    ]

    /// The truncation text is " more", wider than an emoji or a kana word: a truncated last
    /// line is then fitted by a layout of its words (WordTruncation.swift), where Pango
    /// computes the fallback fonts' metrics, rather than from its last word alone.
    static func attributes(_ c: ([Int], String, Double, Int)) -> TextAttributes {
        let text = c.0.map { words[$0] }.joined(separator: " ")
        return TextAttributes(spans: [TextSpan(text: text)], font: FontDescriptor(family: c.1, size: c.2),
                              maximumNumberOfLines: c.3, truncationText: " more")
    }

    func testASpoiledEngineIsHealedNotReplacedAndItsAnswersDoNotDependOnOrder() throws {
        let measurer = try PangoTextMeasurer()
        let box = Size(width: 375, height: .infinity)
        let first = Self.cases.map { measurer.measure(Self.attributes($0), in: box) }
        // These texts do spoil fonts' metrics (else this test would check nothing) ...
        XCTAssertGreaterThan(measurer.enginesHealed, 0)
        // ... and one thread measuring them needs one engine: the spoiled one is healed and
        // kept (the fresh engine of each retry made more).
        XCTAssertEqual(measurer.engineCountCreated, 1)
        for (c, m) in zip(Self.cases, first) { XCTAssertGreaterThan(m.lineCount, 0, "\(c.1) \(c.2)") }

        // The healed answers are the answers of an engine whose fonts' metrics are complete:
        // the same texts again on the healed engine (caches emptied), and in the reverse
        // order on a fresh measurer (other fonts spoiled first, or none).
        measurer.clearCache()
        measurer.clearWordCache()
        let again = Self.cases.map { measurer.measure(Self.attributes($0), in: box) }
        let reversed = try PangoTextMeasurer()
        let backwards = Self.cases.reversed().map { reversed.measure(Self.attributes($0), in: box) }.reversed()
        for (i, (m, (n, o))) in zip(first, zip(again, backwards)).enumerated() {
            XCTAssertEqual(m, n, "case \(i), again")
            XCTAssertEqual(m, o, "case \(i), reversed")
        }
    }
}
