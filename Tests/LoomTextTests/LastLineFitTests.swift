import XCTest
import Foundation
import LoomLayout
import LoomText

/// A truncated text's last visible line whose last word is a CJK fallback word (or a piece of
/// one), an emoji word or a word of ASCII letters is fitted to its truncation text from that word's own shaping, with
/// no layout of the line (WordTruncation.swift, `fittedFromLastWord`). The answers must be
/// exactly a Pango layout's, and the widths those the font files give.
final class LastLineFitTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    static let ideographs = Array("我们的世界很大今天天气学习工作朋友时间布局文本东京日本语数据库系统")
    static let kana = ["ちょっと", "すし", "カタカナ", "ラーメン", "コーヒー", "サーバー", "データ", "テスト", "ひらがな"]
    static let hangul = ["안녕하세요", "오늘", "날씨", "한국어", "공부", "서버", "데이터", "친구"]
    static let emoji = ["😀", "🎉", "☕", "❤️", "👋🏽", "🇫🇷", "👨‍👩‍👧", "✨"]

    /// Paragraphs of Latin words, runs of ideographs without spaces (cut between ideographs),
    /// kana and Hangul words and emoji words, cut after one to three lines at the tail, in
    /// boxes from a few ideographs wide.
    static func randomCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        for k in 0..<(2 + r.int(14)) {
            if k > 0 { text += " " }
            if r.chance(0.35) {
                text += String((0..<(1 + r.int(r.chance(0.5) ? 4 : 30))).map { _ in r.pick(ideographs) })
            } else if r.chance(0.15) {
                text += r.pick(kana)
            } else if r.chance(0.12) {
                text += r.pick(hangul)
            } else if r.chance(0.3) {
                text += r.pick(emoji)
            } else {
                text += r.pick(WordPathTests.plainVocabulary)
            }
        }
        let font = r.pick(WordPathTests.fonts)
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font,
                                        lineHeight: r.chance(0.2) ? font.size * 1.5 : nil,
                                        maximumNumberOfLines: 1 + r.int(3),
                                        truncationMode: r.pick([.tail, .tail, .wordWrap]),
                                        truncationText: r.chance(0.1) ? "…more" : "…")
        let width = Double(3 * Int(font.size) + r.int(300)) + (r.chance(0.5) ? Double(r.int(64)) / 64 : 0)
        return (attributes, Size(width: width, height: .infinity))
    }

    /// A feed's texts: Latin words with a fallback or emoji word now and then, so that most
    /// cut lines end with a Latin word (few need fitting: a line broken at a space mostly
    /// leaves room for the ellipsis; about one in 25 here).
    static func randomLatinCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var (attributes, size) = randomCase(&r)
        var text = ""
        for k in 0..<(4 + r.int(20)) {
            if k > 0 { text += " " }
            text += r.chance(0.15) ? r.pick(emoji + kana + hangul) : r.pick(WordPathTests.plainVocabulary)
        }
        attributes.spans = [TextSpan(text: text)]
        size.width = Double(60 + r.int(300)) + Double(r.int(64)) / 64
        return (attributes, size)
    }

    func testTruncatedLinesEndingInCJKOrEmojiAgreeWithPango() {
        assertAgreement(seed: 4242, cases: 700, minFitted: 100, Self.randomCase)
    }

    func testTruncatedLinesEndingInLatinWordsAgreeWithPango() {
        assertAgreement(seed: 77, cases: 500, minFitted: 5, Self.randomLatinCase)
    }

    /// `cases` texts of `make` measured from words and by Pango's layout must agree, more than
    /// `minFitted` of them with a last line fitted from its last word.
    func assertAgreement(seed: UInt64, cases: Int, minFitted: Int, _ make: (inout Rng) -> (TextAttributes, Size)) {
        var r = Rng(state: seed)
        let measurer = WordPathTests.withWords
        let fittedBefore = measurer.lastLinesFittedFromWords
        var mismatches = 0
        for index in 0..<cases {
            let (text, size) = make(&r)
            let fast = measurer.measureUncached(text, in: size)
            let slow = WordPathTests.pangoOnly.measureUncached(text, in: size)
            guard fast != slow else { continue }
            mismatches += 1
            if mismatches <= 10 {
                XCTFail("case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) \(text.truncationMode) "
                        + "\(text.string.debugDescription): words \(fast) ≠ pango \(slow)")
            }
        }
        XCTAssertEqual(mismatches, 0)
        let fitted = measurer.lastLinesFittedFromWords - fittedBefore
        print("last lines fitted from their last word: \(fitted) of \(cases) texts")
        XCTAssertGreaterThan(fitted, minFitted)
    }

    /// One line of ideographs cut at the tail: it keeps the most ideographs (a full em each in
    /// Noto Sans CJK) that fit with Roboto's ellipsis, which is then the line's width.
    func testCutIdeographsKeepWhatFitsWithTheEllipsis() throws {
        let cjk = try FontFileReader(ProjectFonts.notoSansCJK, index: ProjectFonts.notoSansCJKSCIndex)
        let roboto = try FontFileReader(ProjectFonts.robotoRegular)
        let text = "我们的世界很大今天天气学习工作朋友时间"
        let measurer = WordPathTests.withWords
        let before = measurer.lastLinesFittedFromWords
        for (px, width) in [(16.0, 100.5), (16.0, 150.0), (13.0, 95.25), (20.0, 333.0)] {
            let em = cjk.advance("我", px: px)
            let ellipsis = roboto.shapedAdvance("…", px: px)
            let kept = ((width - ellipsis) / em).rounded(.down)
            let attributes = TextAttributes(spans: [TextSpan(text: text)], font: FontDescriptor(family: "Roboto", size: px),
                                            maximumNumberOfLines: 1, truncationMode: .tail)
            let m = measurer.measureUncached(attributes, in: Size(width: width, height: .infinity))
            XCTAssertTrue(m.truncated)
            XCTAssertEqual(m.lineCount, 1)
            XCTAssertEqual(m.size.width, kept * em + ellipsis, accuracy: 0.01, "\(px) px in \(width)")
        }
        XCTAssertEqual(measurer.lastLinesFittedFromWords - before, 4)
    }

    /// A line that ends with an emoji that does not fit with the ellipsis drops the emoji
    /// (one cluster, 20 px at 16 px: round(16 × 2550 / 2048)) and keeps the words before it.
    func testAnEmojiAtTheEndIsDroppedWhole() throws {
        let roboto = try FontFileReader(ProjectFonts.robotoRegular)
        let words = "dog cat"
        let ellipsis = roboto.shapedAdvance("…", px: 16)
        let before = roboto.shapedAdvance(words + " ", px: 16)
        let emoji = 20.0
        // The line and the ellipsis overflow the box by less than the emoji's width.
        let width = (before + emoji + ellipsis - 3).rounded(.down)
        let text = TextAttributes(spans: [TextSpan(text: words + " 🎉 bird fish")], font: FontDescriptor(family: "Roboto", size: 16),
                                  maximumNumberOfLines: 1, truncationMode: .tail)
        let measurer = WordPathTests.withWords
        let fitted = measurer.lastLinesFittedFromWords
        let m = measurer.measureUncached(text, in: Size(width: width, height: .infinity))
        XCTAssertEqual(m.size.width, before + ellipsis, accuracy: 0.01)
        XCTAssertEqual(measurer.lastLinesFittedFromWords - fitted, 1)
    }
}
