import XCTest
import LoomLayout
import LoomText

/// A tail-truncated line with right-to-left text hides graphemes at its visual end, as the
/// browser does (VisualTruncation.swift): the right edge of a left-to-right paragraph, the
/// left edge of a right-to-left one. Widths from Liberation Sans' own advances (no kerning
/// between these letters): the line's graphemes less the hidden ones, plus the ellipsis.
/// The cases are the ones seen in headless Chromium 156 (the comments give its widths).
final class VisualTruncationTests: XCTestCase {
    static let measurer: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)
    static let font = try! FontFileReader(ProjectFonts.sansRegular)

    func width(_ text: String, in container: Double) -> Double {
        Self.measurer.measure(TextAttributes(spans: [TextSpan(text: text)],
                                             font: FontDescriptor(family: "Liberation Sans", size: 16),
                                             maximumNumberOfLines: 1, truncationMode: .tail),
                              in: Size(width: container, height: .infinity)).size.width
    }

    func px(_ s: String) -> Double { Self.font.advance(s, px: 16) }

    func testLeftToRightParagraphHidesWhatIsDrawnRightmost() {
        // "abc אבגד" is drawn "abc דגבא": its Hebrew word's first letter is rightmost.
        let line = px("abc ") + px("אבגד"), ellipsis = px("…")
        XCTAssertGreaterThan(line + ellipsis, 80)
        // 80 px: א goes (Chromium: 55.453 + 16); logically the last letter, ד, would.
        XCTAssertEqual(width("abc אבגד הוזחטי", in: 80), line - px("א") + ellipsis, accuracy: 0.01)
        XCTAssertGreaterThan(abs((line - px("ד")) - (line - px("א"))), 1)
        // 70 px: א and ב (Chromium: 45.891 + 16).
        XCTAssertEqual(width("abc אבגד הוזחטי", in: 70), line - px("אב") + ellipsis, accuracy: 0.01)
        // A line of one direction keeps its logical order: "abc de" at 60 px keeps "abc d".
        XCTAssertGreaterThan(px("abc de") + ellipsis, 60)
        XCTAssertEqual(width("abc de fghij", in: 60), px("abc d") + ellipsis, accuracy: 0.05)
    }

    func testRightToLeftParagraphHidesWhatIsDrawnLeftmost() {
        // "אבגד abc" in a right-to-left paragraph is drawn "abc דגבא": the a is leftmost.
        let line = px("אבגד ") + px("abc"), ellipsis = px("…")
        // 80 px: the a goes (Chromium: 56.594 + 16), not the c.
        XCTAssertEqual(width("אבגד abc defgh", in: 80), line - px("a") + ellipsis, accuracy: 0.01)
        XCTAssertGreaterThan(abs(px("a") - px("c")), 0.5)
        // 70 px: a and b (Chromium: 47.703 + 16).
        XCTAssertEqual(width("אבגד abc defgh", in: 70), line - px("ab") + ellipsis, accuracy: 0.01)
    }

    /// The text drawn (`includeText`'s lines) keeps the same graphemes, in logical order.
    func testTheTruncatedLineKeepsTheSameGraphemes() throws {
        let attributes = TextAttributes(spans: [TextSpan(text: "abc אבגד הוזחטי")],
                                        font: FontDescriptor(family: "Liberation Sans", size: 16),
                                        maximumNumberOfLines: 1, truncationMode: .tail)
        let lines = try XCTUnwrap(Self.measurer.lines(attributes, in: Size(width: 80, height: .infinity)))
        XCTAssertEqual(lines.lines.first?.text, "abc בגד…")
        XCTAssertEqual(lines.lines.first?.width ?? 0, width("abc אבגד הוזחטי", in: 80), accuracy: 1e-9)
    }
}

/// An ellipsis that fits exactly (EllipsisTies.swift): Chromium's advances for a font of
/// 1,000 units per em are FreeType's, scaled by a rounded 16.16 factor. Four ideographs of
/// Noto Sans CJK (1,000 units each) and Liberation Sans' one-em ellipsis in exactly five ems:
/// where the factor rounds up (12, 13, 15, 16 px) the fourth ideograph goes, where it rounds
/// down (14, 17, 18, 20 px) it stays. Seen in headless Chromium 156 at 12 (48.016 px for the
/// four: kept 36.016 + 12), 14, 17.
final class EllipsisTieTests: XCTestCase {
    /// FreeType's advance of 1,000 units at `px` (`FT_DivFix`, then `FT_MulDiv` by 64), in px.
    static func freeTypeAdvance(px: Double) -> Double {
        let scale = ((px * 64 * 65536 + 500) / 1000).rounded(.down)
        return ((1000 * scale + 32) / 64).rounded(.down) / 65536
    }

    func testAnExactFitFailsWhereTheBrowsersAdvancesAreWider() {
        let measurer = VisualTruncationTests.measurer
        for px in [12.0, 13, 14, 15, 16, 17, 18, 20] {
            let wider = Self.freeTypeAdvance(px: px) > px
            let m = measurer.measure(TextAttributes(spans: [TextSpan(text: "仕事駅友達」、")],
                                                    font: FontDescriptor(family: "Liberation Sans", size: px),
                                                    maximumNumberOfLines: 1, truncationMode: .tail),
                                     in: Size(width: 5 * px, height: .infinity))
            // The line is the four ideographs (」、 go with 達 to the next line), the ellipsis one em.
            XCTAssertEqual(m.size.width, wider ? 4 * px : 5 * px, accuracy: 1e-6, "\(px) px")
        }
        // At a width just over, it fits at every size.
        let m = measurer.measure(TextAttributes(spans: [TextSpan(text: "仕事駅友達」、")],
                                                font: FontDescriptor(family: "Liberation Sans", size: 12),
                                                maximumNumberOfLines: 1, truncationMode: .tail),
                                 in: Size(width: 60.5, height: .infinity))
        XCTAssertEqual(m.size.width, 60, accuracy: 1e-6)
    }
}
