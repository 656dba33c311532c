import XCTest
import LoomLayout
import LoomText

/// A fallback font whose metrics Pango computes inside another font's (its sample text falls
/// back to it) gets an approximate character width of 0, the same on every fresh engine: not
/// a race. The measurer used to retry such a text on a fresh engine sixteen times (a feed of
/// 100 such texts ran into the deadline); it now stops when a retry under the metrics lock
/// is poisoned by the same font and language as the attempt before.
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

    func testADeterministicZeroIsRetriedOnceNotFifteenTimes() throws {
        let measurer = try PangoTextMeasurer()
        var retried = 0
        for (words, family, size, lines) in Self.cases {
            let before = measurer.engineCountCreated
            let text = words.map { Self.words[$0] }.joined(separator: " ")
            let attributes = TextAttributes(spans: [TextSpan(text: text)], font: FontDescriptor(family: family, size: size),
                                            maximumNumberOfLines: lines)
            let m = measurer.measure(attributes, in: Size(width: 375, height: .infinity))
            XCTAssertGreaterThan(m.lineCount, 0, "\(family) \(size)")
            let made = measurer.engineCountCreated - before
            // The first attempt may use an engine made before; a retry makes one, and a
            // poisoned engine is replaced for the next text: at most two per text.
            XCTAssertLessThanOrEqual(made, 2, "\(family) \(size): \(made) engines for one text")
            if made > 0 { retried += 1 }
        }
        // These texts do reach the retry (else this test would check nothing).
        XCTAssertGreaterThan(retried, 1)
    }
}
