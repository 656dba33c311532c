import XCTest
import Foundation
import LoomLayout
@testable import LoomText

/// The font of a fallback word (PangoEngine.fallbackWordFont) is made once per text font and
/// chain family and then reused (EngineFont.chainFonts): the same font object, in the text
/// font's size, whichever word of that family asks for it.
final class ChainFontTests: XCTestCase {
    func wordFont(_ engine: PangoEngine, _ word: String, _ base: EngineFont) -> EngineFont? {
        var w = word
        // The engine's word table, as a measurement borrows it (the choice is kept there).
        var table = engine.wordScratch.words
        defer { engine.wordScratch.words = table }
        return w.withUTF8 { engine.fallbackWordFont($0, base: base, table: &table) }
    }

    func testFallbackWordFontIsMadeOncePerFontAndFamily() throws {
        let engine = PangoEngine(catalog: CoreChainTests.catalog)
        let inter16 = engine.font(for: FontDescriptor(family: "Inter", size: 16))
        let inter13 = engine.font(for: FontDescriptor(family: "Inter", size: 13))
        let han = try XCTUnwrap(wordFont(engine, "世界", inter16))
        XCTAssertEqual(han.resolved.family, FontCatalog.cjkFamily)
        XCTAssertEqual(han.resolved.pixelSize, 16)
        let loaded = engine.fontsLoaded
        // Another word of the same family: the same font, nothing loaded.
        XCTAssertTrue(try XCTUnwrap(wordFont(engine, "今天", inter16)) === han)
        XCTAssertTrue(try XCTUnwrap(wordFont(engine, "ちょっと", inter16)) === han)
        XCTAssertEqual(engine.fontsLoaded, loaded)
        // Another size: its own font, in that size.
        let small = try XCTUnwrap(wordFont(engine, "世界", inter13))
        XCTAssertFalse(small === han)
        XCTAssertEqual(small.resolved.pixelSize, 13)
        // Another family of the chain for another script.
        let thai = try XCTUnwrap(wordFont(engine, "ภาษาไทย", inter16))
        XCTAssertEqual(thai.resolved.family, "Noto Sans Thai")
        XCTAssertFalse(thai === han)
        XCTAssertTrue(try XCTUnwrap(wordFont(engine, "ทดสอบ", inter16)) === thai)
        // The font is the one the engine gives for that family like the text's font.
        XCTAssertTrue(engine.font(for: engine.resolved(FontCatalog.cjkFamily, like: inter16.resolved), ownFont: false) === han)
        // Not fallback words: a word Inter draws, an emoji.
        XCTAssertNil(wordFont(engine, "hello", inter16))
        XCTAssertNil(wordFont(engine, "😀", inter16))
    }
}
