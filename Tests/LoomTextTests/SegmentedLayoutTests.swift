import XCTest
import Foundation
import LoomLayout
@testable import LoomText
import LoomTestSupport

/// Long texts are laid out by Pango in windows (SegmentedLayout.swift). Their lines must be
/// the lines of one Pango layout of the whole text, wherever the windows' seams fall: these
/// tests lay random texts out both ways, with the smallest windows (a seam every few lines)
/// and with the default ones, and compare every answer.
///
/// Each text is measured by fresh measurers: Pango 1.50 remembers, per font set, the font it
/// took for a character no font covers (the text's own font, itemize.c get_font), so a
/// missing glyph's box can depend on which text an engine measured first; that is Pango's
/// memory, not the windows', and the comparison leaves it out.
final class SegmentedLayoutTests: XCTestCase {
    static func measurers() -> (whole: PangoTextMeasurer, smallest: PangoTextMeasurer, windows: PangoTextMeasurer) {
        (try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0, strategy: .whole),
         try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0, strategy: .windows(scale: 0)),
         try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0, strategy: .windows(scale: 4)))
    }

    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = LCG.step(state)
            var z = state
            z = (z ^ (z >> 33)) &* 0xff51afd7ed558ccd
            return z ^ (z >> 29)
        }
        mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
        mutating func pick<T>(_ a: [T]) -> T { a[int(a.count)] }
    }

    static let families = ["Liberation Sans", "Liberation Serif", "Liberation Mono", "Inter", "Roboto", "DejaVu Sans",
                           "Noto Sans"]

    /// A word of some script (or a run with no break opportunity at all).
    static func word(_ r: inout Random) -> String {
        func letters(_ pool: [Character], _ count: Int, _ r: inout Random) -> String {
            String((0..<count).map { _ in r.pick(pool) })
        }
        let latin = Array("abcdefghijklmnopqrstuvwxyzAVWTfiflé")
        switch r.int(20) {
        case 0: return letters(latin, 40 + r.int(200), &r)                    // a long word
        case 1: return letters(Array("ابتثجحخدذرسشصضطظعغفقكلمنهوي"), 2 + r.int(30), &r)   // Arabic, joined
        case 2: return letters(Array("אבגדהוזחטיכלמנסעפצקרשת"), 2 + r.int(8), &r)       // Hebrew
        case 3: return letters(Array("日本語の文章を書く漢字仮名交じり文"), 1 + r.int(40), &r)  // no spaces needed
        case 4: return letters(Array("कखगघङचछजझञटठडढणतथदधन"), 2 + r.int(6), &r) + "\u{093F}"
        case 5: return ["1.2.3", "10-20", "(a)", "x/y", "v2.0", "a-b", "?!", "\u{2026}", "50%", "$10", "...."][r.int(11)]
        case 6: return "\u{1F600}\u{1F44D}\u{1F3FD}"                          // missing glyphs
        case 7: return letters(Array("0123456789.,%"), 5 + r.int(60), &r)      // numbers, UAX #14 rule 25
        case 8: return letters(latin, 1 + r.int(3), &r) + "\u{0301}\u{0308}"   // combining marks
        default: return letters(latin, 1 + r.int(9), &r)
        }
    }

    static func text(_ r: inout Random, length: Int) -> TextAttributes {
        var spans: [TextSpan] = []
        var total = 0
        let spanCount = r.chance(0.5) ? 1 : 1 + r.int(4)
        for s in 0..<spanCount {
            var t = ""
            while t.unicodeScalars.count < length / spanCount {
                t += word(&r)
                t += r.chance(0.04) ? (r.chance(0.5) ? "\n" : "\n\n") : (r.chance(0.1) ? "  " : " ")
            }
            total += t.count
            let font: FontDescriptor? = s == 0 || r.chance(0.3) ? nil
                : FontDescriptor(family: r.pick(families), size: [9, 13, 17.5, 24, 40][r.int(5)], weight: r.pick([400, 700]))
            let spacing: Double? = r.chance(0.7) ? nil : r.pick([-2, -0.5, 1, 3.25, 12])
            spans.append(TextSpan(text: t, font: font, letterSpacing: spacing))
        }
        _ = total
        let mode: TruncationMode = r.chance(0.2) ? .charWrap : r.pick([.tail, .head, .middle, .clip, .wordWrap])
        return TextAttributes(spans: spans, font: FontDescriptor(family: r.pick(families), size: [8, 12, 15, 20][r.int(4)]),
                              lineHeight: r.chance(0.3) ? 18 : nil, lineSpacing: r.chance(0.3) ? 2 : 0,
                              letterSpacing: r.chance(0.8) ? 0 : r.pick([-1, 0.5, 2, 25]),
                              maximumNumberOfLines: r.chance(0.5) ? 0 : 1 + r.int(30), truncationMode: mode)
    }

    func assertSame(_ a: TextMeasurement, _ b: TextMeasurement, _ message: @autoclosure () -> String,
                    file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.lineCount, b.lineCount, "lines " + message(), file: file, line: line)
        XCTAssertEqual(a.size.width, b.size.width, "width " + message(), file: file, line: line)
        XCTAssertEqual(a.size.height, b.size.height, "height " + message(), file: file, line: line)
        XCTAssertEqual(a.truncated, b.truncated, "truncated " + message(), file: file, line: line)
    }

    func testWindowsGiveTheWholeLayoutsLines() {
        let environment = ProcessInfo.processInfo.environment
        var r = Random(state: environment["LOOM_TEST_SEED"].flatMap(UInt64.init) ?? 20_251_124)
        let widths: [Double] = [1e-6, 0, 4, 23.5, 61, 140, 200, 333.25, 1000]
        var failures = 0
        for index in 0..<(environment["LOOM_TEST_TEXTS"].flatMap(Int.init) ?? 40) {
            let t = Self.text(&r, length: 60 + r.int(900))
            let width = r.pick(widths)
            let container = Size(width: width, height: r.chance(0.2) ? 250 : .infinity)
            let (whole, smallest, windows) = Self.measurers()
            let expected = whole.measure(t, in: container)
            for (name, m) in [("smallest", smallest), ("default", windows)] {
                let got = m.measure(t, in: container)
                if got != expected { failures += 1 }
                assertSame(got, expected, "\(name) windows, text \(index), width \(width): \(t.string.prefix(80))")
            }
            if failures > 6 { break }
        }
    }

    func testLongWordsAndNarrowWidths() {
        // The cases Pango is slow at, short enough for one whole layout.
        let base = FontDescriptor(family: "Liberation Sans", size: 12)
        let cases: [(String, [TextSpan])] = [
            ("aaaa", [TextSpan(text: String(repeating: "a", count: 1500))]),
            ("AVAV", [TextSpan(text: String(repeating: "AVWAfi", count: 250))]),
            ("arabic", [TextSpan(text: String(repeating: "بتثجحخ", count: 200))]),
            ("mixed", [TextSpan(text: String(repeating: "x", count: 600)),
                       TextSpan(text: String(repeating: "y", count: 600), font: FontDescriptor(family: "Roboto", size: 20)),
                       TextSpan(text: " end of it")]),
            ("spacing", [TextSpan(text: String(repeating: "ab", count: 500), letterSpacing: 7)]),
            ("words", [TextSpan(text: String(repeating: "lorem ipsum dolor sit amet ", count: 60))]),
            // Paragraphs of both directions and none (a neutral one takes the one before).
            ("paragraphs", [TextSpan(text: String(repeating: "12 (34) 56\nשלום עולם, (1) ok\n789!\nhello مرحبا\n\n42 ", count: 30))]),
            ("rtl first", [TextSpan(text: "٣٤ 56\n" + String(repeating: "عالم جميل 12 ", count: 100) + "\nabc ((1))")]),
        ]
        for (name, spans) in cases {
            for width in [1e-6, 50, 200] {
                for mode in [TruncationMode.wordWrap, .charWrap] {
                    let t = TextAttributes(spans: spans, font: base, truncationMode: mode)
                    let container = Size(width: width, height: .infinity)
                    let (whole, smallest, windows) = Self.measurers()
                    let expected = whole.measure(t, in: container)
                    assertSame(smallest.measure(t, in: container), expected, "\(name) at \(width) \(mode)")
                    assertSame(windows.measure(t, in: container), expected, "\(name) at \(width) \(mode)")
                }
            }
        }
    }
}
