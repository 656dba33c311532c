import XCTest
import LoomLayout
import LoomText

/// Letter spacing beside Arabic (CursiveSpacing.swift): the browser spaces no character of
/// a cursive script's run, and a digit, punctuation or emoji after an Arabic word is in that
/// run. The expected counts are the characters the rule spaces, each case seen in headless
/// Chromium 156 (Liberation Sans 14, 2 px: the width grew by exactly 2 px per count).
final class CursiveSpacingTests: XCTestCase {
    static let measurer: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)

    func width(_ text: String, spacing: Double) -> Double {
        Self.measurer.measure(TextAttributes(spans: [TextSpan(text: text)],
                                             font: FontDescriptor(family: "Liberation Sans", size: 14),
                                             letterSpacing: spacing),
                              in: Size(width: .infinity, height: .infinity)).size.width
    }

    func testCharactersInAnArabicRunTakeNoLetterSpacing() {
        let cases: [(String, Int)] = [
            ("يقيس 9725", 1),              // the space only: the digits follow an Arabic word
            ("9725 يقيس", 1),              // digits before the first letter take its script
            ("يقيس 9725 abc", 5),          // the two spaces, a, b and c (a Latin letter starts a run)
            ("abc يقيس 9725", 5),          // a, b, c and the two spaces
            ("abc يقيس 9725 def", 9),
            ("abc 9725 يقيس", 9),          // digits after a Latin word are in its run
            ("يقيس، السلام.", 1),          // the Arabic comma and the full stop are in the Arabic run
            ("يقيس -abc", 4),              // the space, a, b, c; not the hyphen
            ("يقيس (abc)", 4),             // the brackets opened in the Arabic run
            ("abc (يقيس)", 6),             // the brackets opened in the Latin run: a, b, c, space, ( and )
            ("«يقيس»", 0),
            ("يقيس 中文", 3),               // Han is a run of its own
            ("يقيس 😀", 1),                // an emoji is of the Common script
            ("שלום, 9725.", 11),           // Hebrew letters join nothing: every character
            ("abc ١٢٣", 4),                // Arabic-Indic digits are Arabic letters' script
        ]
        for (text, count) in cases {
            let grown = width(text, spacing: 2) - width(text, spacing: 0)
            XCTAssertEqual(grown, Double(2 * count), accuracy: 0.05, text)
        }
    }

    /// The same rule under a negative spacing and for text that never meets Arabic: nothing
    /// changes for Latin (every character spaced).
    func testLatinAndNegativeSpacing() {
        XCTAssertEqual(width("a9725 (b).", spacing: 1.5) - width("a9725 (b).", spacing: 0), 10 * 1.5, accuracy: 0.05)
        XCTAssertEqual(width("يقيس 9725", spacing: -1) - width("يقيس 9725", spacing: 0), -1, accuracy: 0.05)
    }
}
