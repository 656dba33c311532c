import XCTest
import LoomLayout
import LoomText

/// A fallback word shaped once in a face and measured in its other sizes from its glyphs'
/// own advances (FallbackWords.swift's shapeFallbackWord) must measure exactly as Pango's
/// layout of the text in each size.
final class FallbackSizeTests: XCTestCase {
    typealias Rng = WordPathTests.Rng

    func testFallbackWordsInEverySizeAgreeWithPango() {
        // A fresh word cache: each word's first size is shaped, the others derived.
        let measurer = try! PangoTextMeasurer(cacheCapacity: 0)
        let pango = WordPathTests.pangoOnly
        var r = Rng(state: 5001)
        let words = FallbackWordTests.fallbackWords + RightToLeftWordTests.arabic + RightToLeftWordTests.hebrew
            + ["東京。", "ー", "カタカナ", "한국어", "ภาษา"]
        let families = ["Roboto", "Inter", "Liberation Sans", "Noto Sans", "DejaVu Sans"]
        var mismatches = 0, fromWords = 0
        let cases = 1500
        for index in 0..<cases {
            // Sizes from 6 to 48 px in 1/64 steps: rounding in each size is checked too.
            let size = 6 + Double(r.int(42 * 64)) / 64
            let font = FontDescriptor(family: r.pick(families), size: size, weight: r.pick([400, 400, 500, 600, 700]),
                                      italic: r.chance(0.2))
            var parts: [String] = []
            for _ in 0..<(1 + r.int(3)) { parts.append(r.pick(words)) }
            let text = TextAttributes(spans: [TextSpan(text: parts.joined(separator: " "))], font: font)
            let container = Size(width: .infinity, height: .infinity)
            let before = measurer.measurementPaths.fromWords
            let got = measurer.measureUncached(text, in: container)
            if measurer.measurementPaths.fromWords > before { fromWords += 1 }
            let expected = pango.measureUncached(text, in: container)
            if got != expected {
                mismatches += 1
                if mismatches <= 10 { XCTFail("#\(index) \(font) \(text.string.debugDescription): \(got) ≠ pango \(expected)") }
            }
        }
        XCTAssertEqual(mismatches, 0)
        print("fallback words in many sizes: \(fromWords) of \(cases) from words")
        XCTAssertGreaterThan(fromWords, cases / 2)
    }
}
