import XCTest
import LoomLayout
@testable import LoomText

/// Letter spacing as the browser adds it: once after each grapheme, none in a cursive
/// script's run. The expected counts are the characters (graphemes) the rules space, each
/// case seen in headless Chromium 156: the width grew by exactly the spacing per count.
final class LetterSpacingTests: XCTestCase {
    static let measurer: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)

    func width(_ text: String, spacing: Double, family: String = "Liberation Sans", size: Double = 14) -> Double {
        Self.measurer.measure(TextAttributes(spans: [TextSpan(text: text)],
                                             font: FontDescriptor(family: family, size: size),
                                             letterSpacing: spacing),
                              in: Size(width: .infinity, height: .infinity)).size.width
    }

    /// Beside Arabic (CursiveSpacing.swift): a digit, punctuation or emoji after an Arabic
    /// word is in that word's run (Liberation Sans 14, 2 px).
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

    /// Devanagari (through Noto Sans Devanagari): a vowel sign or nasal after its consonant is
    /// a glyph cluster of its own in Pango, inside the grapheme (PangoLineAnalysis.swift's
    /// restoreLetterSpacing); a conjunct with a half form is two graphemes to both, a
    /// ligature one; after a zero-width joiner or non-joiner a letter starts one for the
    /// browser only. Roboto 16, 4 px, alone and inside a line of Latin words.
    func testEachDevanagariGraphemeTakesOneSpacing() {
        let cases: [(String, Int)] = [
            ("ते", 1), ("मे", 1), ("दी", 1), ("हिं", 1), ("कि", 1), ("हिंदी", 2), ("स्ते", 2), ("नमस्ते", 4),
            ("धन्यवाद", 5), ("विद्यालय", 4), ("क्ष", 1), ("स्त्री", 2), ("क्\u{200D}ष", 2), ("क्\u{200C}ष", 2),
        ]
        for (text, count) in cases {
            for (before, after, extra) in [("", "", 0), ("a ", " b", 4), ("ab", "", 2), ("", "ab", 2)] {
                let line = before + text + after
                let grown = width(line, spacing: 4, family: "Roboto", size: 16) - width(line, spacing: 0, family: "Roboto", size: 16)
                XCTAssertEqual(grown, Double(4 * (count + extra)), accuracy: 0.05, line)
            }
        }
    }

    /// Thai SARA AM (ทำ) is inside its consonant's grapheme, though Pango's rules start one
    /// there (Noto Sans Thai through the chain; Noto Sans 14, 2 px).
    func testThaiSaraAmTakesNoSpacingOfItsOwn() {
        let cases: [(String, Int)] = [("ทำ", 1), ("กำ", 1), ("น้ำ", 1), ("สำหรับ", 4), ("ทำงานของ", 7), ("งาน", 3)]
        for (text, count) in cases {
            for (before, after, extra) in [("", "", 0), ("a ", " b", 4)] {
                let line = before + text + after
                let grown = width(line, spacing: 2, family: "Noto Sans") - width(line, spacing: 0, family: "Noto Sans")
                XCTAssertEqual(grown, Double(2 * (count + extra)), accuracy: 0.05, line)
            }
        }
    }

    /// Kana (through Noto Sans CJK): the break the browser allows before a small kana is
    /// marked without splitting Pango's item, so the pair keeps its kerning under letter
    /// spacing (ティ is kerned 1.19 px at 20 px: the spaced pair grows by two spacings only),
    /// and the line still breaks there.
    func testKanaKeepTheirKerningAndBreaksUnderLetterSpacing() throws {
        let kerned = width("ティ", spacing: 0, family: "Roboto", size: 20)
        XCTAssertLessThan(kerned, width("テ", spacing: 0, family: "Roboto", size: 20)
                          + width("ィ", spacing: 0, family: "Roboto", size: 20) - 1)
        XCTAssertEqual(width("ティ", spacing: 1, family: "Roboto", size: 20), kerned + 2, accuracy: 0.05)
        XCTAssertEqual(width("パーティー", spacing: 1, family: "Roboto", size: 20)
                       - width("パーティー", spacing: 0, family: "Roboto", size: 20), 5, accuracy: 0.05)
        // きき|っ: 17 px each at 16 px with 1 px, in 40 px (Pango alone would not break before っ).
        let attributes = TextAttributes(spans: [TextSpan(text: "ききっ")], font: FontDescriptor(family: "Roboto", size: 16),
                                        letterSpacing: 1)
        let lines = try XCTUnwrap(Self.measurer.lines(attributes, in: Size(width: 40, height: .infinity)))
        XCTAssertEqual(lines.lines.map(\.text), ["きき", "っ"])
    }

    /// The marks are bounded (each costs Pango a read from its item's start): a text with more
    /// break candidates than `maxBreakMarks` is patched with U+200B as without spacing, and
    /// measures the same as before the marks existed.
    func testBreakMarksAreBounded() {
        let few = TextPreparation.prepare([TextSpan(text: String(repeating: "ティ", count: 10))], letterSpaced: true)
        XCTAssertEqual(few.markedWords.count / 2, 10)
        XCTAssertFalse(few.inserted.contains(true))
        let many = String(repeating: "ティ", count: TextPreparation.maxBreakMarks + 1)
        let patched = TextPreparation.prepare([TextSpan(text: many)], letterSpaced: true)
        XCTAssertEqual(patched.markedWords.count, 0)
        XCTAssertEqual(patched.inserted.filter { $0 }.count, TextPreparation.maxBreakMarks + 1)
        XCTAssertEqual(patched.scalars, TextPreparation.prepare([TextSpan(text: many)]).scalars)
    }

    /// The same rule under a negative spacing and for text that never meets Arabic: nothing
    /// changes for Latin (every character spaced).
    func testLatinAndNegativeSpacing() {
        XCTAssertEqual(width("a9725 (b).", spacing: 1.5) - width("a9725 (b).", spacing: 0), 10 * 1.5, accuracy: 0.05)
        XCTAssertEqual(width("يقيس 9725", spacing: -1) - width("يقيس 9725", spacing: 0), -1, accuracy: 0.05)
    }
}
