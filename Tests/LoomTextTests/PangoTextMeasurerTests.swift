import XCTest
import Foundation
import LoomLayout
import LoomText
import LoomTestSupport

/// Expectations come from the font files (hhea parsed from the bytes, advances from
/// HarfBuzz's nominal glyphs) and from the CSS rules, never from the measurer's output.
/// Liberation Mono (every glyph 1229/2048 em, no kerning) makes the arithmetic exact.
final class PangoTextMeasurerTests: XCTestCase {
    static let shared: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)
    var measurer: PangoTextMeasurer { Self.shared }

    static let mono = try! FontFileReader(ProjectFonts.monoRegular)
    static let sans = try! FontFileReader(ProjectFonts.sansRegular)

    let monoFont = FontDescriptor(family: "Liberation Mono", size: 20)
    let sansFont = FontDescriptor(family: "Liberation Sans", size: 16)
    /// One Liberation Mono advance at 20 px.
    var a: Double { Self.mono.advance("a", px: 20) }

    func measure(_ text: String, font: FontDescriptor? = nil, width: Double = .infinity, height: Double = .infinity,
                 lineHeight: Double? = nil, lineSpacing: Double = 0, letterSpacing: Double = 0,
                 lines: Int = 0, mode: TruncationMode = .wordWrap, token: String = "\u{2026}") -> TextMeasurement {
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font ?? monoFont, lineHeight: lineHeight,
                                        lineSpacing: lineSpacing, letterSpacing: letterSpacing,
                                        maximumNumberOfLines: lines, truncationMode: mode, truncationText: token)
        return measurer.measure(attributes, in: Size(width: width, height: height))
    }

    func assertClose(_ x: Double, _ y: Double, accuracy: Double = 1e-6, _ message: String = "",
                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(x, y, accuracy: accuracy, message, file: file, line: line)
    }

    // MARK: Widths

    func testMonospaceAdvanceIsTheFilesAdvance() {
        XCTAssertEqual(a, 1229.0 * 20 / 2048)
        let m = measure("hello world")
        XCTAssertEqual(m.lineCount, 1)
        assertClose(m.size.width, 11 * a)
    }

    /// More fonts than the engine's recent-font slots (32), measured in alternation, some
    /// texts naming their own font on a span: each text is measured in its own size.
    func testManyFontsInAlternationKeepTheirSizes() {
        let sizes = (0..<40).map { 10.0 + Double($0) * 0.75 }
        for round in 0..<3 {
            for (k, px) in sizes.enumerated() {
                let font = FontDescriptor(family: "Liberation Mono", size: px, weight: k % 2 == 0 ? 400 : 700)
                let spans = round == 1 ? [TextSpan(text: "ab", font: font), TextSpan(text: "cd")] : [TextSpan(text: "abcd")]
                let m = measurer.measure(TextAttributes(spans: spans, font: font), in: Size(width: .infinity, height: .infinity))
                assertClose(m.size.width, 4 * 1229 * px / 2048, accuracy: 4 * 0.5 / 1024 + 1e-9, "\(px) px, round \(round)")
            }
        }
    }

    func testSingleLineWidthIsSumOfGlyphAdvances() {
        for (text, px) in [("minimum", 16.0), ("hello world", 16), ("lollipop", 23.5), ("0123456789", 12)] {
            let m = measure(text, font: FontDescriptor(family: "Liberation Sans", size: px))
            // Pango keeps positions in 1/1024 px: each glyph's advance is rounded once.
            assertClose(m.size.width, Self.sans.advance(text, px: px), accuracy: Double(text.count) * 0.5 / 1024 + 1e-9, text)
        }
        let roboto = try! FontFileReader(ProjectFonts.robotoRegular)
        let m = measure("minimum", font: FontDescriptor(family: "Roboto", size: 15))
        assertClose(m.size.width, roboto.advance("minimum", px: 15), accuracy: 1e-3)
    }

    func testInfiniteWidthDoesNotWrap() {
        let text = "a fairly long sentence that would wrap in any finite container of modest width"
        let m = measure(text)
        XCTAssertEqual(m.lineCount, 1)
        assertClose(m.size.width, Double(text.count) * a)
        XCTAssertFalse(m.truncated)
    }

    func testWrapPointsAroundAWordWidth() {
        let full = 11 * a   // "hello world"
        XCTAssertEqual(measure("hello world", width: full + 0.01).lineCount, 1)
        // Chromium keeps a line that overshoots by less than its 1/64 px layout unit.
        XCTAssertEqual(measure("hello world", width: full - 1.0 / 128).lineCount, 1)
        let below = measure("hello world", width: full - 0.02)
        XCTAssertEqual(below.lineCount, 2)
        assertClose(below.size.width, 5 * a)  // the space at the wrap hangs
        // Exactly the word: fits.
        let exact = measure("hello world", width: 5 * a)
        XCTAssertEqual(exact.lineCount, 2)
        assertClose(exact.size.width, 5 * a)
        // Narrower than the first word: break-word breaks it at the last grapheme that fits.
        let narrow = measure("hello world", width: 3.5 * a)
        XCTAssertEqual(narrow.lineCount, 4)  // hel | lo | wor | ld
        assertClose(narrow.size.width, 3 * a)
    }

    func testTrailingSpacesAtSoftWrapDoNotCount() {
        let m = measure("aaaa bbbb", width: 7 * a)
        XCTAssertEqual(m.lineCount, 2)
        assertClose(m.size.width, 4 * a)
    }

    func testZeroWidthContainerBreaksEveryGraphemeAndSpacesHang() {
        let m = measure("ab cd", width: 0)
        XCTAssertEqual(m.lineCount, 4)
        assertClose(m.size.width, a)
    }

    // MARK: Line heights

    func testNormalLineHeightIsRoundedHheaSum() throws {
        let cases: [(String, String, Double)] = [
            ("Liberation Sans", ProjectFonts.sansRegular, 16), ("Liberation Sans", ProjectFonts.sansRegular, 13),
            ("Liberation Serif", ProjectFonts.serifRegular, 17), ("Liberation Mono", ProjectFonts.monoRegular, 20),
            ("Roboto", ProjectFonts.robotoRegular, 14), ("Inter", ProjectFonts.interRegular, 15),
            ("DejaVu Sans", ProjectFonts.dejaVuSans, 11), ("Noto Sans", ProjectFonts.notoSans, 19),
        ]
        for (family, file, px) in cases {
            let reader = try FontFileReader(file)
            let expected = reader.normalLineHeight(px: px)
            let one = measure("Hxg", font: FontDescriptor(family: family, size: px))
            XCTAssertEqual(one.size.height, expected, "\(family) \(px)")
            let three = measure("Hxg\nline\nthree", font: FontDescriptor(family: family, size: px))
            XCTAssertEqual(three.lineCount, 3)
            XCTAssertEqual(three.size.height, 3 * expected, "\(family) \(px)")
            assertClose(one.ascender, reader.ascender(px: px))
            assertClose(one.descender, reader.descender(px: px))
            XCTAssertLessThan(one.descender, 0)
        }
        // Liberation Sans 16: 14.48 → 14, 3.39 → 3, 0.52 → 1.
        XCTAssertEqual(Self.sans.normalLineHeight(px: 16), 18)
    }

    func testExplicitLineHeightAndLineSpacing() {
        let one = measure("x", lineHeight: 30)
        XCTAssertEqual(one.size.height, 30)
        let three = measure("x\ny\nz", lineHeight: 30, lineSpacing: 5)
        XCTAssertEqual(three.lineCount, 3)
        XCTAssertEqual(three.size.height, 3 * 30 + 2 * 5)
        // lineSpacing with `normal` line height.
        let normal = Self.mono.normalLineHeight(px: 20)
        let two = measure("x\ny", lineSpacing: 4.5)
        XCTAssertEqual(two.size.height, 2 * normal + 4.5)
        // Not after the last line.
        XCTAssertEqual(measure("x", lineSpacing: 7).size.height, normal)
        // Fractional line height, not rounded.
        assertClose(measure("x\ny", lineHeight: 17.3).size.height, 34.6)
        // Ascender with an explicit line height: lineHeight + descender of the first font.
        assertClose(one.ascender, 30 + Self.mono.descender(px: 20))
        assertClose(one.descender, Self.mono.descender(px: 20))
    }

    func testMixedFontsLineBox() {
        // One line, Liberation Sans 20 then Liberation Mono 20: the line box spans the
        // highest half-leading-split ascent and the deepest descent of the two boxes. Under
        // `normal` the (whole-pixel) line gap is split with the smaller half above (headless
        // Chromium 156 makes this line 24 px tall, not 24.5).
        let sans = Self.sans, mono = Self.mono
        let attributes = TextAttributes(spans: [TextSpan(text: "Ab"), TextSpan(text: "cd", font: monoFont)],
                                        font: FontDescriptor(family: "Liberation Sans", size: 20))
        let m = measurer.measure(attributes, in: .infinite)
        let sansAbove = sans.roundedAscent(px: 20) + (sans.roundedLineGap(px: 20) / 2).rounded(.down)
        let sansBelow = sans.roundedAscent(px: 20) + sans.roundedDescent(px: 20) + sans.roundedLineGap(px: 20) - sansAbove
        let monoAbove = mono.roundedAscent(px: 20) + (mono.roundedLineGap(px: 20) / 2).rounded(.down)
        let monoBelow = mono.roundedAscent(px: 20) + mono.roundedDescent(px: 20) + mono.roundedLineGap(px: 20) - monoAbove
        XCTAssertEqual(m.size.height, max(sansAbove, monoAbove) + max(sansBelow, monoBelow))
        XCTAssertEqual(m.size.height, 24)
        assertClose(m.size.width, sans.advance("Ab", px: 20) + 2 * a, accuracy: 1e-3)
        // Baseline metrics: first character's font ascender, last character's descender.
        assertClose(m.ascender, sans.ascender(px: 20))
        assertClose(m.descender, mono.descender(px: 20))

        // Explicit line height: each box gets that height, split around its own font.
        var explicit = attributes
        explicit.lineHeight = 30
        let e = measurer.measure(explicit, in: .infinite)
        func split(_ r: FontFileReader) -> (Double, Double) {
            let leading = 30 - (r.roundedAscent(px: 20) + r.roundedDescent(px: 20))
            return (r.roundedAscent(px: 20) + leading / 2, r.roundedDescent(px: 20) + leading / 2)
        }
        let (sa, sb) = split(sans), (ma, mb) = split(mono)
        XCTAssertEqual(e.size.height, max(sa, ma) + max(sb, mb))
        assertClose(e.ascender, 30 + sans.descender(px: 20))
        assertClose(e.descender, mono.descender(px: 20))
    }

    func testSpanFontsAndBaselineMetrics() throws {
        let roboto = try FontFileReader(ProjectFonts.robotoRegular)
        let attributes = TextAttributes(spans: [
            TextSpan(text: "Big", font: FontDescriptor(family: "Roboto", size: 30)),
            TextSpan(text: " small", font: FontDescriptor(family: "Liberation Mono", size: 10)),
        ], font: sansFont)
        let m = measurer.measure(attributes, in: .infinite)
        assertClose(m.ascender, roboto.ascender(px: 30))
        assertClose(m.descender, Self.mono.descender(px: 10))
        assertClose(m.size.width, roboto.advance("Big", px: 30) + Self.mono.advance(" small", px: 10), accuracy: 1e-3)
    }

    // MARK: Letter spacing

    func testLetterSpacingAddsOnePerCharacter() {
        for spacing in [1.0, 2, 0.5, 1.5, -0.5, 3.25] {
            let plain = measure("hello", font: sansFont)
            let spaced = measure("hello", font: sansFont, letterSpacing: spacing)
            assertClose(spaced.size.width - plain.size.width, 5 * spacing, accuracy: 1e-3, "spacing \(spacing)")
            let words = measure("ab cd", letterSpacing: spacing)
            assertClose(words.size.width, 5 * (a + spacing), accuracy: 1e-3, "spacing \(spacing)")
        }
    }

    func testLetterSpacingOnWrappedLines() {
        // Each line: its characters (up to the last non-space) plus one spacing each.
        let m = measure("aaaa bbbbb", width: 6.5 * a, letterSpacing: 2)
        XCTAssertEqual(m.lineCount, 2)
        assertClose(m.size.width, 5 * (a + 2), accuracy: 1e-3)
        let path = measure("aaa / bb", width: 4 * a + 4 * 2 + 1, letterSpacing: 2)
        XCTAssertEqual(path.lineCount, 2)  // "aaa " | "/ bb"
        assertClose(path.size.width, 4 * (a + 2), accuracy: 1e-3)
    }

    func testSpanLetterSpacingOverridesTextSpacing() {
        let attributes = TextAttributes(spans: [TextSpan(text: "ab", letterSpacing: 2), TextSpan(text: "cd", letterSpacing: 4),
                                                TextSpan(text: "ef")],
                                        font: monoFont, letterSpacing: 1)
        let m = measurer.measure(attributes, in: .infinite)
        assertClose(m.size.width, 6 * a + 2 * 2 + 2 * 4 + 2 * 1, accuracy: 1e-3)
    }

    // MARK: Breaks like Chromium

    func testNoBreakAfterSlashBetweenLetters() {
        // Pango would break "a/|b"; Chromium keeps "a/b" together.
        let m = measure("xx a/b", width: 5.5 * a)
        XCTAssertEqual(m.lineCount, 2)
        assertClose(m.size.width, 3 * a)
        let url = measure("see http://ex.com/ab", width: 16.5 * a)
        XCTAssertEqual(url.lineCount, 2)
        assertClose(url.size.width, 16 * a)   // the URL moves to line 2 whole
    }

    func testNoBreakInsideVersionToken() {
        let m = measure("xx beta.2", width: 8.5 * a)
        XCTAssertEqual(m.lineCount, 2)
        assertClose(m.size.width, 6 * a)
    }

    func testBreakBeforeSlashBetweenWords() {
        // Chromium breaks after the space before "/": "aaa " | "/ bb".
        let m = measure("aaa / bb", width: 4.5 * a)
        XCTAssertEqual(m.lineCount, 2)
        assertClose(m.size.width, 4 * a)
    }

    func testBreakInsideDigitRanges() {
        let m = measure("010-2030", width: 6.5 * a)
        XCTAssertEqual(m.lineCount, 2)
        assertClose(m.size.width, 4 * a)   // "010-" | "2030"
        let letters = measure("abc-123", width: 5.5 * a)
        XCTAssertEqual(letters.lineCount, 2)
        assertClose(letters.size.width, 4 * a)
        // A minus sign (after a space) stays with its number.
        let minus = measure("x -123", width: 4.5 * a)
        XCTAssertEqual(minus.lineCount, 2)
        assertClose(minus.size.width, 4 * a)
    }

    func testChromiumASCIIPairRules() {
        // No break after '!' or '}' before a letter (UAX #14 allows one).
        XCTAssertEqual(measure("xx a!b", width: 5.5 * a).size.width, 3 * a, accuracy: 1e-6)
        XCTAssertEqual(measure("xx a}b", width: 5.5 * a).size.width, 3 * a, accuracy: 1e-6)
        // Breaks after '?' and after a word-internal '-' before a letter.
        XCTAssertEqual(measure("xx c?dd", width: 5.5 * a).size.width, 5 * a, accuracy: 1e-6)
        XCTAssertEqual(measure("xx e-mail", width: 5.5 * a).size.width, 5 * a, accuracy: 1e-6)
        // A break before '(' after punctuation ("a,(b"), none after a letter ("a(b").
        XCTAssertEqual(measure("xx a,(b", width: 5.5 * a).size.width, 5 * a, accuracy: 1e-6)
        XCTAssertEqual(measure("xx ab(c", width: 5.5 * a).size.width, 4 * a, accuracy: 1e-6)  // "xx" | "ab(c"
        XCTAssertEqual(measure("xx ab(c", width: 5.5 * a).lineCount, 2)
        // After a space, always (even before a closing bracket).
        XCTAssertEqual(measure("aaa )", width: 4.5 * a).lineCount, 2)
    }

    func testInsertedJoinersDoNotChangeWidths() {
        // The patches insert zero-width characters; single-line widths stay the advances.
        for text in ["a/b", "beta.2", "010-2030", "a / b", "http://x.org/a/b"] {
            assertClose(measure(text).size.width, Double(text.count) * a, accuracy: 1e-6, text)
            assertClose(measure(text, letterSpacing: 3).size.width, Double(text.count) * (a + 3), accuracy: 1e-3, text)
        }
    }

    // MARK: White space

    func testWhiteSpaceCollapsesLikePreLine() {
        assertClose(measure("a   b").size.width, 3 * a)
        assertClose(measure("a\t \tb").size.width, 3 * a)
        assertClose(measure("   ab").size.width, 2 * a)
        assertClose(measure("ab   ").size.width, 2 * a)
        let paragraphs = measure("  ab  \n   cde   ")
        XCTAssertEqual(paragraphs.lineCount, 2)
        assertClose(paragraphs.size.width, 3 * a)
    }

    func testNewlinesAndEmptyLines() {
        let lh = Self.mono.normalLineHeight(px: 20)
        let cases: [(String, Int)] = [("", 0), ("   ", 0), ("\n", 1), ("a", 1), ("a\n", 1), ("a\n\n", 2), ("a\n\nb", 3),
                                      ("\n\na", 3), ("a\r\nb", 2), ("a\rb", 2), ("a\n \n b", 3), ("\t\n", 1)]
        for (text, lines) in cases {
            let m = measure(text)
            XCTAssertEqual(m.lineCount, lines, text.debugDescription)
            XCTAssertEqual(m.size.height, Double(lines) * lh, text.debugDescription)
            XCTAssertFalse(m.truncated)
        }
        XCTAssertEqual(measure("").size, .zero)
        assertClose(measure("a\n\nbcd").size.width, 3 * a)
    }

    func testEmptyTextHasTheFontsMetrics() {
        let m = measure("", font: sansFont)
        XCTAssertEqual(m.size, .zero)
        XCTAssertEqual(m.lineCount, 0)
        assertClose(m.ascender, Self.sans.ascender(px: 16))
        assertClose(m.descender, Self.sans.descender(px: 16))
        let explicit = measure("", font: sansFont, lineHeight: 20)
        assertClose(explicit.ascender, 20 + Self.sans.descender(px: 16))
    }

    // MARK: Line limits and truncation

    func testTruncationModesAtAMaximumNumberOfLines() {
        let text = "aaaa bbbb cccc dddd eeee"
        let width = 9.5 * a
        for mode in TruncationMode.allCases {
            let m = measure(text, width: width, lines: 2, mode: mode)
            XCTAssertEqual(m.lineCount, 2, "\(mode)")
            XCTAssertTrue(m.truncated, "\(mode)")
            XCTAssertLessThanOrEqual(m.size.width, width, "\(mode)")
            XCTAssertEqual(m.size.height, 2 * Self.mono.normalLineHeight(px: 20), "\(mode)")
            let all = measure(text, width: width, lines: 10, mode: mode)
            XCTAssertFalse(all.truncated, "\(mode)")
            XCTAssertEqual(all.lineCount, 3, "\(mode)")
        }
    }

    func testTailTruncationArithmetic() {
        let text = "aaaa bbbb cccc"
        // Content "aaaa bbbb" (9) + "…" (1) fits in 10.5.
        assertClose(measure(text, width: 10 * a + 0.5, lines: 1, mode: .tail).size.width, 10 * a)
        // 9.5: "aaaa bbbb…" does not fit; the longest prefix with "…": "aaaa bbb…".
        assertClose(measure(text, width: 9.5 * a, lines: 1, mode: .tail).size.width, 9 * a)
        // A line whose content and "…" fit: "aaaa…".
        assertClose(measure("aaaa bbbbbbbbbb", width: 6.5 * a, lines: 1, mode: .tail).size.width, 5 * a)
        // The cut right after a space keeps the space: "aaaa b" + "…" is too wide, "aaaa …" fits.
        assertClose(measure("aaaa b cccc", width: 6.5 * a, lines: 1, mode: .tail).size.width, 6 * a)
        // At least one grapheme even when nothing fits.
        let tiny = measure(text, width: 1.5 * a, lines: 1, mode: .tail)
        assertClose(tiny.size.width, 2 * a)
        XCTAssertTrue(tiny.truncated)
        // wordWrap and charWrap truncate at the tail too.
        assertClose(measure(text, width: 9.5 * a, lines: 1, mode: .wordWrap).size.width, 9 * a)
        assertClose(measure(text, width: 9.5 * a, lines: 1, mode: .charWrap).size.width, 9 * a)
        // Unlimited width: the line limit truncates at paragraph breaks.
        let paragraphs = measure("abc\ndefgh\nij", lines: 2, mode: .tail)
        XCTAssertEqual(paragraphs.lineCount, 2)
        XCTAssertTrue(paragraphs.truncated)
        assertClose(paragraphs.size.width, 6 * a)   // "defgh…"
        // A custom truncation token, measured in the text's font.
        assertClose(measure("aaaa bbbb\ncc", width: 20 * a, lines: 1, mode: .tail, token: " more").size.width, 14 * a)
        assertClose(measure("aaaa bbbb\ncc", width: 20 * a, lines: 1, mode: .tail, token: "...").size.width, 12 * a)
    }

    func testHeadMiddleClipArithmetic() {
        let text = "aaaa bbbb cccc dddd"
        assertClose(measure(text, width: 9.5 * a, lines: 1, mode: .head).size.width, 9 * a)
        assertClose(measure(text, width: 9.5 * a, lines: 1, mode: .middle).size.width, 9 * a)
        assertClose(measure(text, width: 9.5 * a, lines: 1, mode: .clip).size.width, 9 * a)
        // Clip shows no token: a short line stays short.
        assertClose(measure("ab\ncd", lines: 1, mode: .clip).size.width, 2 * a)
        assertClose(measure("ab\ncd", lines: 1, mode: .tail).size.width, 3 * a)
        // Head/middle when the cut falls at a paragraph break: like tail.
        assertClose(measure("ab\ncd", lines: 1, mode: .head).size.width, 3 * a)
    }

    func testLetterSpacingInTruncation() {
        // The kept characters carry their letter spacing; the "…" carries none (as
        // Chromium draws it): "abc" + "…" in a monospaced font.
        let m = measure("abc\ndef", letterSpacing: 2, lines: 1, mode: .tail)
        assertClose(m.size.width, 3 * (a + 2) + a, accuracy: 1e-3)
    }

    func testCharWrapWrapsAtCharacters() {
        let word = measure("aaaa bbbb", width: 6.5 * a, mode: .wordWrap)
        let char = measure("aaaa bbbb", width: 6.5 * a, mode: .charWrap)
        XCTAssertEqual(word.lineCount, 2)
        XCTAssertEqual(char.lineCount, 2)
        assertClose(word.size.width, 4 * a)
        assertClose(char.size.width, 6 * a)   // "aaaa b" | "bbb"
    }

    func testContainerHeightLimitsLines() {
        let lh = Self.mono.normalLineHeight(px: 20)
        let text = "one\ntwo\nthree"
        let all = measure(text, height: 3 * lh)
        XCTAssertEqual(all.lineCount, 3)
        XCTAssertFalse(all.truncated)
        let two = measure(text, height: 3 * lh - 0.5, mode: .tail)
        XCTAssertEqual(two.lineCount, 2)
        XCTAssertTrue(two.truncated)
        XCTAssertEqual(two.size.height, 2 * lh)
        assertClose(two.size.width, 4 * a)  // "two…"
        // Line spacing counts between lines.
        let spaced = measure(text, height: 3 * lh + 1, lineSpacing: 1)
        XCTAssertEqual(spaced.lineCount, 2)
        XCTAssertEqual(spaced.size.height, 2 * lh + 1)
        // The smaller of the line limit and the height wins.
        XCTAssertEqual(measure(text, height: 2 * lh, lines: 1).lineCount, 1)
        // Not even one line fits: nothing shown.
        let none = measure(text, height: lh - 1)
        XCTAssertEqual(none.lineCount, 0)
        XCTAssertEqual(none.size, .zero)
        XCTAssertTrue(none.truncated)
        XCTAssertFalse(measure("", height: 0).truncated)
    }

    // MARK: Fonts

    func testUnknownFamilyIsAnError() {
        let error = measurer.validate(FontDescriptor(family: "Comic Sans MS", size: 12))
        XCTAssertNotNil(error)
        XCTAssertTrue(error?.message.contains("Comic Sans MS") ?? false, error?.message ?? "")
        XCTAssertNotNil(measurer.validate(FontDescriptor(family: "Roboto", size: 0)))
        XCTAssertNotNil(measurer.validate(FontDescriptor(family: "Roboto", size: .nan)))
        XCTAssertNotNil(measurer.validate(FontDescriptor(family: "Roboto", size: 12, weight: 0)))
        XCTAssertNotNil(measurer.validate(FontDescriptor(family: "Roboto", size: 12, weight: 1001)))
        for family in ["Roboto", "roboto", "'Inter'", "LIBERATION SANS", "Helvetica", "helvetica neue", "Arial",
                       "system", "-apple-system", "San Francisco", "Times New Roman", "Courier", "DejaVu Sans", "Noto Sans",
                       "Liberation Serif", "Liberation Mono"] {
            XCTAssertNil(measurer.validate(FontDescriptor(family: family, size: 12, weight: 700, italic: true)), family)
        }
        // measure() never fails: an unknown family falls back to Liberation Sans.
        let fallback = measure("minimum", font: FontDescriptor(family: "Nope", size: 16))
        assertClose(fallback.size.width, Self.sans.advance("minimum", px: 16), accuracy: 1e-3)
    }

    func testAliasesResolveToTheIntendedFiles() {
        let lib = ProjectFonts.liberation2
        let cases: [(FontDescriptor, String)] = [
            (.attributedStringDefault, lib + "/LiberationSans-Regular.ttf"),
            (FontDescriptor(family: "Helvetica Neue", weight: 700), lib + "/LiberationSans-Bold.ttf"),
            (FontDescriptor(family: "Arial", italic: true), lib + "/LiberationSans-Italic.ttf"),
            (FontDescriptor(family: "arial", weight: 900, italic: true), lib + "/LiberationSans-BoldItalic.ttf"),
            (FontDescriptor(family: "Times New Roman"), lib + "/LiberationSerif-Regular.ttf"),
            (FontDescriptor(family: "Courier", weight: 600), lib + "/LiberationMono-Bold.ttf"),
            (FontDescriptor(family: "system"), "/usr/share/fonts/opentype/inter/Inter-Regular.otf"),
            (FontDescriptor(family: "-apple-system", weight: 600), "/usr/share/fonts/opentype/inter/Inter-SemiBold.otf"),
            (FontDescriptor(family: "San Francisco", weight: 500, italic: true), "/usr/share/fonts/opentype/inter/Inter-MediumItalic.otf"),
            // CSS weight matching (fontconfig alone would pick Regular for 350).
            (FontDescriptor(family: "Roboto", weight: 350), ProjectFonts.roboto + "/Roboto-Light.ttf"),
            (FontDescriptor(family: "Roboto", weight: 600), ProjectFonts.roboto + "/Roboto-Bold.ttf"),
            (FontDescriptor(family: "Roboto", weight: 450), ProjectFonts.roboto + "/Roboto-Medium.ttf"),
            (FontDescriptor(family: "Liberation Sans", weight: 500), lib + "/LiberationSans-Regular.ttf"),
            (FontDescriptor(family: "Liberation Sans", weight: 300), lib + "/LiberationSans-Regular.ttf"),
            (FontDescriptor(family: "DejaVu Sans", italic: true), "/usr/share/fonts/truetype/dejavu/DejaVuSans-Oblique.ttf"),
            (FontDescriptor(family: "DejaVu Sans", weight: 100), "/usr/share/fonts/truetype/dejavu/DejaVuSans-ExtraLight.ttf"),
        ]
        for (font, file) in cases {
            XCTAssertEqual(measurer.fontFile(for: font), file, "\(font)")
        }
        XCTAssertEqual(measurer.resolvedFamily("helvetica"), "Liberation Sans")
        XCTAssertNil(measurer.resolvedFamily("Wingdings"))
    }

    func testAvailableFamiliesAreExactlyTheProjectFonts() {
        let families = measurer.availableFamilies()
        // The project's text families, and the fallback chain's (issue 20): Noto Sans <Script>
        // faces, Noto Sans CJK (its collection's regional and Mono families), Noto Color Emoji.
        let text: Set<String> = ["DejaVu Sans", "Inter", "Liberation Mono", "Liberation Sans", "Liberation Serif",
                                 "Noto Sans", "Roboto"]
        XCTAssertTrue(text.isSubset(of: Set(families.map(\.name))))
        for name in families.map(\.name) where !text.contains(name) {
            XCTAssertTrue(name.hasPrefix("Noto Sans ") || name.hasPrefix("Noto Sans Mono CJK") || name == "Noto Color Emoji", name)
        }
        for name in ["Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Thai", "Noto Sans Devanagari", "Noto Sans CJK SC",
                     "Noto Color Emoji"] {
            XCTAssertNotNil(families.first { $0.name == name }?.fallbackOrder, name)
        }
        let chain = families.filter { $0.fallbackOrder != nil }.sorted { $0.fallbackOrder! < $1.fallbackOrder! }.map(\.name)
        XCTAssertEqual(chain.first, "Noto Sans")
        XCTAssertEqual(Array(chain.suffix(2)), ["Noto Sans CJK SC", "Noto Color Emoji"])
        XCTAssertEqual(chain.dropFirst().dropLast(2).sorted(), Array(chain.dropFirst().dropLast(2)))
        let sans = families.first { $0.name == "Liberation Sans" }!
        XCTAssertTrue(Set(["helvetica", "helvetica neue", "arial"]).isSubset(of: Set(sans.aliases)))
        XCTAssertEqual(sans.weights, [400, 700])
        XCTAssertEqual(sans.faces.count, 4)
        for face in families.filter({ $0.name.hasPrefix("Liberation") }).flatMap(\.faces) {
            XCTAssertTrue(face.file.hasPrefix(ProjectFonts.liberation2 + "/"), face.file)
        }
        XCTAssertEqual(families.first { $0.name == "Inter" }?.weights, [100, 200, 300, 400, 500, 600, 700, 800, 900])
        XCTAssertTrue(families.first { $0.name == "Inter" }!.aliases.contains("system"))
    }

    func testExtraFontDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-fonts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("DejaVuSansMono.ttf")
        try FileManager.default.copyItem(atPath: "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", toPath: copy.path)

        XCTAssertNotNil(measurer.validate(FontDescriptor(family: "DejaVu Sans Mono")))
        let extra = try PangoTextMeasurer(extraFontDirectories: [dir.path], cacheCapacity: 0)
        XCTAssertNil(extra.validate(FontDescriptor(family: "DejaVu Sans Mono")))
        XCTAssertEqual(extra.fontFile(for: FontDescriptor(family: "dejavu sans mono")), copy.path)
        let reader = try FontFileReader(copy.path)
        let m = extra.measure(TextAttributes(spans: [TextSpan(text: "abc")], font: FontDescriptor(family: "DejaVu Sans Mono", size: 10)),
                              in: .infinite)
        assertClose(m.size.width, reader.advance("abc", px: 10), accuracy: 1e-3)
        XCTAssertEqual(m.size.height, reader.normalLineHeight(px: 10))

        XCTAssertThrowsError(try PangoTextMeasurer(extraFontDirectories: [dir.path + "-missing"]))
    }

    func testFallbackFontRaisesNormalLineHeight() throws {
        // U+0915 is not in Liberation Sans nor Noto Sans; Noto Sans Devanagari, in the chain, has it.
        let dejaVu = try FontFileReader("/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf")
        let sans = Self.sans
        let m = measure("a\u{0915}", font: sansFont)
        // The line gap split with the smaller half above (Chromium: testMixedFontsLineBox).
        func above(_ f: FontFileReader) -> Double { f.roundedAscent(px: 16) + (f.roundedLineGap(px: 16) / 2).rounded(.down) }
        func below(_ f: FontFileReader) -> Double { f.normalLineHeight(px: 16) - above(f) }
        let above = max(above(sans), above(dejaVu))
        let below = max(below(sans), below(dejaVu))
        XCTAssertEqual(m.size.height, above + below)
        // An explicit line height ignores fallback fonts.
        XCTAssertEqual(measure("a\u{0915}", font: sansFont, lineHeight: 20).size.height, 20)
    }

    // MARK: Threads and cache

    func testConcurrentMeasurementsMatchSequentialOnes() {
        let fonts = [monoFont, sansFont, FontDescriptor(family: "Roboto", size: 14, weight: 700),
                     FontDescriptor(family: "Inter", size: 13, italic: true)]
        let texts = ["The quick brown fox jumps over the lazy dog.", "a/b beta.2 010-2030 x / y",
                     "Line one\nLine two\n\nLine four", "Supercalifragilisticexpialidocious"]
        var built: [(TextAttributes, Size)] = []
        for (i, text) in texts.enumerated() {
            for (j, font) in fonts.enumerated() {
                for width in [40.0, 90, 200, .infinity] {
                    built.append((TextAttributes(spans: [TextSpan(text: text)], font: font, letterSpacing: Double(j) * 0.5,
                                                 maximumNumberOfLines: i % 3, truncationMode: TruncationMode.allCases[(i + j) % 6]),
                                  Size(width: width, height: .infinity)))
                }
            }
        }
        let inputs = built
        let shared = self.measurer
        let expected = inputs.map { shared.measure($0.0, in: $0.1) }
        let threads = 8, rounds = 5
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var ok: [Int: Bool] = [:]
        }
        let results = Results()
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            let thread = Thread {
                var ok = true
                for r in 0..<rounds {
                    for k in 0..<inputs.count {
                        let index = (k * (t + 1) + r) % inputs.count
                        if shared.measure(inputs[index].0, in: inputs[index].1) != expected[index] { ok = false }
                    }
                }
                results.lock.lock(); results.ok[t] = ok; results.lock.unlock()
                group.leave()
            }
            thread.start()
        }
        group.wait()
        XCTAssertEqual(results.ok.count, threads)
        XCTAssertTrue(results.ok.values.allSatisfy { $0 })
        XCTAssertGreaterThanOrEqual(measurer.engineCountCreated, 1)
    }

    func testCacheCountsHitsAndMisses() throws {
        let cached = try PangoTextMeasurer(cacheCapacity: 100)
        let text = TextAttributes(spans: [TextSpan(text: "cache me")], font: monoFont)
        let first = cached.measure(text, in: Size(width: 100, height: .infinity))
        let second = cached.measure(text, in: Size(width: 100, height: .infinity))
        _ = cached.measure(text, in: Size(width: 101, height: .infinity))
        XCTAssertEqual(first, second)
        var stats = cached.cacheStatistics
        XCTAssertEqual(stats.hits, 1)
        XCTAssertEqual(stats.misses, 2)
        XCTAssertEqual(stats.entries, 2)
        // Bounded: many distinct entries never exceed the capacity, and results stay right.
        for i in 0..<500 {
            let m = cached.measure(text, in: Size(width: 50 + Double(i), height: .infinity))
            XCTAssertEqual(m, cached.measureUncached(text, in: Size(width: 50 + Double(i), height: .infinity)))
        }
        stats = cached.cacheStatistics
        XCTAssertLessThanOrEqual(stats.entries, 100 + 16)
        cached.clearCache()
        XCTAssertEqual(cached.cacheStatistics.entries, 0)
        // NaN sizes are valid keys.
        _ = cached.measure(text, in: Size(width: .nan, height: .nan))
        _ = cached.measure(text, in: Size(width: .nan, height: .nan))
        XCTAssertEqual(cached.cacheStatistics.hits, 1)
    }

    /// A text node whose memo carries its record digest (as the service's do) is answered
    /// from the cache under that digest, with the answers it gets without one. The two kinds
    /// of entry do not find each other: a digest seen for the first time measures its text
    /// even when the same attributes are cached; each measurement is counted once, as a hit
    /// or a miss. Another measurer claiming the memo keeps the digest.
    func testMeasurementsKnownByTheirRecordDigest() throws {
        let cached = try PangoTextMeasurer(cacheCapacity: 100)
        let text = TextAttributes(spans: [TextSpan(text: "known by its digest")], font: monoFont)
        let size = Size(width: 100, height: .infinity)
        let fresh = cached.measureUncached(text, in: size)
        func measure(_ digest: ElementDigest?, _ size: Size) -> TextMeasurement {
            var memo = TextMeasurementMemo(recordDigest: digest)
            memo.claim(for: cached)
            return cached.measure(text, in: size, memo: &memo)
        }
        func counts() -> [Int] { let s = cached.cacheStatistics; return [s.hits, s.misses, s.entries] }
        let first = ElementDigest(high: 1, low: 2), second = ElementDigest(high: 3, low: 4)
        XCTAssertEqual(measure(first, size), fresh)
        XCTAssertEqual(counts(), [0, 1, 1])
        XCTAssertEqual(measure(first, size), fresh)
        XCTAssertEqual(counts(), [1, 1, 1])
        // Stored under the digest only: by its attributes the text is measured again.
        XCTAssertEqual(measure(nil, size), fresh)
        XCTAssertEqual(counts(), [1, 2, 2])
        // A new digest is measured (not looked for under the attributes), then found under itself.
        XCTAssertEqual(measure(second, size), fresh)
        XCTAssertEqual(counts(), [1, 3, 3])
        XCTAssertEqual(measure(second, size), fresh)
        XCTAssertEqual(counts(), [2, 3, 3])
        // The unlimited-width answer of a digest's text holds in any width it fits.
        let wide = measure(first, .infinite)
        XCTAssertLessThan(wide.size.width, 1000)
        XCTAssertEqual(measure(first, Size(width: 1000, height: .infinity)), cached.measureUncached(text, in: Size(width: 1000, height: .infinity)))
        XCTAssertEqual(counts(), [2, 5, 5], "two more misses (the second answered by reuse), two more answers")
        var memo = TextMeasurementMemo(recordDigest: first)
        memo.claim(for: cached)
        _ = cached.measure(text, in: size, memo: &memo)
        memo.claim(for: measurer)
        XCTAssertNil(memo.recent)
        XCTAssertEqual(memo.recordDigest, first)
    }

    func testUnlimitedWidthAnswerIsReusedOnlyWhenEverythingFits() throws {
        let cached = try PangoTextMeasurer(cacheCapacity: 100)
        let text = TextAttributes(spans: [TextSpan(text: "one two three\nfour")], font: monoFont,
                                  maximumNumberOfLines: 0)
        let wide = cached.measure(text, in: Size(width: .infinity, height: .infinity))
        assertClose(wide.size.width, 13 * a)
        for width in [13 * a, 13 * a + 5, 12.5 * a, 5 * a, 100 * a] {
            let size = Size(width: width, height: .infinity)
            XCTAssertEqual(cached.measure(text, in: size), cached.measureUncached(text, in: size), "\(width)")
        }
        var limited = text
        limited.maximumNumberOfLines = 1
        _ = cached.measure(limited, in: .infinite)
        for width in [14 * a, 13.5 * a, 10 * a] {
            let size = Size(width: width, height: .infinity)
            XCTAssertEqual(cached.measure(limited, in: size), cached.measureUncached(limited, in: size), "\(width)")
        }
    }

    /// A text node passes its memo with every measurement; answers the measurer derives
    /// from the memo (a width between an answer's longest line and the width it was measured
    /// in, a height at least its height) must be exactly what Pango gives afresh.
    func testAnswersFromTheMemoAreFreshAnswers() {
        let words = ["Lorem", "ipsum", "dolor", "sit", "amet,", "AVATAR", "Type", "office", "well-known", "a/b",
                     "e.g.", "50/50", "café", "中文", "👍🏽", "x", "W", "—", "\n", "supercalifragilistic"]
        var seed: UInt64 = 0xD1B54A32D192ED03
        func next(_ n: Int) -> Int {
            seed = LCG.step(seed)
            return Int((seed >> 33) % UInt64(n))
        }
        let fonts = [monoFont, sansFont, FontDescriptor(family: "Inter", size: 15), FontDescriptor(family: "Roboto", size: 13)]
        var derivable = 0
        for iteration in 0..<120 {
            let text = (0..<(1 + next(25))).map { _ in words[next(words.count)] }.joined(separator: " ")
            let attributes = TextAttributes(spans: [TextSpan(text: text)], font: fonts[next(fonts.count)],
                                            lineHeight: next(3) == 0 ? Double(14 + next(10)) : nil,
                                            lineSpacing: Double(next(3)), letterSpacing: [0, 0, 0.5, -0.5][next(4)],
                                            alignment: TextAlignment.allCases[next(5)],
                                            maximumNumberOfLines: [0, 0, 1, 2, 3][next(5)],
                                            truncationMode: TruncationMode.allCases[next(6)])
            var memo = TextMeasurementMemo()
            memo.claim(for: measurer)
            var container = Size(width: [Double.infinity, 343, 200, 120][next(4)], height: .infinity)
            for step in 0..<8 {
                let known = [memo.recent, memo.earlier].compactMap { $0 }
                let got = measurer.measure(attributes, in: container, memo: &memo)
                let fresh = measurer.measureUncached(attributes, in: container)
                XCTAssertEqual(got, fresh, "#\(iteration).\(step) \(text) in \(container.width)×\(container.height)")
                if known.contains(where: { !$0.container.bitwiseEquals(container) && $0.measurement == fresh }) { derivable += 1 }
                // Next: just around the answer's width or height, the width it came from, or elsewhere.
                let m = got
                switch next(6) {
                case 0: container.width = m.size.width
                case 1: container.width = Swift.max(0, m.size.width - 0.25)
                case 2: container.width = m.size.width + Double(next(40))
                case 3: container.height = m.size.height
                case 4: container.height = Swift.max(0, m.size.height - 0.01)
                default: container = Size(width: Double(40 + next(300)), height: next(2) == 0 ? .infinity : Double(10 + next(80)))
                }
            }
        }
        XCTAssertGreaterThan(derivable, 150, "the memo should have answered many of these")
    }

    func testRandomTextsKeepTheInvariants() {
        // Deterministic pseudo-random strings mixing scripts, marks, emoji, white space and
        // the punctuation the break patches handle.
        let pool = ["a", "b", "Wo", " ", "  ", "\n", "\t", "\r\n", "/", ".", "-", "1", "2", "é", "e\u{301}", "👍🏽", "👩‍👩‍👧",
                    "中文", "שלום", "مرحبا", "\u{200B}", "\u{2060}", "\u{A0}", "(", ")", "?", "!", "…", "ﬁ", "Ω", "http://x.y/z"]
        var seed: UInt64 = 0x9E3779B97F4A7C15
        func next(_ n: Int) -> Int {
            seed = LCG.step(seed)
            return Int((seed >> 33) % UInt64(n))
        }
        let fonts = [monoFont, sansFont, FontDescriptor(family: "DejaVu Sans", size: 9), FontDescriptor(family: "Inter", size: 21)]
        for iteration in 0..<300 {
            var spans: [TextSpan] = []
            for _ in 0..<(1 + next(3)) {
                var text = ""
                for _ in 0..<next(12) { text += pool[next(pool.count)] }
                spans.append(TextSpan(text: text, font: next(2) == 0 ? nil : fonts[next(fonts.count)],
                                      letterSpacing: next(3) == 0 ? Double(next(5)) - 1 : nil))
            }
            let lines = next(4)
            let attributes = TextAttributes(spans: spans, font: fonts[next(fonts.count)],
                                            lineHeight: next(3) == 0 ? Double(10 + next(20)) : nil,
                                            lineSpacing: Double(next(3)), letterSpacing: Double(next(3)) * 0.5,
                                            maximumNumberOfLines: lines,
                                            truncationMode: TruncationMode.allCases[next(6)])
            let width = [0.0, 15, 60, 140, .infinity][next(5)]
            let height = [.infinity, 40.0, 12][next(3)]
            let m = measurer.measure(attributes, in: Size(width: width, height: height))
            let label = "#\(iteration) \(spans.map(\.text)) w=\(width) h=\(height) \(attributes.truncationMode)"
            XCTAssertTrue(m.size.width.isFinite && m.size.width >= 0, label)
            XCTAssertTrue(m.size.height.isFinite && m.size.height >= 0, label)
            if lines > 0 { XCTAssertLessThanOrEqual(m.lineCount, lines, label) }
            if height.isFinite { XCTAssertLessThanOrEqual(m.size.height, height + 1e-6, label) }
            if m.lineCount == 0 { XCTAssertEqual(m.size, .zero, label) }
            XCTAssertTrue(m.ascender.isFinite && m.descender.isFinite, label)
            XCTAssertEqual(m, measurer.measure(attributes, in: Size(width: width, height: height)), label)
        }
    }

    func testConformsToTextMeasuring() {
        let m: any TextMeasuring = measurer
        XCTAssertNil(m.validate(.attributedStringDefault))
        let r = m.measure(TextAttributes(spans: [TextSpan(text: "x")]), in: .infinite)
        XCTAssertEqual(r.size.height, Self.sans.normalLineHeight(px: 12))
    }
}
