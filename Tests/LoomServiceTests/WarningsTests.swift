import Foundation
import LoomLayout
import LoomService
import XCTest

/// The response's `warnings` array (issue 20): `missing_glyphs` for a text with characters no
/// font has, in single answers, batch items and answers from the caches alike; absent when
/// there is nothing to report.
final class WarningsTests: XCTestCase {
    /// Ten points per character; U+0378 and U+E000 stand for characters no font has.
    private final class GapMeasurer: TextMeasuring, @unchecked Sendable {
        func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
            let scalars = text.string.unicodeScalars
            let missing = Array(Set(scalars.map(\.value).filter { $0 == 0x378 || $0 == 0xE000 })).sorted()
            return TextMeasurement(size: Size(width: Double(scalars.count) * 10, height: 20), lineCount: 1, truncated: false,
                                   ascender: 16, descender: -4, missingCodePoints: missing)
        }
        func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
    }

    private func tree(_ first: String, _ second: String) -> String {
        #"{"root": {"type": "stack", "direction": "vertical", "children": [{"type": "text", "id": "a", "text": "\#(first)"}, {"type": "node", "layout": {"type": "inset", "child": {"type": "text", "text": "\#(second)"}}}]}}"#
    }

    private func warnings(_ body: [UInt8]) -> [[String: Any]]? {
        Svc.object(body)["warnings"] as? [[String: Any]]
    }

    func testMissingGlyphsAreReportedWithTheElementsPath() throws {
        let service = LayoutService(textMeasurer: GapMeasurer())
        let body = tree(#"ok \u0378 \uE000 \u0378"#, #"x\uE000"#)
        let first = service.layout(body: Array(body.utf8))
        XCTAssertEqual(first.status, 200, Svc.text(first.body))
        let list = try XCTUnwrap(warnings(first.body), Svc.text(first.body))
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list[0]["code"] as? String, "missing_glyphs")
        XCTAssertEqual(list[0]["path"] as? String, "root.children[0]")
        XCTAssertEqual(list[0]["codePoints"] as? [String], ["U+0378", "U+E000"])
        XCTAssertTrue((list[0]["message"] as? String ?? "").contains("U+0378"))
        XCTAssertEqual(list[1]["path"] as? String, "root.children[1].layout.child")
        XCTAssertEqual(list[1]["codePoints"] as? [String], ["U+E000"])
        // From the response cache: the same bytes.
        let again = service.layout(body: Array(body.utf8))
        XCTAssertTrue(again.cacheHit)
        XCTAssertEqual(again.body, first.body)
        // A different tree holding the same subtree (the subtree cache answers it).
        let other = #"{"root": {"type": "stack", "direction": "vertical", "spacing": 3, "children": [{"type": "text", "id": "a", "text": "ok \u0378 \uE000 \u0378"}, {"type": "node", "layout": {"type": "inset", "child": {"type": "text", "text": "x\uE000"}}}]}}"#
        let third = service.layout(body: Array(other.utf8))
        XCTAssertFalse(third.cacheHit)
        XCTAssertEqual(warnings(third.body)?.map { $0["path"] as? String }, ["root.children[0]", "root.children[1].layout.child"])
        // In a batch: each item has its own.
        let batch = service.batch(body: Array(#"{"items": [\#(body), \#(tree("plain", "text"))]}"#.utf8), maxItems: 10,
                                  forEachParallel: LayoutPool.forEachParallel)
        let results = try XCTUnwrap(Svc.object(batch.body)["results"] as? [[String: Any]])
        XCTAssertEqual((results[0]["warnings"] as? [[String: Any]])?.count, 2)
        XCTAssertNil(results[1]["warnings"])
    }

    func testNoWarningsMeansNoMember() {
        let service = LayoutService(textMeasurer: GapMeasurer())
        let outcome = service.layout(body: Array(tree("plain", "text").utf8))
        XCTAssertEqual(outcome.status, 200)
        XCTAssertFalse(Svc.text(outcome.body).contains("warnings"))
        XCTAssertTrue(Svc.text(outcome.body).hasSuffix("}}"))
    }
}
