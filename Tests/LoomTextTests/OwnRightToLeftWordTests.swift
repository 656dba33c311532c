import XCTest
import Foundation
import LoomLayout
import LoomText

/// Hebrew and Arabic words that the text's own family draws (Liberation Sans, Serif and Mono
/// have Hebrew; DejaVu Sans has Hebrew and Arabic), measured from words
/// (RightToLeftWords.swift's ownRightToLeftWord), must measure exactly as a Pango layout
/// measures them: widths, heights, line counts, truncation, baselines.
final class OwnRightToLeftWordTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    static let fonts = [
        FontDescriptor(family: "Liberation Sans", size: 16), FontDescriptor(family: "Liberation Sans", size: 13, weight: 700),
        FontDescriptor(family: "Liberation Sans", size: 15, italic: true), FontDescriptor(family: "Liberation Serif", size: 17),
        FontDescriptor(family: "Liberation Mono", size: 12), FontDescriptor(family: "DejaVu Sans", size: 14),
        FontDescriptor(family: "DejaVu Sans", size: 11, weight: 700), FontDescriptor(family: "Liberation Sans", size: 14.25),
    ]
    /// Words that leave the path to Pango or stay on it around own words: marks, digits,
    /// handles, punctuated Latin words, fallback words of other scripts.
    static let neighbours = ["·", "–", "7h", "4d", "12", "Old", "New", "The", "Avenue", "spec.", "ratio!", "(hi)",
                             "A.", "well-known"]

    static func randomCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        let pool = r.chance(0.7) ? RightToLeftWordTests.hebrew : RightToLeftWordTests.hebrew + RightToLeftWordTests.arabic
        let latinShare = r.pick([0.0, 0.2, 0.4, 0.6])
        let words = 1 + r.int(r.chance(0.5) ? 4 : 16)
        for k in 0..<words {
            if k > 0 { text += r.chance(0.92) ? " " : r.pick(["  ", "\n", " \n ", " · "]) }
            if r.chance(latinShare) {
                text += r.chance(0.2) ? r.pick(neighbours) : r.pick(WordPathTests.plainVocabulary)
            } else if r.chance(0.06) {
                text += r.pick(FallbackWordTests.emojiWords)
            } else if r.chance(0.05) {
                text += r.pick(RightToLeftWordTests.otherWords + FallbackWordTests.fallbackWords)
            } else {
                text += r.pick(pool)
            }
        }
        let font = r.pick(fonts)
        let lineHeight: Double? = r.chance(0.25) ? font.size * (1 + Double(r.int(8)) / 10) : nil
        let lines = r.chance(0.6) ? 0 : 1 + r.int(3)
        let mode = r.pick([TruncationMode.tail, .tail, .wordWrap, .head, .middle, .clip])
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font, lineHeight: lineHeight,
                                        lineSpacing: r.chance(0.2) ? 3 : 0, maximumNumberOfLines: lines,
                                        truncationMode: mode)
        let width: Double = r.chance(0.1) ? .infinity
            : Double(r.chance(0.3) ? 20 + r.int(80) : 50 + r.int(350)) + (r.chance(0.5) ? Double(r.int(64)) / 64 : 0)
        let height: Double = r.chance(0.85) ? .infinity : Double(10 + r.int(80))
        return (attributes, Size(width: width, height: height))
    }

    static var cases: Int { Int(ProcessInfo.processInfo.environment["LOOM_OWN_RTL_CASES"] ?? "") ?? 1500 }

    func testOwnRightToLeftWordsAgreeWithPango() {
        var r = Rng(state: UInt64(ProcessInfo.processInfo.environment["LOOM_OWN_RTL_SEED"] ?? "") ?? 4051)
        let measurer = WordPathTests.withWords
        var mismatches = 0, words = 0
        for index in 0..<Self.cases {
            let (text, size) = Self.randomCase(&r)
            let before = measurer.measurementPaths.fromWords
            let fast = measurer.measureUncached(text, in: size)
            if measurer.measurementPaths.fromWords > before { words += 1 }
            let slow = WordPathTests.pangoOnly.measureUncached(text, in: size)
            if fast != slow {
                mismatches += 1
                if mismatches <= 10 {
                    XCTFail("own rtl case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) lineHeight "
                            + "\(String(describing: text.lineHeight)) \(text.truncationMode) \(text.string.debugDescription): "
                            + "words \(fast) ≠ pango \(slow)")
                }
            }
        }
        XCTAssertEqual(mismatches, 0)
        print("own right-to-left words: \(words) of \(Self.cases) from words")
        // Most of them from words (the rest: marks and digits beside an own word, wrapping words …).
        XCTAssertGreaterThan(words, Self.cases / 3)
    }

    /// `שלום Old` in Liberation Sans 16 is measured from words, as wide as Pango's layout,
    /// wider than the two words measured alone (the space between them).
    func testHebrewNameUnderLiberationSans() {
        let font = FontDescriptor(family: "Liberation Sans", size: 16)
        let m = WordPathTests.withWords
        let wide = Size(width: 1000, height: .infinity)
        let text = TextAttributes(spans: [TextSpan(text: "שלום Old")], font: font)
        let before = m.measurementPaths.fromWords
        let both = m.measureUncached(text, in: wide)
        XCTAssertEqual(m.measurementPaths.fromWords, before + 1, "from words")
        XCTAssertEqual(both, WordPathTests.pangoOnly.measureUncached(text, in: wide))
        XCTAssertEqual(both.lineCount, 1)
        let hebrew = m.measureUncached(TextAttributes(spans: [TextSpan(text: "שלום")], font: font), in: wide)
        let old = m.measureUncached(TextAttributes(spans: [TextSpan(text: "Old")], font: font), in: wide)
        XCTAssertGreaterThan(both.size.width, hebrew.size.width + old.size.width)
    }

    /// Handles such as `مرحبا · 4h` and `ספר · 7h` (a mark, digits and letters after an Arabic
    /// or Hebrew word, RightToLeftWords.swift's rightToLeftHandle) in fonts without those
    /// scripts and with them, in either paragraph direction, with words before and after,
    /// other spacings and endings the path leaves to Pango.
    static func handleCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var parts: [String] = []
        let rtl = RightToLeftWordTests.arabic + RightToLeftWordTests.hebrew
        for _ in 0..<r.pick([0, 0, 1, 2]) {
            parts.append(r.chance(0.5) ? r.pick(WordPathTests.plainVocabulary) : r.pick(rtl))
        }
        parts.append(r.pick(rtl))
        let mark = r.pick(["·", "·", "·", "–", "•", "—"])
        let digits = String(1 + r.int(r.chance(0.7) ? 9 : 400))
        let tail = r.pick(["h", "h", "d", "m", "min", "w", "h.", "", "h!", "hé"])
        let spacing = r.chance(0.9) ? " " : r.pick(["  ", "\t"])
        parts.append(mark + spacing + digits + tail)
        for _ in 0..<r.pick([0, 0, 0, 1, 2]) {
            parts.append(r.chance(0.15) ? r.pick(FallbackWordTests.emojiWords)
                         : r.chance(0.5) ? r.pick(WordPathTests.plainVocabulary) : r.pick(rtl))
        }
        let text = parts.joined(separator: " ")
        let font = r.pick(WordPathTests.fonts + fonts)
        let lineHeight: Double? = r.chance(0.2) ? font.size * 1.4 : nil
        let lines = r.chance(0.7) ? 0 : 1 + r.int(2)
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font, lineHeight: lineHeight,
                                        maximumNumberOfLines: lines, truncationMode: r.pick([.tail, .wordWrap, .clip]))
        let width: Double = r.chance(0.2) ? .infinity
            : Double(20 + r.int(r.chance(0.5) ? 120 : 300)) + (r.chance(0.5) ? Double(r.int(64)) / 64 : 0)
        return (attributes, Size(width: width, height: .infinity))
    }

    func testHandlesAfterRightToLeftWordsAgreeWithPango() {
        var r = Rng(state: UInt64(ProcessInfo.processInfo.environment["LOOM_OWN_RTL_SEED"] ?? "") ?? 77)
        let measurer = WordPathTests.withWords
        var mismatches = 0, words = 0
        for index in 0..<Self.cases {
            let (text, size) = Self.handleCase(&r)
            let before = measurer.measurementPaths.fromWords
            let fast = measurer.measureUncached(text, in: size)
            if measurer.measurementPaths.fromWords > before { words += 1 }
            let slow = WordPathTests.pangoOnly.measureUncached(text, in: size)
            if fast != slow {
                mismatches += 1
                if mismatches <= 10 {
                    XCTFail("handle case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) "
                            + "\(text.string.debugDescription): words \(fast) ≠ pango \(slow)")
                }
            }
        }
        XCTAssertEqual(mismatches, 0)
        print("handles after right-to-left words: \(words) of \(Self.cases) from words")
        XCTAssertGreaterThan(words, Self.cases / 8)
    }

    /// `مرحبا · 4h` in Inter 15 is measured from words, as Pango measures it.
    func testArabicHandleFromWords() {
        let m = WordPathTests.withWords
        let text = TextAttributes(spans: [TextSpan(text: "مرحبا · 4h")], font: FontDescriptor(family: "Inter", size: 15))
        let wide = Size(width: 1000, height: .infinity)
        let before = m.measurementPaths.fromWords
        let handle = m.measureUncached(text, in: wide)
        XCTAssertEqual(m.measurementPaths.fromWords, before + 1, "from words")
        XCTAssertEqual(handle, WordPathTests.pangoOnly.measureUncached(text, in: wide))
        XCTAssertEqual(handle.lineCount, 1)
    }
}
