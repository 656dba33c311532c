import XCTest
import Foundation
import LoomLayout
import LoomText

/// Texts in mixed scripts that the word path now measures instead of a Pango layout of the
/// whole text (WordTruncation.swift, MixedSoftRules.swift, RightToLeftWords.swift's
/// openEdgeSplit) must measure exactly as Pango's layout measures them.
final class ColdScriptWordTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    /// `cases` texts of `make` measured from words and by Pango: every answer equal. Returns
    /// how many were answered from words, and how many of those were truncated.
    func agreement(seed: UInt64, cases: Int, _ kind: String,
                   _ make: (inout Rng) -> (TextAttributes, Size)) -> (words: Int, truncatedWords: Int) {
        var r = Rng(state: UInt64(ProcessInfo.processInfo.environment["LOOM_COLD_SEED"] ?? "") ?? seed)
        let measurer = WordPathTests.withWords
        var mismatches = 0, words = 0, truncatedWords = 0
        for index in 0..<cases {
            let (text, size) = make(&r)
            let before = measurer.measurementPaths.fromWords
            let fast = measurer.measureUncached(text, in: size)
            let fromWords = measurer.measurementPaths.fromWords > before
            let slow = WordPathTests.pangoOnly.measureUncached(text, in: size)
            if fromWords {
                words += 1
                if fast.truncated { truncatedWords += 1 }
            }
            if fast != slow {
                mismatches += 1
                if mismatches <= 10 {
                    XCTFail("\(kind) case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) "
                            + "\(text.truncationMode) \(text.string.debugDescription): words \(fast) ≠ pango \(slow)")
                }
            }
        }
        XCTAssertEqual(mismatches, 0)
        print("\(kind): \(words) of \(cases) from words, \(truncatedWords) of them truncated")
        return (words, truncatedWords)
    }

    static var cases: Int { Int(ProcessInfo.processInfo.environment["LOOM_COLD_CASES"] ?? "") ?? 300 }

    /// Paragraphs of Latin, fallback and emoji words cut after their first line, in a width
    /// that is exactly the first k words' (measured alone): the line is full, so the truncation
    /// text cannot simply follow it and is fitted grapheme by grapheme.
    static func truncatedCase(_ r: inout Rng) -> (TextAttributes, Size) {
        let latin = ["quick", "brown", "fox", "jumps", "over", "the", "lazy", "dog", "Layout", "Text", "river", "coffee"]
        var words: [String] = []
        for _ in 0..<(8 + r.int(12)) {
            words.append(r.chance(0.4) ? r.pick(FallbackWordTests.fallbackWords.dropLast())
                         : r.chance(0.1) ? r.pick(["😀", "🎉", "👋🏽", "🇫🇷", "❤️"]) : r.pick(latin))
        }
        let font = r.pick(WordPathTests.fonts)
        let k = 1 + r.int(5)
        let first = WordPathTests.pangoOnly.measureUncached(
            TextAttributes(spans: [TextSpan(text: words[..<k].joined(separator: " "))], font: font),
            in: Size(width: .infinity, height: .infinity))
        let attributes = TextAttributes(spans: [TextSpan(text: words.joined(separator: " "))], font: font,
                                        lineHeight: r.chance(0.5) ? font.size * 1.3 : nil, maximumNumberOfLines: 1,
                                        truncationMode: r.pick([.tail, .tail, .wordWrap, .head, .middle]),
                                        truncationText: r.chance(0.8) ? "…" : r.pick([" more", "...", "»"]))
        return (attributes, Size(width: first.size.width + 1.0 / 128, height: .infinity))
    }

    func testTruncatedFallbackTextsAgreeWithPango() {
        let (words, truncated) = agreement(seed: 3001, cases: Self.cases, "truncated", Self.truncatedCase)
        // Every text is truncated with the truncation text fitted into its full line; before,
        // each went to Pango. Most fonts and words here are the word path's.
        XCTAssertEqual(words, truncated)
        XCTAssertGreaterThan(words, Self.cases / 3)
    }

    /// Paragraphs in Inter (whose case-sensitive punctuation is a soft rule) mixing fallback and
    /// emoji words with Latin words that hold inputs of the rules (capitals, brackets, colons).
    static func softRuleCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        let softWords = ["(ABC)", "HTTP:", "A,", "T.", "Y!", "L?", "[x]", "(note)", "X", "AVATAR", "10:30", "3x4",
                         "(1)", "@Handle", "VAT", "-", "×", "e.g."]
        // A fallback word and a word with an input of the soft rules in every paragraph.
        let words = 2 + r.int(r.chance(0.3) ? 5 : 20)
        let soft = 1 + r.int(words - 1)
        for k in 0..<words {
            if k > 0 { text += " " }
            if k == 0 {
                text += r.pick(FallbackWordTests.fallbackWords.dropLast())
            } else if k == soft {
                text += r.pick(["dog.", "jugs!", "why?", "HTTP:", "(ABC)", "T."])
            } else if r.chance(0.3) {
                text += r.pick(FallbackWordTests.fallbackWords.dropLast())
            } else if r.chance(0.1) {
                text += r.pick(FallbackWordTests.emojiWords)
            } else if r.chance(0.3) {
                text += r.pick(softWords)
            } else {
                text += r.pick(WordPathTests.plainVocabulary)
            }
        }
        let font = r.pick([FontDescriptor(family: "Inter", size: 13), FontDescriptor(family: "Inter", size: 16, weight: 600),
                           FontDescriptor(family: "system", size: 17), FontDescriptor(family: "Inter", size: 12, weight: 700)])
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font,
                                        maximumNumberOfLines: r.chance(0.6) ? 0 : 1 + r.int(3))
        let width: Double = r.chance(0.15) ? .infinity : Double(40 + r.int(400)) + Double(r.int(64)) / 64
        return (attributes, Size(width: width, height: .infinity))
    }

    func testSoftRulesWithFallbackWordsAgreeWithPango() {
        let (words, _) = agreement(seed: 3002, cases: Self.cases, "soft rules", Self.softRuleCase)
        // Every text has a fallback word and an input of Inter's soft rules (. ! ? : and
        // brackets: its case-sensitive forms); before, each went to Pango (the rest still does:
        // marks, digits and words that wrap, as without soft rules).
        XCTAssertGreaterThan(words, Self.cases / 10)
    }

    /// Right-to-left paragraphs whose Latin words end in a mark before an Arabic or Hebrew
    /// word, a word of a left-to-right fallback script, an emoji, or the paragraph's end.
    static func openEdgeCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = r.pick(RightToLeftWordTests.arabic + RightToLeftWordTests.hebrew)
        let edges = ["spec.", "ratio!", "text,", "why?", "end;", "note:", "lazy.", "Today.", "(hi)", "A.", "r.",
                     "it's.", "ok?!", "tea\"", "8h", "2026."]
        let words = r.int(r.chance(0.3) ? 4 : 18)
        for _ in 0..<words {
            text += " "
            if r.chance(0.35) {
                text += r.pick(edges)
            } else if r.chance(0.3) {
                text += r.pick(r.chance(0.5) ? RightToLeftWordTests.arabic : RightToLeftWordTests.hebrew)
            } else if r.chance(0.15) {
                text += r.pick(FallbackWordTests.fallbackWords.dropLast())
            } else if r.chance(0.1) {
                text += r.pick(FallbackWordTests.emojiWords)
            } else {
                text += r.pick(WordPathTests.plainVocabulary)
            }
        }
        // The paragraph ends with a Latin word and a mark.
        text += " " + r.pick(["spec.", "ratio!", "text,", "why?", "end;", "note:", "Today."])
        let font = r.pick(WordPathTests.fonts + [FontDescriptor(family: "Noto Sans", size: 16)])
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font,
                                        lineHeight: r.chance(0.3) ? font.size * 1.4 : nil,
                                        maximumNumberOfLines: r.chance(0.6) ? 0 : 1 + r.int(3),
                                        truncationMode: r.pick([.tail, .wordWrap, .clip]))
        let width: Double = r.chance(0.15) ? .infinity : Double(40 + r.int(400)) + Double(r.int(64)) / 64
        return (attributes, Size(width: width, height: .infinity))
    }

    /// Fallback words followed by Latin words that start with a letter kerned after a space
    /// in some faces (Liberation Sans: " A", " T", " Y"): the space, an item of its own after
    /// the fallback word, is measured alone.
    static func kernedSpaceCase(_ r: inout Rng) -> (TextAttributes, Size) {
        let latin = ["Amazing", "Tomorrow", "Yesterday", "Again", "Very", "Winter", "Train", "Avatar", "quick", "Over"]
        var words: [String] = []
        for k in 0..<(1 + r.int(10)) {
            words.append(k % 2 == 0 ? r.pick(FallbackWordTests.fallbackWords.dropLast()) : r.pick(latin))
        }
        let font = r.pick(WordPathTests.fonts + [FontDescriptor(family: "Liberation Sans", size: 17, weight: 600),
                                                 FontDescriptor(family: "Liberation Sans", size: 15)])
        let attributes = TextAttributes(spans: [TextSpan(text: words.joined(separator: " "))], font: font,
                                        lineHeight: r.chance(0.3) ? font.size * 1.4 : nil,
                                        maximumNumberOfLines: r.chance(0.6) ? 0 : 1 + r.int(3),
                                        truncationMode: r.pick([.tail, .wordWrap, .clip]))
        let width: Double = r.chance(0.2) ? .infinity : Double(40 + r.int(400)) + Double(r.int(64)) / 64
        return (attributes, Size(width: width, height: .infinity))
    }

    func testSpaceAfterAFallbackWordIsMeasuredAlone() {
        let (words, _) = agreement(seed: 4004, cases: Self.cases, "kerned spaces", Self.kernedSpaceCase)
        XCTAssertGreaterThan(words, Self.cases / 5)
    }

    func testOpenEdgesInRightToLeftParagraphsAgreeWithPango() {
        let (words, _) = agreement(seed: 3003, cases: Self.cases, "open edges", Self.openEdgeCase)
        // Every paragraph ends with a Latin word and a mark; before, each went to Pango.
        XCTAssertGreaterThan(words, Self.cases / 5)
    }
}
