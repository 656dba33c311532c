import XCTest
import Foundation
import LoomLayout
@testable import LoomText

/// A fallback word cut into pieces (FallbackBreaks.swift) is analysed once per font while the
/// word cache's generation lasts; the pieces from the kept analysis must be the pieces from a
/// fresh one, in every room.
final class FallbackPiecesTests: XCTestCase {
    func testPiecesFromAKeptAnalysisAreTheFreshOnes() throws {
        let engine = PangoEngine(catalog: CoreChainTests.catalog)
        let cache = WordCache(capacity: 1 << 14)
        var state = WordLineState(lines: [], glyphs: [], starts: [], table: WordTable())
        let base = engine.font(for: FontDescriptor(family: "Inter", size: 16))
        var cut = 0
        for word in ["我们的世界很大很大很大很大很大很大很大很大", "สวัสดีครับภาษาไทยทดสอบหนังสือ", "ラーメンコーヒーサーバーデータ"] {
            var w = word
            try w.withUTF8 { b in
                let font = try XCTUnwrap(engine.fallbackWordFont(b, base: base))
                let limit = 120 * 1024
                for room in stride(from: 0, through: limit, by: 5 * 1024) {
                    for empty in [false, true] {
                        func pieces() -> [Int]? {
                            engine.fallbackWordPieces(b, font: font, room: room, lineIsEmpty: empty, limit: limit, cache: cache,
                                                      state: &state)
                                .map { [$0.onLine ? 1 : 0] + $0.pieces.flatMap { [$0.width, $0.end] } }
                        }
                        let kept = pieces()
                        XCTAssertEqual(engine.pieceAnalyses.count, 1)
                        engine.pieceAnalyses.removeAll()
                        let fresh = pieces()
                        XCTAssertEqual(kept, fresh, "\(word) room \(room)")
                        if let kept, kept.count > 3 { cut += 1 }
                    }
                }
                // A new generation of the word cache drops the analyses.
                cache.clear()
                _ = engine.fallbackWordPieces(b, font: font, room: 0, lineIsEmpty: false, limit: limit, cache: cache, state: &state)
                XCTAssertEqual(engine.pieceAnalyses.count, 1)
                engine.pieceAnalyses.removeAll()
            }
        }
        // Words were cut into two pieces or more in many rooms.
        XCTAssertGreaterThan(cut, 10)
    }
}
