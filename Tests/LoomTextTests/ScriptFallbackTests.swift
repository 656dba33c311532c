import XCTest
import Foundation
import LoomLayout
import LoomText
import LoomTestSupport

/// Text in other scripts through the fallback chain (issue 20): widths and line heights
/// computed from the fallback fonts' files (HarfBuzz alone, no Pango), never from Loom.
final class ScriptFallbackTests: XCTestCase {
    static let shared: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)
    var measurer: PangoTextMeasurer { Self.shared }
    static let roboto = try! FontFileReader(ProjectFonts.robotoRegular)
    static let liberation = try! FontFileReader(ProjectFonts.sansRegular)

    func measure(_ text: String, family: String = "Roboto", size: Double = 16, width: Double = .infinity,
                 lineHeight: Double? = nil) -> TextMeasurement {
        measurer.measure(TextAttributes(spans: [TextSpan(text: text)], font: FontDescriptor(family: family, size: size),
                                        lineHeight: lineHeight),
                         in: Size(width: width, height: .infinity))
    }

    /// The normal line height of a line using the fonts `readers` (CSS: the largest rounded
    /// ascent plus the smaller half of the line gap above the baseline, the largest rest below).
    func lineHeight(_ readers: [FontFileReader], px: Double) -> Double {
        let above = readers.map { $0.roundedAscent(px: px) + ($0.roundedLineGap(px: px) / 2).rounded(.down) }.max()!
        let below = readers.map {
            $0.normalLineHeight(px: px) - $0.roundedAscent(px: px) - ($0.roundedLineGap(px: px) / 2).rounded(.down)
        }.max()!
        return above + below
    }

    func testIdeographsTakeNotoSansCJKAdvances() throws {
        let cjk = try FontFileReader(ProjectFonts.notoSansCJK, index: ProjectFonts.notoSansCJKSCIndex)
        let text = "你好世界你好世界"
        let m = measure(text)
        XCTAssertEqual(m.size.width, cjk.advance(text, px: 16), accuracy: 1e-3)
        XCTAssertGreaterThan(m.size.width, measure("abcdabcd").size.width)
        XCTAssertEqual(m.size.height, lineHeight([Self.roboto, cjk], px: 16))
        XCTAssertEqual(m.missingCodePoints, [])
        // Liberation Serif 12 with an ideograph: 18 px in headless Chromium 156.
        let serif = try FontFileReader(ProjectFonts.serifRegular)
        let mixed = measure("ab\u{4E2D}", family: "Liberation Serif", size: 12)
        XCTAssertEqual(mixed.size.height, lineHeight([serif, cjk], px: 12))
        XCTAssertEqual(mixed.size.height, 18)
    }

    func testColorEmojiAdvancesAreWholePixels() throws {
        let emoji = try FontFileReader(ProjectFonts.notoColorEmoji)
        let one = emoji.advance("\u{1F44B}", px: 16)
        XCTAssertNotEqual(one, one.rounded())   // 19.92: the browser draws 20
        XCTAssertEqual(measure("\u{1F44B}\u{1F44B}\u{1F44B}\u{1F44B}").size.width, 4 * one.rounded())
        // Sequences are one glyph of the emoji font: a ZWJ family, a flag, a skin tone, a keycap.
        for sequence in ["\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1EB}\u{1F1F7}", "\u{1F44D}\u{1F3FD}",
                         "1\u{FE0F}\u{20E3}", "1\u{20E3}"] {
            XCTAssertEqual(measure(sequence).size.width, one.rounded(), sequence.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
        // Emoji do not raise a Roboto line; they do raise a Liberation Sans one.
        XCTAssertEqual(measure("a\u{1F44B}").size.height, lineHeight([Self.roboto, emoji], px: 16))
        XCTAssertEqual(measure("a\u{1F44B}", family: "Liberation Sans").size.height,
                       lineHeight([Self.liberation, emoji], px: 16))
    }

    func testTextPresentationSelectorNeverPicksTheEmojiFont() throws {
        let emoji = try FontFileReader(ProjectFonts.notoColorEmoji)
        let text = measure("\u{2615}\u{FE0E}").size.width
        let color = measure("\u{2615}\u{FE0F}").size.width
        XCTAssertEqual(color, emoji.advance("\u{2615}", px: 16).rounded())
        XCTAssertNotEqual(text, color)
        XCTAssertGreaterThan(text, 0)
    }

    func testTextDefaultEmojiOnlyTheEmojiFontHasAreDrawnInColour() throws {
        // ❤ U+2764 and ✈ U+2708 are emoji of text presentation by default. No text font of the
        // chain has them, the emoji font (last in the list) does: Chromium draws them in colour,
        // whole pixels wide, where Pango's fallback without colour fonts took DejaVu Sans.
        let emoji = try FontFileReader(ProjectFonts.notoColorEmoji)
        let dejaVu = try FontFileReader(ProjectFonts.dejaVuSans)
        let inter = try FontFileReader(ProjectFonts.interRegular)
        let cjk = try FontFileReader(ProjectFonts.notoSansCJK, index: ProjectFonts.notoSansCJKSCIndex)
        for v: Unicode.Scalar in ["\u{2764}", "\u{2708}"] {
            XCTAssertFalse(Self.roboto.has(v))
            XCTAssertTrue(emoji.has(v) && dejaVu.has(v))
            let colour = emoji.advance(String(v), px: 16).rounded()
            XCTAssertNotEqual(colour, dejaVu.advance(String(v), px: 16), accuracy: 0.5)
            XCTAssertEqual(measure(String(v)).size.width, colour, "U+\(String(v.value, radix: 16))")
            XCTAssertEqual(measure("x\(v)").size.width, Self.roboto.advance("x", px: 16) + colour, accuracy: 1e-2)
            // The emoji font's ascent and descent count for a Liberation Sans line.
            XCTAssertEqual(measure("x\(v)", family: "Liberation Sans").size.height,
                           lineHeight([Self.liberation, emoji], px: 16))
        }
        // Where the family has it (Inter's ❤) or a text font before the emoji font does (Noto
        // Sans CJK SC's ♥), that font draws it, as in the browser.
        XCTAssertTrue(inter.has("\u{2764}"))
        XCTAssertEqual(measure("\u{2764}", family: "Inter").size.width, inter.advance("\u{2764}", px: 16), accuracy: 1e-2)
        XCTAssertTrue(cjk.has("\u{2665}") && !Self.roboto.has("\u{2665}"))
        XCTAssertEqual(measure("\u{2665}").size.width, cjk.advance("\u{2665}", px: 16), accuracy: 1e-2)
    }

    func testTextPresentationWithoutATextFontOfTheChainTakesTheBrowsersDefaultFont() throws {
        // Under U+FE0E with no text font of the list for it, Chromium takes its default font
        // (Times New Roman: Liberation Serif here) when that has it, else its system fallback
        // (DejaVu Sans). Chromium 156, Roboto 13: ☺︎ 13.28 px, its line 16 px; ❤︎ 10.91 px.
        let serif = try FontFileReader(ProjectFonts.serifRegular)
        let dejaVu = try FontFileReader(ProjectFonts.dejaVuSans)
        let smile = measure("\u{263A}\u{FE0E}", size: 13)
        XCTAssertTrue(serif.has("\u{263A}") && dejaVu.has("\u{263A}"))
        XCTAssertNotEqual(serif.advance("\u{263A}", px: 13), dejaVu.advance("\u{263A}", px: 13), accuracy: 0.1)
        XCTAssertEqual(smile.size.width, serif.advance("\u{263A}", px: 13), accuracy: 1e-2)
        XCTAssertEqual(smile.size.height, lineHeight([Self.roboto, serif], px: 13))
        XCTAssertEqual(smile.size.height, 16)
        XCTAssertFalse(serif.has("\u{2764}"))
        XCTAssertEqual(measure("\u{2764}\u{FE0E}", size: 13).size.width, dejaVu.advance("\u{2764}", px: 13), accuracy: 1e-2)
    }

    func testAHyphenAfterAHebrewLetterBreaksBeforeAHebrewLetter() throws {
        // Unicode 15.1's LB21a, as Chromium 156 breaks: `תל־` | `אביב` (maqaf, `-`, ‐, –), but
        // `תל־abc` stays whole; Pango's older rule breaks after none of them.
        let hebrew = try FontFileReader(ProjectFonts.notoSansHebrew)
        let second = hebrew.shapedAdvance("\u{05D0}\u{05D1}\u{05D9}\u{05D1}", px: 14)  // אביב
        let lineHeight = lineHeight([Self.roboto, hebrew], px: 14)
        for dash in ["\u{05BE}", "-", "\u{2010}", "\u{2013}"] {
            let text = "\u{05EA}\u{05DC}\(dash)\u{05D0}\u{05D1}\u{05D9}\u{05D1}"  // תל־אביב
            let first = measure("\u{05EA}\u{05DC}\(dash)", size: 14).size.width
            let whole = measure(text, size: 14).size.width
            XCTAssertLessThan(max(first, second), whole - 4)
            let m = measure(text, size: 14, width: whole - 1)
            let what = "U+\(String(dash.unicodeScalars.first!.value, radix: 16))"
            XCTAssertEqual(m.lineCount, 2, what)
            XCTAssertEqual(m.size.width, max(first, second), accuracy: 1e-2, what)
            XCTAssertEqual(m.size.height, 2 * lineHeight, what)
        }
        // Before a Latin word the maqaf keeps it: the first line holds more than `תל־`.
        let latin = "\u{05EA}\u{05DC}\u{05BE}abcd"
        let kept = measure(latin, size: 14, width: measure(latin, size: 14).size.width - 1)
        XCTAssertEqual(kept.lineCount, 2)
        XCTAssertGreaterThan(kept.size.width, measure("\u{05EA}\u{05DC}\u{05BE}", size: 14).size.width + 4)
    }

    func testArabicWordIsShapedWithJoiningForms() throws {
        let arabic = try FontFileReader(ProjectFonts.notoSansArabic)
        let word = "\u{0645}\u{0631}\u{062D}\u{0628}\u{0627}"  // مرحبا
        let m = measure(word)
        let shaped = arabic.shapedAdvance(word, px: 16)
        XCTAssertEqual(m.size.width, shaped, accuracy: 1e-2)
        XCTAssertNotEqual(shaped, arabic.advance(word, px: 16), accuracy: 1e-2)  // joining changes the advances
        XCTAssertEqual(m.size.height, lineHeight([Self.roboto, arabic], px: 16))
        // An explicit line height holds exactly.
        XCTAssertEqual(measure(word, lineHeight: 20).size.height, 20)
    }

    func testLongTextOfEmojiStaysLinear() {
        // 40 000 bytes of emoji sequences and words at a narrow width: laid out in windows,
        // each window looks only at its own clusters.
        let unit = "\u{1F44B}\u{1F3FD} word \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467} \u{4F60}\u{597D} "
        let text = String(repeating: unit, count: 40_000 / unit.utf8.count)
        let start = DispatchTime.now().uptimeNanoseconds
        let m = measure(text, width: 120)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        XCTAssertGreaterThan(m.lineCount, 500)
        XCTAssertLessThan(seconds, 20, "a long text of emoji took \(seconds) s")
    }

    func testAtMost64MissingCodePointsAreReported() {
        let text = String(String.UnicodeScalarView((0xF0000..<0xF0100).compactMap(Unicode.Scalar.init)))
        let m = measure(text)
        XCTAssertEqual(m.missingCodePoints.count, 64)
        XCTAssertEqual(m.missingCodePoints.first, 0xF0000)
        XCTAssertEqual(m.missingCodePoints.last, 0xF003F)
    }

    func testCharactersNoFontHasAreReported() {
        let m = measure("ok \u{0378} \u{10FFFD}\u{10FFFD} \u{1F600}")
        XCTAssertEqual(m.missingCodePoints, [0x378, 0x10FFFD])
        XCTAssertGreaterThan(m.size.width, 0)
        // Joiners and selectors draw nothing and are not missing.
        XCTAssertEqual(measure("a\u{200D}b\u{FE0F}c\u{200B}").missingCodePoints, [])
        // A cached answer carries them too.
        let cached = try! PangoTextMeasurer(cacheCapacity: 100)
        let attributes = TextAttributes(spans: [TextSpan(text: "\u{0378}x")], font: FontDescriptor(family: "Roboto", size: 16))
        XCTAssertEqual(cached.measure(attributes, in: .infinite).missingCodePoints, [0x378])
        XCTAssertEqual(cached.measure(attributes, in: .infinite).missingCodePoints, [0x378])
    }
}
