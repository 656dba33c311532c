import XCTest
import Foundation
import LoomLayout
@testable import LoomText

/// Beside a fallback word, a word of the text's font is measured with the space after it
/// (FallbackWords.swift); its advance without that space is taken to be the same when its
/// last character, shaped alone, is not kerned against the space (`lastKernsSpace`). Checked
/// here against the word shaped without the space, in every face of the word path's tests.
final class SpaceKernTests: XCTestCase {
    func testLastCharacterDecidesTheAdvanceWithoutTheSpace() {
        let engine = PangoEngine(catalog: CoreChainTests.catalog)
        let cache = WordCache(capacity: 1 << 14)
        var state = WordLineState(lines: [], glyphs: [], starts: [], table: WordTable())
        var taken = 0, shaped = 0, differ = 0
        for descriptor in WordPathTests.fonts {
            let font = engine.font(for: descriptor)
            guard let pangoFont = font.font else { continue }
            let profile = font.wordProfile(cache, pangoFont)
            guard profile.eligible else { continue }
            let id = font.wordFontID(cache)
            for word in WordPathTests.vocabulary + ["Ty", "Ay", "f", "r", "V", "W", "y", "7", "L", "T"]
            where word.utf8.allSatisfy({ $0 < 0x80 && $0 > 0x20 }) {
                var w = word
                w.withUTF8 { b in
                    let spaced = engine.wordEntry(b, font: font, fontID: id, flags: 3, cache: cache, table: &state.table)
                    let bare = engine.wordEntry(b, font: font, fontID: id, flags: 1, cache: cache, table: &state.table)
                    guard spaced.valid, bare.valid, !spaced.substituted else { return }
                    if bare.word != spaced.word { differ += 1 }
                    if engine.lastKernsSpace(b[b.count - 1], profile: profile, font: font, fontID: id, cache: cache,
                                             state: &state) {
                        shaped += 1
                    } else {
                        taken += 1
                        XCTAssertEqual(bare.word, spaced.word, "\(word) in \(descriptor)")
                    }
                }
            }
        }
        // Most words end in a letter that no face kerns against the space.
        XCTAssertGreaterThan(taken, shaped)
        // Some faces kern a last letter against the space; every such word was shaped.
        XCTAssertGreaterThan(differ, 0)
        XCTAssertLessThanOrEqual(differ, shaped)
        print("SpaceKernTests: \(taken) words known equal, \(shaped) shaped, \(differ) differ")
    }
}
