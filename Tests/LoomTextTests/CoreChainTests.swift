import XCTest
import Foundation
import LoomLayout
@testable import LoomText
import LoomTestSupport

/// A text whose fallback characters all take a family of the core chain is laid out with
/// that chain only (FontCatalog.coreSuffix, PangoEngine.needsCoreChainOnly): Pango must
/// then pick the fonts the whole chain picks. These tests measure texts in every script of
/// the core, emoji and rarer scripts both ways and compare every answer.
final class CoreChainTests: XCTestCase {
    static let core = try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0, strategy: .automatic)
    static let whole = try! PangoTextMeasurer(cacheCapacity: 0, wordCacheCapacity: 0, strategy: .automatic,
                                              wholeChain: true)

    static let words = [
        "layout", "text", "quick", "1h", "·", "@name_0", "(ok)", "—", "99%",
        "我们", "世界", "布局。", "「东京」", "日本語", "ちょっと", "コーヒー", "안녕하세요", "한국어",
        "مرحبا", "بالعالم", "שלום", "עולם", "नमस्ते", "हिंदी", "สวัสดีครับ", "ภาษาไทย",
        "বাংলা", "தமிழ்", "ქართული", "Հայերեն", "አማርኛ", "ܫܠܡܐ", "ދިވެހި",
        "😀", "👋🏽", "❤️", "🇫🇷", "👨‍👩‍👧", "1️⃣", "☕", "⚽", "★", "☺︎",
        // Scripts outside the core (the whole chain is used for these texts).
        "ᏣᎳᎩ", "ᚠᚢᚦ",
    ]

    func testCorePicksTheFontsOfTheWholeChain() {
        var rng = WordPathTests.Rng(state: 20)
        let families = ["Roboto", "Inter", "Liberation Sans"]
        var compared = 0, viaCore = 0
        for _ in 0..<120 {
            let count = 1 + Int(rng.next() % 12)
            let text = (0..<count).map { _ in Self.words[Int(rng.next() % UInt64(Self.words.count))] }
                .joined(separator: rng.next() % 5 == 0 ? "" : " ")
            let font = FontDescriptor(family: families[Int(rng.next() % UInt64(families.count))],
                                      size: [12, 16, 17][Int(rng.next() % 3)])
            let attributes = TextAttributes(spans: [TextSpan(text: text)], font: font,
                                            lineHeight: rng.next() % 3 == 0 ? 22 : nil,
                                            maximumNumberOfLines: Int(rng.next() % 3))
            let width = [30.0, 80, 140, 260, .infinity][Int(rng.next() % 5)]
            let container = Size(width: width, height: .infinity)
            let a = Self.core.measure(attributes, in: container)
            let b = Self.whole.measure(attributes, in: container)
            XCTAssertEqual(a, b, "\(text) in \(font.family) \(font.size) at \(width)")
            compared += 1
            if usesCore(attributes) { viaCore += 1 }
        }
        XCTAssertEqual(compared, 120)
        // Both kinds of text were seen (a text with one word of a rarer script takes the whole chain).
        XCTAssertGreaterThan(viaCore, 30)
        XCTAssertLessThan(viaCore, 120)
    }

    static let catalog = try! FontCatalog(extraFontDirectories: [])
    static let engine = PangoEngine(catalog: catalog)

    /// Whether a measurer would give Pango the core chain for this text.
    func usesCore(_ text: TextAttributes) -> Bool {
        let engine = Self.engine
        let prepared = TextPreparation.prepare(text.spans)
        return engine.needsCoreChainOnly(prepared, spanFonts: [engine.font(for: text.font)])
    }

    func testCoreChainHoldsTheContractsScriptsAndNotTheRareOnes() {
        let font = FontDescriptor(family: "Roboto", size: 16)
        func spans(_ s: String) -> TextAttributes { TextAttributes(spans: [TextSpan(text: s)], font: font) }
        XCTAssertTrue(usesCore(spans("layout 我们 مرحبا שלום नमस्ते สวัสดี 안녕 😀 🇫🇷")))
        XCTAssertTrue(usesCore(spans("plain text")))
        XCTAssertFalse(usesCore(spans("layout ᏣᎳᎩ")))     // Cherokee: Noto Sans Cherokee is not in the core
        XCTAssertFalse(usesCore(spans("layout \u{0378}")))  // no font has it: the whole chain, as always
        XCTAssertTrue(usesCore(spans("a\u{200D}b\u{FE0F}")))  // joiners and selectors draw nothing
        let catalog = Self.catalog
        // The core keeps the chain's order and its ends: Noto Sans first, the emoji font last.
        let core = catalog.coreSuffix.split(separator: ",").map(String.init)
        XCTAssertEqual(core.first, "Noto Sans")
        XCTAssertEqual(core.last, FontCatalog.emojiFamily)
        XCTAssertTrue(core.contains(FontCatalog.cjkFamily))
        XCTAssertEqual(core, catalog.fallbackChain.filter { core.contains($0) })
        XCTAssertLessThan(core.count * 4, catalog.fallbackChain.count)
    }
}
