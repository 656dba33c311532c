import XCTest
import Foundation
import LoomLayout
import LoomText

/// Paragraphs with Arabic and Hebrew words measured from words (RightToLeftWords.swift) must
/// measure exactly as a Pango layout measures them: widths, heights, line counts, baselines.
final class RightToLeftWordTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    /// Arabic words (joining forms, lam-alef ligatures, Persian letters) and Hebrew words,
    /// and words with right-to-left letters the path leaves to Pango (vowel marks, digits,
    /// punctuation, tatweel, a Latin letter).
    static let arabic = ["مرحبا", "بالعالم", "هذا", "نص", "عربي", "للاختبار", "الخادم", "كتاب", "لا", "السلام",
                         "مدرسة", "پژوهش", "گفتگو", "ب", "مستشفيات", "الاستقلالية"]
    static let hebrew = ["שלום", "עולם", "טקסט", "בעברית", "לבדיקה", "השרת", "ספר", "תודה", "א", "ירושלים"]
    static let otherWords = ["مَرْحَبًا", "٣٤٥", "نص،", "ـــ", "עולם.", "(שלום)", "abcمرحبا", "שלוםabc", "123"]
    static let latinEdges = ["spec.", "ratio!", "text,", "why?", "end;", "(hello", "(hi)", "\"quoted\"", "8h", "3d",
                             "don't", "it's.", "a1", "ab12", "well-known", "r.", "A."]

    static func randomCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        // Mostly one right-to-left script per text, sometimes both.
        let pool = r.chance(0.45) ? arabic : r.chance(0.8) ? hebrew : arabic + hebrew
        let latinShare = r.pick([0.0, 0.0, 0.2, 0.5])
        let words = 1 + r.int(r.chance(0.4) ? 4 : 20)
        for k in 0..<words {
            if k > 0 { text += r.chance(0.93) ? " " : r.pick(["  ", "\n", " \n "]) }
            if r.chance(latinShare) {
                text += r.chance(0.25) ? r.pick(latinEdges) : r.pick(WordPathTests.plainVocabulary)
            } else if r.chance(0.06) {
                text += r.pick(FallbackWordTests.emojiWords)
            } else if r.chance(0.03) {
                text += r.pick(otherWords + FallbackWordTests.fallbackWords)
            } else {
                text += r.pick(pool)
            }
        }
        let font = r.pick(WordPathTests.fonts + [FontDescriptor(family: "Noto Sans", size: 16),
                                                 FontDescriptor(family: "DejaVu Sans", size: 13, weight: 700)])
        let lineHeight: Double? = r.chance(0.3) ? font.size * (1 + Double(r.int(8)) / 10) : nil
        let lines = r.chance(0.6) ? 0 : 1 + r.int(3)
        let mode = r.pick([TruncationMode.tail, .tail, .wordWrap, .head, .clip])
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font, lineHeight: lineHeight,
                                        lineSpacing: r.chance(0.2) ? 3 : 0, maximumNumberOfLines: lines,
                                        truncationMode: mode)
        let width: Double = r.chance(0.1) ? .infinity
            : Double(r.chance(0.3) ? 20 + r.int(80) : 60 + r.int(400)) + (r.chance(0.5) ? Double(r.int(64)) / 64 : 0)
        let height: Double = r.chance(0.85) ? .infinity : Double(10 + r.int(80))
        return (attributes, Size(width: width, height: height))
    }

    func testRightToLeftWordsAgreeWithPango() {
        var r = Rng(state: UInt64(ProcessInfo.processInfo.environment["LOOM_RTL_SEED"] ?? "") ?? 2028)
        let before = WordPathTests.withWords.measurementPaths
        var mismatches = 0
        for index in 0..<Self.cases {
            let (text, size) = Self.randomCase(&r)
            let fast = WordPathTests.withWords.measureUncached(text, in: size)
            let slow = WordPathTests.pangoOnly.measureUncached(text, in: size)
            // Equal measurements: size, line count, truncation, ascender and descender.
            if fast != slow {
                mismatches += 1
                if mismatches <= 10 {
                    XCTFail("rtl case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) lineHeight "
                            + "\(String(describing: text.lineHeight)) \(text.truncationMode) \(text.string.debugDescription): "
                            + "words \(fast) ≠ pango \(slow)")
                }
            }
        }
        XCTAssertEqual(mismatches, 0)
        let after = WordPathTests.withWords.measurementPaths
        let words = after.fromWords - before.fromWords, layouts = after.fromLayout - before.fromLayout
        print("right-to-left words: \(words) from words, \(layouts) by Pango layout")
        // Both paths: most from words, the rest (truncated, marks, digits, wrapping words …) by Pango.
        XCTAssertGreaterThan(words, Self.cases / 3)
        XCTAssertGreaterThan(layouts, Self.cases / 20)
    }

    static var cases: Int { Int(ProcessInfo.processInfo.environment["LOOM_RTL_CASES"] ?? "") ?? 600 }

    /// Hebrew words under Roboto 16 from words: the line is the Hebrew words' advances in
    /// Noto Sans Hebrew plus Roboto's space, as wide as Pango's layout, on one line.
    /// A right-to-left paragraph cut after its third line whose ellipsis does not fit after
    /// that line: the line is fitted from a layout of its own words laid out with the
    /// paragraph's direction (right to left, though the line's first strong letter may be
    /// Latin), not the whole text by Pango; the same answer as Pango's, the ellipsis at the
    /// paragraph's (logical) end. Both directions of the line's start are covered.
    func testTruncatedRightToLeftParagraphIsFittedFromWords() {
        let m = WordPathTests.withWords
        let texts = [
            "טקסט short לבדיקה overlay 1️⃣ ספר node שלום spec 👋🏽 טקסט short לבדיקה short 1️⃣ ספר Avatar שלום train 👋🏽 "
                + "טקסט winter לבדיקה Train 1️⃣ ספר photo שלום coffee 👋🏽 טקסט",
            "مرحبا بالعالم hello هذا نص عربي للاختبار world الخادم كتاب السلام مدرسة again مرحبا بالعالم هذا نص عربي "
                + "للاختبار الخادم كتاب السلام spec مدرسة",
        ]
        var fromWords = 0, truncated = 0
        for text in texts {
            for (family, size) in [("Inter", 13.0), ("Roboto", 15.0), ("Liberation Sans", 14.0)] {
                for width in stride(from: 150.0, through: 343, by: 11.25) {
                    let attributes = TextAttributes(spans: [TextSpan(text: text)], font: FontDescriptor(family: family, size: size),
                                                    maximumNumberOfLines: 3, truncationMode: .tail)
                    let box = Size(width: width, height: .infinity)
                    let before = m.measurementPaths.fromWords
                    let fast = m.measureUncached(attributes, in: box)
                    fromWords += m.measurementPaths.fromWords - before
                    if fast.truncated { truncated += 1 }
                    XCTAssertEqual(fast, WordPathTests.pangoOnly.measureUncached(attributes, in: box), "\(family) \(size) at \(width)")
                }
            }
        }
        // Truncated nearly everywhere (90 of the 108), and from words nearly everywhere (109
        // measurements from words, 77 when every right-to-left line to fit went to Pango).
        XCTAssertGreaterThan(truncated, 80)
        XCTAssertGreaterThanOrEqual(fromWords, 100)
    }

    func testHebrewWordsFromWords() {
        let font = FontDescriptor(family: "Roboto", size: 16)
        let m = WordPathTests.withWords
        let before = m.measurementPaths
        let text = TextAttributes(spans: [TextSpan(text: "שלום עולם")], font: font)
        let wide = Size(width: 1000, height: .infinity)
        let both = m.measureUncached(text, in: wide)
        let first = m.measureUncached(TextAttributes(spans: [TextSpan(text: "שלום")], font: font), in: wide)
        let second = m.measureUncached(TextAttributes(spans: [TextSpan(text: "עולם")], font: font), in: wide)
        XCTAssertEqual(m.measurementPaths.fromWords, before.fromWords + 3, "all from words")
        XCTAssertEqual(both, WordPathTests.pangoOnly.measureUncached(text, in: wide))
        XCTAssertEqual(both.lineCount, 1)
        XCTAssertGreaterThan(both.size.width, first.size.width + second.size.width)
        // Narrower than both words: two lines, as Pango breaks them.
        let narrow = Size(width: both.size.width - 1, height: .infinity)
        XCTAssertEqual(m.measureUncached(text, in: narrow).lineCount, 2)
        XCTAssertEqual(m.measureUncached(text, in: narrow), WordPathTests.pangoOnly.measureUncached(text, in: narrow))
    }
}
