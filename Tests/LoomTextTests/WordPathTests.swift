import XCTest
import Foundation
import LoomLayout
import LoomText

/// The word path (cached word advances, WordShaping.swift) must give exactly what a Pango
/// layout gives: both measurers here are uncached, one with the word cache and one without.
final class WordPathTests: XCTestCase {
    static let withWords: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0)
    static let pangoOnly: PangoTextMeasurer = try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0)

    /// Deterministic generator (SplitMix64).
    struct Rng {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ xs: [T]) -> T { xs[int(xs.count)] }
        mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
    }

    /// Measures `text` from words and by a Pango layout; a disagreement is counted and, for
    /// the first ten, reported with `label`.
    func compare(_ text: TextAttributes, _ size: Size, _ mismatches: inout Int, _ label: @autoclosure () -> String,
                 file: StaticString = #filePath, line: UInt = #line) {
        let fast = Self.withWords.measureUncached(text, in: size)
        let slow = Self.pangoOnly.measureUncached(text, in: size)
        guard fast != slow else { return }
        mismatches += 1
        if mismatches <= 10 { XCTFail("\(label()): words \(fast) ≠ pango \(slow)", file: file, line: line) }
    }

    /// More than `fromWords` texts were measured from words and more than `fromLayout` by a
    /// Pango layout since `before` (a generator meant to exercise both paths does).
    func assertPaths(since before: (fromWords: Int, fromLayout: Int), _ label: String, fromWords: Int, fromLayout: Int,
                     file: StaticString = #filePath, line: UInt = #line) {
        let after = Self.withWords.measurementPaths
        let words = after.fromWords - before.fromWords, layouts = after.fromLayout - before.fromLayout
        print("\(label): \(words) from words, \(layouts) by Pango layout")
        XCTAssertGreaterThan(words, fromWords, file: file, line: line)
        XCTAssertGreaterThan(layouts, fromLayout, file: file, line: line)
    }

    /// Words chosen for kerning against spaces and each other (T, A, Y, L, P, V, W, quotes,
    /// periods, commas), ligatures (fi, fl, ff), the triggers of Inter's contextual forms
    /// (x, @, -, :, brackets), digits-only paragraphs (Common script), break opportunities
    /// inside words (fall back), and the stand-alone punctuation marks.
    static let vocabulary = [
        "To", "Tea", "AY", "LT", "Yes", "PA", "A", "T", "Y", "L", "P", "V", "W", "fox", "box", "x", "office",
        "flight", "waffle", "@handle_1", "1h", "2,400", "e.g.", "(note)", "[x]", "don't", "\"quote\"", "well-known",
        "beta.2", "a/b", "·", "—", "–", "…", "•", "T.", "A,", "Y!", "L?", "100%", "$5", "#tag", "a:b", "->", "x2",
        "3x4", "Wave", "VAT", "AVATAR", "Type", "Lorem", "ipsum", "dolor", "sit", "amet", "quick", "brown", "jumps",
        "over", "the", "lazy", "dog.", "Pack", "my", "with", "five", "dozen", "liquor", "jugs!", "'tis", "rock'n'roll",
        "Tr.", "Ty", "Vo", "Wa", "Yo", "\"T\"", "'A'", "P.", "F.", "r.", "y,", "f", "ff", "fi", "fl", "12", "7",
        "10:30", "v1.2", "a_b", "q&a", "50/50", "010-2030", "Zoë", "café", "naïve", "über", "mañana",
        "@Handle", "(ABC)", "X", "ABC", "HTTP:", "(1)", "+", "=", "~", "@you", "5h", "-", "3", "×",
    ]
    static let plainVocabulary = vocabulary.filter { w in
        w.unicodeScalars.allSatisfy { $0.value < 0x80 } && !["well-known", "a/b", "50/50", "010-2030", "->", "q&a"].contains(w)
    } + ["·", "—", "…"]
    static let fonts: [FontDescriptor] = [
        FontDescriptor(family: "Roboto", size: 12), FontDescriptor(family: "Roboto", size: 15, weight: 600),
        FontDescriptor(family: "Roboto", size: 17, weight: 700), FontDescriptor(family: "Roboto", size: 14, italic: true),
        FontDescriptor(family: "Inter", size: 13), FontDescriptor(family: "Inter", size: 16, weight: 600),
        FontDescriptor(family: "Inter", size: 12, weight: 700), FontDescriptor(family: "Liberation Sans", size: 12),
        FontDescriptor(family: "Liberation Sans", size: 14, weight: 700), FontDescriptor(family: "Liberation Sans", size: 17, weight: 600),
        FontDescriptor(family: "Liberation Serif", size: 15), FontDescriptor(family: "Liberation Mono", size: 13),
        FontDescriptor(family: "DejaVu Sans", size: 13), FontDescriptor(family: "Noto Sans", size: 14),
        FontDescriptor(family: "system", size: 17), FontDescriptor(family: "Helvetica", size: 13.5),
        FontDescriptor(family: "Roboto", size: 9.3), FontDescriptor(family: "Inter", size: 20.7),
    ]

    static func randomCase(_ r: inout Rng) -> (TextAttributes, Size) {
        var text = ""
        let plain = r.chance(0.5)  // words the word path takes (in most fonts)
        let words = 1 + r.int(r.chance(0.3) ? 6 : 40)
        for k in 0..<words {
            if k > 0 {
                text += r.chance(0.9) ? " " : r.pick(["  ", "\t", "\n", "\n\n", " \n "])
            }
            if r.chance(plain ? 0.01 : 0.05) {
                text += String(repeating: r.pick(["m", "i", "W", "T"]), count: 5 + r.int(40))  // maybe too long for the line
            } else {
                text += r.pick(plain ? plainVocabulary : vocabulary)
            }
        }
        if r.chance(0.05) { text = " " + text + " " }
        if r.chance(0.03) { text += "\n" }
        let font = r.pick(fonts)
        let lineHeight: Double? = r.chance(0.4) ? font.size * (1 + Double(r.int(8)) / 10) : nil
        let lines = r.chance(0.5) ? 0 : 1 + r.int(3)
        let mode = r.pick([TruncationMode.tail, .tail, .wordWrap, .head, .middle, .clip])
        let spacing: Double = r.chance(plain ? 0.02 : 0.1) ? 0.5 : 0
        let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font, lineHeight: lineHeight,
                                        lineSpacing: r.chance(0.2) ? 3 : 0, letterSpacing: spacing,
                                        maximumNumberOfLines: lines, truncationMode: mode)
        let width: Double = r.chance(0.15) ? .infinity : Double(20 + r.int(400)) + (r.chance(0.5) ? Double(r.int(64)) / 64 : 0)
        let height: Double = r.chance(0.85) ? .infinity : Double(10 + r.int(80))
        return (attributes, Size(width: width, height: height))
    }

    /// Engines keep their own copies of the word entries they use; emptying the shared
    /// word cache must empty those too (the benchmark's fully cold rows rely on it), so the
    /// words are shaped again and land in the shared cache again.
    func testClearingTheWordCacheReachesEveryEngine() throws {
        let m = try PangoTextMeasurer(cacheCapacity: 0)
        let text = TextAttributes(spans: [TextSpan(text: "Pack my box with five dozen liquor jugs")],
                                  font: FontDescriptor(family: "Roboto", size: 15))
        let first = m.measure(text, in: Size(width: 120, height: .infinity))
        XCTAssertEqual(m.measurementPaths.fromWords, 1)
        XCTAssertEqual(m.wordCacheCount, 8, "each word once (first: space after; middle: both; last: space before)")
        m.clearWordCache()
        XCTAssertEqual(m.wordCacheCount, 0)
        XCTAssertEqual(m.measure(text, in: Size(width: 120, height: .infinity)), first)
        XCTAssertEqual(m.wordCacheCount, 8, "the words were shaped again, not taken from an engine's copy")
    }

    func testWordPathAgreesWithPango() {
        var r = Rng(state: 42)
        let before = Self.withWords.measurementPaths
        var mismatches = 0
        for index in 0..<6000 {
            let (text, size) = Self.randomCase(&r)
            compare(text, size, &mismatches,
                    "case \(index): \(text.font) \(size) lines \(text.maximumNumberOfLines) \(text.truncationMode) "
                    + "\(text.string.debugDescription)")
        }
        XCTAssertEqual(mismatches, 0)
        // The generator is meant to exercise the word path (most cases) and the fallbacks.
        assertPaths(since: before, "word path", fromWords: 2500, fromLayout: 500)
    }

    /// Inter's contextual lookups that involve the space (case-sensitive punctuation next to
    /// capitals or digits, across spaces; × between digits): texts with their input
    /// characters are measured from words when those lookups change nothing in them
    /// (loom_rules_change_nothing), and must agree with Pango at every width.
    func testContextualFormsAgreeWithPango() {
        let words = ["@handle_1", "·", "5h", "@Handle", "@HANDLE", "(note)", "(ABC)", "(1)", "[x]", "{a}", "fox", "x",
                     "3", "x2", "3x4", "X", "A", "B", "ABC", "HTTP:", "a:b", "-", "+", "=", "~", "•", "–", "—", "<b>",
                     "12", "The", "quick", "brown", "jumps", "over", "lazy", "dog.", "Hello", "world", "OK", "TV", "(",
                     ")", "@", ":", "x:", "Box", "BOX"]
        let fonts = [FontDescriptor(family: "Inter", size: 13), FontDescriptor(family: "Inter", size: 16, weight: 600),
                     FontDescriptor(family: "system", size: 17), FontDescriptor(family: "Inter", size: 12, weight: 700)]
        var r = Rng(state: 99)
        let before = Self.withWords.measurementPaths
        var mismatches = 0
        for index in 0..<1500 {
            var text = ""
            for k in 0..<(1 + r.int(12)) {
                if k > 0 { text += r.chance(0.95) ? " " : "\n" }
                text += r.pick(words)
            }
            let t = TextAttributes(spans: [TextSpan(text: text)], font: r.pick(fonts),
                                   maximumNumberOfLines: r.chance(0.3) ? 1 + r.int(2) : 0, truncationMode: .tail)
            for width in [Double.infinity, Double(30 + r.int(200)) + Double(r.int(64)) / 64] {
                let size = Size(width: width, height: .infinity)
                compare(t, size, &mismatches, "case \(index): \(t.font) \(width) \(text.debugDescription)")
            }
        }
        XCTAssertEqual(mismatches, 0)
        // Both kinds occur: texts where the lookups act (Pango) and where they do not (words).
        assertPaths(since: before, "contextual forms", fromWords: 700, fromLayout: 300)
        // The feed's time stamps are measured from words.
        let stamp = TextAttributes(spans: [TextSpan(text: "@handle_1 · 5h")], font: FontDescriptor(family: "Inter", size: 13))
        let b2 = Self.withWords.measurementPaths
        _ = Self.withWords.measureUncached(stamp, in: Size(width: 200, height: .infinity))
        XCTAssertEqual(Self.withWords.measurementPaths.fromWords, b2.fromWords + 1)
    }

    /// Kerning against the space, the reason words are shaped with their spaces: a line
    /// "AT TA" in Liberation Sans is not the sum of "AT", " " and "TA" shaped alone.
    func testKerningAgainstSpacesIsKept() {
        let font = FontDescriptor(family: "Liberation Sans", size: 40)
        for s in ["Ay Ty LY", "T A T A", "AVA. YAY, TATA", "x A -> T", "fi fl ff"] {
            for w in [Double.infinity, 120, 200, 61.5] {
                let t = TextAttributes(spans: [TextSpan(text: s)], font: font)
                XCTAssertEqual(Self.withWords.measureUncached(t, in: Size(width: w, height: .infinity)),
                               Self.pangoOnly.measureUncached(t, in: Size(width: w, height: .infinity)), "\(s) at \(w)")
            }
        }
    }

    /// Every break position of texts full of pairs that kern against the space (T, A, Y,
    /// L, P, V, W, periods, commas, quotes): widths scanned in 1/8 px steps, so each line
    /// end is hit just below, at and just above its threshold.
    func testBreakThresholdsAgreeWithPango() {
        let texts = ["1h VAT T T. AY LT Ty PA 'A' Wa Vo", "A T Y L P V W. T, \"T\" y, r. F. AVA",
                     "office flight waffle ff fi fl T Tea", "2,400 10:30 · — … 12 7 $5 100%"]
        let fonts = [0, 1, 4, 5, 7, 8, 9, 13, 14, 15].map { Self.fonts[$0] }
        var mismatches = 0
        for font in fonts {
            for text in texts {
                let t = TextAttributes(spans: [TextSpan(text: text)], font: font)
                for step in 0..<1000 {
                    let size = Size(width: 15 + Double(step) / 8, height: .infinity)
                    compare(t, size, &mismatches, "\(font) \(text.debugDescription) at \(size.width)")
                }
            }
        }
        XCTAssertEqual(mismatches, 0)
    }

    /// The word path reads a text's UTF-8 bytes once (WordShaping.swift, `breakLines`),
    /// collapsing white space as CSS `pre-line` does on its own: tabs, runs of spaces, `\r\n`
    /// and `\r`, spaces around line ends, empty paragraphs, spaces and line ends at the start
    /// and the end, texts in several spans (a `\r\n` cut between two of them). Its words are
    /// keyed by length (up to 8, 16 and 24 bytes packed in integers, longer ones by string),
    /// and characters that send a text to Pango sit next to ones that do not.
    func testWhiteSpaceSpansAndWordLengthsAgreeWithPango() {
        let words = ["a", "To", "fox", "jumps.", "office", "AVATAR", "T.", "@tomorrow_lazy3", "@follow_yesterday7",
                     "abcdefghijklmnopqrstuvw", "abcdefghijklmnopqrstuvwx", "abcdefghijklmnopqrstuvwxy",
                     "Supercalifragilisticexpialidocious", "·", "—", "…", "1-2", "(ABC)", "@handle_1", "5h", "x"]
        let fallbacks = ["x·y", "a—b", "café", "a-1", "well-known", "a\u{00A0}b", "\u{200B}", "a\u{0B}b"]
        let separators = [" ", " ", " ", "  ", "\t", " \t ", "\n", "\r\n", "\r", "\n\n", " \n ", "\r\n\r\n", "\r\r\n",
                          "\n \n", "\t\r\n\t"]
        let ends = ["", "", "", " ", "\t", "\n", "\n\n", " \r\n", "\r", "\r\n \n"]
        let fonts = [FontDescriptor(family: "Roboto", size: 15), FontDescriptor(family: "Inter", size: 13),
                     FontDescriptor(family: "Liberation Sans", size: 14, weight: 700)]
        var r = Rng(state: 2024)
        var cases: [(String, [String])] = []
        for blank in ["", " ", "\t", "\n", "\r\n", "\r", " \n\t", "\n\n", "\r\n\r\n "] { cases.append((blank, [blank])) }
        cases.append(("a\r\nb", ["a\r", "\nb"]))
        cases.append(("a\r\n", ["a\r", "\n"]))
        cases.append(("fox  jumps", ["fox ", " jumps"]))
        cases.append(("office", ["off", "ice"]))
        while cases.count < 3000 {
            var text = r.pick(ends)
            for k in 0..<(1 + r.int(r.chance(0.5) ? 4 : 16)) {
                if k > 0 { text += r.pick(separators) }
                text += r.chance(0.04) ? r.pick(fallbacks) : r.pick(words)
            }
            text += r.pick(ends)
            // Cut into up to three spans at character boundaries (the same font throughout).
            let scalars = Array(text.unicodeScalars)
            var spans: [String] = []
            var start = 0
            for _ in 0..<r.int(3) where scalars.count > 1 {
                let cut = start + r.int(scalars.count - start)
                spans.append(String(String.UnicodeScalarView(scalars[start..<cut])))
                start = cut
            }
            spans.append(String(String.UnicodeScalarView(scalars[start...])))
            cases.append((text, spans))
        }
        let before = Self.withWords.measurementPaths
        var mismatches = 0
        for (index, (text, spans)) in cases.enumerated() {
            let t = TextAttributes(spans: spans.map { TextSpan(text: $0) }, font: r.pick(fonts),
                                   maximumNumberOfLines: r.chance(0.3) ? 1 + r.int(3) : 0,
                                   truncationMode: r.pick([TruncationMode.tail, .wordWrap, .clip]))
            let width: Double = r.chance(0.2) ? .infinity : Double(20 + r.int(300)) + Double(r.int(64)) / 64
            let size = Size(width: width, height: .infinity)
            compare(t, size, &mismatches, "case \(index): \(t.font) \(width) \(spans.map(\.debugDescription))")
        }
        XCTAssertEqual(mismatches, 0)
        assertPaths(since: before, "white space and word lengths", fromWords: 1000, fromLayout: 500)
    }

    /// Words that share their first 8 or 16 bytes (and their length) and differ after them
    /// are different keys: each gets its own advances.
    func testWordsSharingAPrefixAreDifferentKeys() {
        let m = try! PangoTextMeasurer(cacheCapacity: 0)
        let font = FontDescriptor(family: "Roboto", size: 15)
        for prefix in ["Wavelets", "WaveletsWavelets", "WaveletsWaveletsWavelets"] {
            var widths: Set<Double> = []
            for tail in ["iiii", "WWWW", "iiWW", "mmmm", ""] {
                for text in [prefix + tail, "a " + prefix + tail + " b"] {
                    let t = TextAttributes(spans: [TextSpan(text: text)], font: font)
                    let size = Size(width: Double.infinity, height: .infinity)
                    let fast = m.measureUncached(t, in: size)
                    XCTAssertEqual(fast, Self.pangoOnly.measureUncached(t, in: size), text)
                    if !text.hasPrefix("a ") { widths.insert(fast.size.width) }
                }
            }
            XCTAssertEqual(widths.count, 5, prefix)
        }
        XCTAssertEqual(m.measurementPaths.fromLayout, 0)
    }

    /// More distinct words than an engine's word table holds (it grows, then is emptied and
    /// filled again): every answer still agrees with Pango, and measuring again (from the
    /// table) gives the same answers.
    func testManyDistinctWordsAgreeWithPango() {
        let m = try! PangoTextMeasurer(cacheCapacity: 0)
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var r = Rng(state: 5)
        var texts: [TextAttributes] = []
        for _ in 0..<1500 {
            let words = (0..<(4 + r.int(8))).map { _ in String((0..<(1 + r.int(r.chance(0.2) ? 28 : 9))).map { _ in r.pick(letters) }) }
            texts.append(TextAttributes(spans: [TextSpan(text: words.joined(separator: " "))],
                                        font: FontDescriptor(family: "Roboto", size: 14)))
        }
        let size = Size(width: 500, height: .infinity)
        let first = texts.map { m.measureUncached($0, in: size) }
        XCTAssertGreaterThan(m.wordCacheCount, 8192, "more than an engine's table holds")
        var mismatches = 0
        for (index, text) in texts.enumerated() {
            let again = m.measureUncached(text, in: size)
            let slow = Self.pangoOnly.measureUncached(text, in: size)
            if first[index] != slow || again != slow {
                mismatches += 1
                if mismatches <= 10 { XCTFail("\(text.string.debugDescription): \(first[index]), again \(again) ≠ pango \(slow)") }
            }
        }
        XCTAssertEqual(mismatches, 0)
        XCTAssertEqual(m.measurementPaths.fromLayout, 0)
    }

    /// Four threads on one measurer with a tiny word cache (constant eviction) give the
    /// sequential answers, for every kind of text (the Pango path included: its line breaks
    /// once depended on which thread first loaded a font; MeasurementThreadIndependenceTests).
    func testConcurrentWordPathIsConsistent() {
        var r = Rng(state: 7)
        var cases: [(TextAttributes, Size)] = []
        while cases.count < 300 { cases.append(Self.randomCase(&r)) }
        let expected = cases.map { Self.pangoOnly.measureUncached($0.0, in: $0.1) }
        let measurer = try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 64)
        let failures = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        failures.initialize(repeating: 0, count: 4)
        defer { failures.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 4) { t in
            for i in 0..<cases.count {
                let c = (i + t * 37) % cases.count
                let got = measurer.measureUncached(cases[c].0, in: cases[c].1)
                if got != expected[c] {
                    failures[t] += 1
                    print("thread \(t) case \(c): \(cases[c].0.font) \(cases[c].1) \(cases[c].0.string.debugDescription) got \(got) expected \(expected[c])")
                }
            }
        }
        XCTAssertEqual(failures[0] + failures[1] + failures[2] + failures[3], 0)
    }
}
