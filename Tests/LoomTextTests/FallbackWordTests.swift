import XCTest
import Foundation
import LoomLayout
import LoomText

/// Paragraphs mixing the text's font with words of fallback fonts (FallbackWords.swift) must
/// measure exactly as a Pango layout measures them: lines, widths and line heights.
final class FallbackWordTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    /// Words of the fallback chain the path takes (Han, kana, Hangul, Thai, Devanagari and
    /// other Indic scripts), and words it leaves to Pango (right-to-left scripts, emoji, kana
    /// starting with the Common prolonged sound mark, CJK punctuation, Latin letters the base lacks).
    static let fallbackWords = [
        "我们", "世界", "今天", "天气", "学习", "布局", "文本", "東京", "日本語", "ちょっと", "すし", "カタカナ",
        "안녕하세요", "오늘", "날씨", "한국어", "สวัสดีครับ", "ภาษาไทย", "ทดสอบ", "หนังสือ", "नमस्ते", "दुनिया",
        "हिंदी", "परीक्षण", "किताब", "ধন্যবাদ", "தமிழ்", "తెలుగు", "ગુજરાતી", "ਪੰਜਾਬੀ", "ಕನ್ನಡ", "മലയാളം",
        "我们的世界很大很大很大很大很大很大很大很大", "ラーメン", "コーヒー", "サーバー", "データ", "ちょっとーー",
    ]
    static let otherWords = ["مرحبا", "שלום", "😀", "👋🏽", "☕", "ーメン", "「東京」", "東京。", "1️⃣", "abc我们", "我们abc"]

    static func randomCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        let words = 1 + r.int(r.chance(0.4) ? 4 : 24)
        for k in 0..<words {
            if k > 0 { text += r.chance(0.93) ? " " : r.pick(["  ", "\n", " \n "]) }
            if r.chance(0.45) {
                text += r.pick(fallbackWords)
            } else if r.chance(0.04) {
                text += r.pick(otherWords)
            } else {
                text += r.pick(WordPathTests.plainVocabulary)
            }
        }
        let font = r.pick(WordPathTests.fonts + [FontDescriptor(family: "Noto Sans", size: 16),
                                                 FontDescriptor(family: "DejaVu Sans", size: 13, weight: 700)])
        let lineHeight: Double? = r.chance(0.3) ? font.size * (1 + Double(r.int(8)) / 10) : nil
        let lines = r.chance(0.5) ? 0 : 1 + r.int(3)
        let mode = r.pick([TruncationMode.tail, .tail, .wordWrap, .head, .clip])
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font, lineHeight: lineHeight,
                                        lineSpacing: r.chance(0.2) ? 3 : 0, maximumNumberOfLines: lines,
                                        truncationMode: mode)
        let width: Double = r.chance(0.1) ? .infinity : Double(30 + r.int(400)) + (r.chance(0.5) ? Double(r.int(64)) / 64 : 0)
        let height: Double = r.chance(0.85) ? .infinity : Double(10 + r.int(80))
        return (attributes, Size(width: width, height: height))
    }

    /// Words that are one emoji cluster (the word path takes them: EmojiWords.swift) of every
    /// class, and words with emoji that it leaves to Pango (two clusters, a keycap, a single
    /// character of text presentation, an emoji inside a word).
    static let emojiWords = [
        "😀", "🎉", "☕", "✨", "⚽", "❤️", "☀️", "☀︎", "😀︎", "👋🏽", "👍🏻", "🇫🇷", "🇯🇵", "👨‍👩‍👧", "🏳️‍🌈",
        "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "©️", "™️", "👩🏽‍💻", "🫠", "1️⃣", "#️⃣", "5⃣",
    ]
    static let otherEmojiWords = ["🙂🙂", "1️⃣a", "☀", "™", "hi😀", "😀!", "(😀)", "我们😀"]

    /// A random text for the emoji test: words of the text's font, fallback words, emoji
    /// words, stand-alone marks and words starting with digits, in widths down to a few emoji.
    static func randomEmojiCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var (attributes, size) = randomCase(&r)
        var text = ""
        let words = 1 + r.int(r.chance(0.3) ? 4 : 20)
        for k in 0..<words {
            if k > 0 { text += r.chance(0.95) ? " " : r.pick(["  ", "\n"]) }
            if r.chance(0.35) {
                text += r.pick(emojiWords)
            } else if r.chance(0.04) {
                text += r.pick(otherEmojiWords)
            } else if r.chance(0.12) {
                text += r.pick(["·", "—", "…", "•", "–"])
            } else if r.chance(0.1) {
                text += r.pick(["8h", "12m", "3d", "1h", "2026a", "7h."])
            } else if r.chance(0.1) {
                // A feed's handle: a fallback word, a mark, a time.
                text += r.pick(fallbackWords.dropLast()) + " " + r.pick(["·", "—", "•"]) + " "
                    + r.pick(["8h", "12m", "3d", "1h", "7h."])
            } else if r.chance(0.3) {
                text += r.pick(fallbackWords.dropLast())
            } else {
                text += r.pick(WordPathTests.plainVocabulary)
            }
        }
        attributes.spans = [TextSpan(text: text)]
        if r.chance(0.4) { size.width = Double(20 + r.int(120)) + Double(r.int(64)) / 64 }
        return (attributes, size)
    }

    func compare(_ text: TextAttributes, _ size: Size, _ mismatches: inout Int, _ label: @autoclosure () -> String) {
        let fast = WordPathTests.withWords.measureUncached(text, in: size)
        let slow = WordPathTests.pangoOnly.measureUncached(text, in: size)
        guard fast != slow else { return }
        mismatches += 1
        if mismatches <= 10 { XCTFail("\(label()): words \(fast) ≠ pango \(slow)") }
    }

    /// `cases` texts of `make`, measured from words and by Pango's layout, must agree;
    /// more than `minWords` of them are measured from words (and more than `minLayouts` by Pango, if given).
    func assertAgreement(seed: UInt64, cases: Int, _ kind: String, minWords: Int, minLayouts: Int? = nil,
                         _ make: (inout Rng) -> (TextAttributes, Size)) {
        var r = Rng(state: seed)
        let before = WordPathTests.withWords.measurementPaths
        var mismatches = 0
        for index in 0..<cases {
            let (text, size) = make(&r)
            compare(text, size, &mismatches,
                    "\(kind) case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) lineHeight "
                    + "\(String(describing: text.lineHeight)) \(text.truncationMode) \(text.string.debugDescription)")
        }
        XCTAssertEqual(mismatches, 0)
        let after = WordPathTests.withWords.measurementPaths
        let words = after.fromWords - before.fromWords, layouts = after.fromLayout - before.fromLayout
        print("\(kind): \(words) from words, \(layouts) by Pango layout")
        XCTAssertGreaterThan(words, minWords)
        if let minLayouts { XCTAssertGreaterThan(layouts, minLayouts) }
    }

    func testFallbackWordsAgreeWithPango() {
        // Both paths: most of these texts from words, the rest (wrapping fallback words,
        // right-to-left words, emoji …) by Pango.
        assertAgreement(seed: 2026, cases: 800, "fallback words", minWords: 200, minLayouts: 100, Self.randomCase)
    }

    /// Kana words whose letters Noto Sans CJK kerns in pairs (ア イ, ラ ー, ー メ …), cut
    /// across lines in narrow boxes: Pango weighs a break near the line's end by the part
    /// shaped on its own (the kerning across the break lost), so the word path must too. The
    /// cases fail with cuts fitted by the whole word's kerned advances, and they were all left
    /// to Pango before (a part narrower inside its word than alone sent the text to Pango).
    static let kernedKana = ["ラーメン", "サーバー", "アイウエオ", "コーヒー", "データ", "テスト", "カタカナ", "ちょっと", "東京"]

    static func randomKanaCutCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        for k in 0..<(1 + r.int(8)) {
            if k > 0 { text += " " }
            text += r.chance(0.6) ? r.pick(kernedKana) : r.pick(WordPathTests.plainVocabulary)
        }
        let font = r.pick(WordPathTests.fonts)
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font,
                                        maximumNumberOfLines: r.chance(0.7) ? 0 : 1 + r.int(4), truncationMode: r.pick([.tail, .wordWrap, .clip]))
        // From about two ideographs wide up: every kana word is cut somewhere.
        return (attributes, Size(width: Double(2 * Int(font.size) + r.int(120)) + Double(r.int(64)) / 64, height: .infinity))
    }

    func testCutKanaWordsAgreeWithPango() {
        assertAgreement(seed: 2031, cases: 400, "cut kana words", minWords: 235, Self.randomKanaCutCase)
    }

    /// "ab ラーメン" in Roboto 14 at 27.5 px: ラ and ー are 14 px each on their own (Noto Sans
    /// CJK's full-width em), but ー before メ is kerned to 860/1024 em inside the word. The line
    /// after "ab" holds ラ (ラー alone is 28 px > 27.5, though 14 + 13.44 fits by the word's
    /// widths), then ーメ (kerned: 27.44 px), then ン: four lines, as Pango lays them out.
    func testKernedKanaPartIsWeighedByItsOwnShaping() {
        let text = TextAttributes(spans: [TextSpan(text: "ab ラーメン")], font: FontDescriptor(family: "Roboto", size: 14))
        let size = Size(width: 27.5, height: .infinity)
        let before = WordPathTests.withWords.measurementPaths
        let fast = WordPathTests.withWords.measureUncached(text, in: size)
        XCTAssertEqual(WordPathTests.withWords.measurementPaths.fromWords, before.fromWords + 1, "from words")
        XCTAssertEqual(fast.lineCount, 4)
        XCTAssertEqual(fast, WordPathTests.pangoOnly.measureUncached(text, in: size))
    }

    /// Texts with emoji words, measured from words, must match Pango's layout exactly (widths,
    /// wrapping, line heights with the emoji font's metrics).
    func testEmojiWordsAgreeWithPango() {
        assertAgreement(seed: 2027, cases: 400, "emoji words", minWords: 100, Self.randomEmojiCase)
    }

    /// An emoji word is measured from words at the emoji font's whole-pixel advance:
    /// Noto Color Emoji's 😀 is 2550/2048 em, round(16 × 2550 / 2048) = round(19.92) = 20 px
    /// at 16 px, and two of them are 40 px plus the text font's space.
    func testEmojiWordIsTheEmojiFontsWholePixels() {
        let font = FontDescriptor(family: "Roboto", size: 16)
        let m = WordPathTests.withWords
        let before = m.measurementPaths
        let one = m.measureUncached(TextAttributes(spans: [TextSpan(text: "😀")], font: font),
                                    in: Size(width: 1000, height: .infinity))
        let two = m.measureUncached(TextAttributes(spans: [TextSpan(text: "😀 😀")], font: font),
                                    in: Size(width: 1000, height: .infinity))
        let space = m.measureUncached(TextAttributes(spans: [TextSpan(text: "a a")], font: font),
                                      in: Size(width: 1000, height: .infinity)).size.width
            - 2 * m.measureUncached(TextAttributes(spans: [TextSpan(text: "a")], font: font),
                                    in: Size(width: 1000, height: .infinity)).size.width
        XCTAssertEqual(one.size.width, 20)
        XCTAssertEqual(two.size.width, 40 + space, accuracy: 1e-9)
        XCTAssertEqual(m.measurementPaths.fromWords, before.fromWords + 4, "all from words")
        // Wrapped at a width that holds one emoji: two lines, as Pango breaks them.
        let wrapped = TextAttributes(spans: [TextSpan(text: "😀 😀")], font: font)
        let narrow = Size(width: 30, height: .infinity)
        XCTAssertEqual(m.measureUncached(wrapped, in: narrow).lineCount, 2)
        XCTAssertEqual(m.measureUncached(wrapped, in: narrow), WordPathTests.pangoOnly.measureUncached(wrapped, in: narrow))
    }

    /// After an emoji cluster the space is an item of its own in Pango's layout, so a word
    /// that Roboto kerns with the space before it (" T") is measured from words unkerned:
    /// 😀 (round(17 × 2550 / 2048) = 21 px), Roboto's space alone, "Tomorrow" alone.
    func testWordAfterAnEmojiOrAHebrewWordIsNotKernedWithTheSpace() {
        let font = FontDescriptor(family: "Roboto", size: 17)
        let m = WordPathTests.withWords
        func width(_ s: String) -> Double {
            m.measureUncached(TextAttributes(spans: [TextSpan(text: s)], font: font), in: Size(width: 1000, height: .infinity)).size.width
        }
        let text = TextAttributes(spans: [TextSpan(text: "😀 Tomorrow")], font: font)
        let before = m.measurementPaths
        let measured = m.measureUncached(text, in: Size(width: 1000, height: .infinity))
        XCTAssertEqual(m.measurementPaths.fromWords, before.fromWords + 1, "from words")
        XCTAssertEqual(measured, WordPathTests.pangoOnly.measureUncached(text, in: Size(width: 1000, height: .infinity)))
        let space = width("x x") - 2 * width("x")
        XCTAssertEqual(measured.size.width, 21 + space + width("Tomorrow"), accuracy: 1e-9)
        // Kerned with the space, "Tomorrow" would start closer: " Tomorrow" is narrower.
        XCTAssertLessThan(width("x Tomorrow") - width("x"), space + width("Tomorrow"))
        // So after a Hebrew word Liberation Sans draws itself (the space in that word's item):
        // " A" and " Y" are kerned in Liberation Sans, and these are measured from words too.
        for (text, font) in [("ספר Amazing", FontDescriptor(family: "Liberation Sans", size: 17, weight: 600)),
                             ("עולם Again", FontDescriptor(family: "Liberation Sans", size: 14, weight: 600)),
                             ("👋🏽 Yes 😀 Tomorrow", FontDescriptor(family: "Liberation Sans", size: 15))] {
            let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font)
            let before = m.measurementPaths
            let fast = m.measureUncached(attributes, in: Size(width: 1000, height: .infinity))
            XCTAssertEqual(m.measurementPaths.fromWords, before.fromWords + 1, "\(text): from words")
            XCTAssertEqual(fast, WordPathTests.pangoOnly.measureUncached(attributes, in: Size(width: 1000, height: .infinity)), text)
        }
    }

    /// An emoji cluster that ends in a selector or a tag (❤️, ☕️, 😀︎: the last scalar draws
    /// nothing) gives the space after it no family attribute, so Pango shapes that space with
    /// the next word: " T" kerned, the line narrower than the cluster, a plain space and "Ty"
    /// (it was measured so on the word path, 0.31 px too wide at Roboto 16). At widths around
    /// the break too, from words and equal to Pango.
    func testWordAfterASelectorEndedEmojiIsKernedWithTheSpace() {
        let m = WordPathTests.withWords
        let roboto = FontDescriptor(family: "Roboto", size: 16)
        func width(_ s: String, _ font: FontDescriptor = roboto) -> Double {
            m.measureUncached(TextAttributes(spans: [TextSpan(text: s)], font: font), in: Size(width: 1000, height: .infinity)).size.width
        }
        let kernedLead = width("x Ty") - width("x"), plain = width("x x") - 2 * width("x")
        XCTAssertLessThan(kernedLead, plain + width("Ty") - 0.1, "Roboto kerns \" T\"")
        XCTAssertEqual(width("❤️ Ty"), width("❤️") + kernedLead, accuracy: 1e-9)
        XCTAssertEqual(width("😀︎ Ty"), width("😀︎") + kernedLead, accuracy: 1e-9)
        // A cluster ending in a letter the font lacks keeps the space apart: plain.
        XCTAssertEqual(width("👋🏽 Ty"), width("👋🏽") + plain + width("Ty"), accuracy: 1e-9)

        var fromWords = 0, cases = 0
        for text in ["❤️ Ty", "☕️ Tomorrow today", "😀︎ Ty @handle_1", "Ty 😀︎ Ty 😀︎ Ty", "🏴󠁧󠁢󠁥󠁮󠁧󠁿 Yes ❤️ Amazing"] {
            for font in [roboto, FontDescriptor(family: "Roboto", size: 9.3), FontDescriptor(family: "Liberation Sans", size: 15)] {
                for w in stride(from: 20.0, through: 140, by: 6.5) {
                    let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font)
                    let before = m.measurementPaths.fromWords
                    let fast = m.measureUncached(attributes, in: Size(width: w, height: .infinity))
                    fromWords += m.measurementPaths.fromWords - before
                    cases += 1
                    XCTAssertEqual(fast, WordPathTests.pangoOnly.measureUncached(attributes, in: Size(width: w, height: .infinity)),
                                   "\(text) \(font.family) \(font.size) at \(w)")
                }
            }
        }
        XCTAssertGreaterThan(fromWords, cases / 2, "most from words")
    }

    /// The same cluster after a fallback word: Pango's script runs give the Common characters
    /// after a Hangul (or Han, kana, Thai …) word its script, so the space after ❤️ is a Hangul
    /// item and the next word a Latin one, and " A" is not kerned (the word path kerned it:
    /// 0.66 px too narrow at Liberation Sans 12). After a Latin word, or with nothing before,
    /// the space joins the Latin item and is kerned as above.
    func testAfterAFallbackWordTheSpaceBehindASelectorEndedEmojiTakesItsScript() {
        let m = WordPathTests.withWords
        let font = FontDescriptor(family: "Liberation Sans", size: 12)
        func width(_ s: String) -> Double {
            m.measureUncached(TextAttributes(spans: [TextSpan(text: s)], font: font), in: Size(width: 1000, height: .infinity)).size.width
        }
        let plain = width("x x") - 2 * width("x")
        let kernedLead = width("x AY") - width("x")
        XCTAssertLessThan(kernedLead, plain + width("AY") - 0.1, "Liberation Sans kerns \" A\"")
        XCTAssertEqual(width("친구 ❤️ AY"), width("친구 ❤️") + plain + width("AY"), accuracy: 1e-9)
        XCTAssertEqual(width("东京 ❤️ AY"), width("东京 ❤️") + plain + width("AY"), accuracy: 1e-9)
        XCTAssertEqual(width("x ❤️ AY"), width("x ❤️") + kernedLead, accuracy: 1e-9)
        for text in ["친구 ❤️ AY", "P. 统局 친구 ❤️ AY fi 习很天今 quick", "ちょっと ☕️ Tomorrow", "ทดสอบ ❤️ Yes AY",
                     "AY 世界 ❤️ AY ❤️ AY"] {
            for w in stride(from: 30.0, through: 300, by: 13.5) {
                let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font, maximumNumberOfLines: 2)
                XCTAssertEqual(m.measureUncached(attributes, in: Size(width: w, height: .infinity)),
                               WordPathTests.pangoOnly.measureUncached(attributes, in: Size(width: w, height: .infinity)),
                               "\(text) at \(w)")
            }
        }
    }

    /// A line under `line-height: normal` holding a CJK word is as tall as Noto Sans CJK's
    /// line box needs (taller than Roboto's), a line without one is Roboto's.
    func testLineHeightFollowsTheFallbackFont() {
        let font = FontDescriptor(family: "Roboto", size: 16)
        let m = WordPathTests.withWords
        let before = m.measurementPaths
        let latin = m.measureUncached(TextAttributes(spans: [TextSpan(text: "hello world")], font: font),
                                      in: Size(width: 1000, height: .infinity))
        let mixed = m.measureUncached(TextAttributes(spans: [TextSpan(text: "hello 世界")], font: font),
                                      in: Size(width: 1000, height: .infinity))
        // Roboto 16: ascent 15 + descent 4 (rounded hhea) = 19; Noto Sans CJK SC: ascender
        // 1160/1000, descender 288/1000 of 16 px → 19 + 5 (rounded), half-leading split:
        // the line is as tall as the taller parts above and below together.
        XCTAssertEqual(latin.size.height, 19)
        XCTAssertGreaterThan(mixed.size.height, latin.size.height)
        XCTAssertEqual(m.measurementPaths.fromWords, before.fromWords + 2, "both from words")
        XCTAssertEqual(mixed, WordPathTests.pangoOnly.measureUncached(
            TextAttributes(spans: [TextSpan(text: "hello 世界")], font: font), in: Size(width: 1000, height: .infinity)))
    }
}
