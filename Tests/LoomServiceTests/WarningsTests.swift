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

    // MARK: - Texture's release-build fallbacks (issue 21)

    private func list(_ body: String, service: LayoutService = LayoutService(textMeasurer: nil)) -> (Int, [[String: Any]], [String: Any]) {
        let answer = service.layout(body: Array(body.utf8))
        let object = Svc.object(answer.body)
        return (answer.status, object["warnings"] as? [[String: Any]] ?? [], object)
    }

    /// §4.4: a size of 1e7 or more becomes 0×0, and the answer says so at the element.
    func testAnInvalidSizeIsLaidOutAs0x0AndReported() throws {
        let (status, warnings, object) = list(#"{"root": {"type": "node", "id": "n", "style": {"width": 10, "height": 20000000}}}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual((object["size"] as? [String: Double]), ["width": 0, "height": 0])
        XCTAssertEqual(warnings.map { $0["code"] as? String }, ["invalid_size"])
        XCTAssertEqual(warnings.first?["path"] as? String, "root")
        // One just under the limit is a valid size: no warning.
        let (_, none, fine) = list(#"{"root": {"type": "node", "id": "n", "style": {"width": 10, "height": 9999999}}}"#)
        XCTAssertEqual(none.count, 0)
        XCTAssertEqual((fine["size"] as? [String: Double])?["height"], 9999999)
    }

    /// A computed stack over the limit (spacing 2e7 between two 5-point children) is 0×0;
    /// its children keep their own sizes.
    func testAComputedStackOverTheLimitIsReportedAtTheStack() throws {
        let body = #"{"root": {"type": "inset", "insets": {"top": 1, "left": 1, "bottom": 1, "right": 1}, "child": {"type": "stack", "spacing": 20000000, "children": [{"type": "node", "intrinsicSize": {"width": 5, "height": 5}}, {"type": "node", "intrinsicSize": {"width": 5, "height": 5}}]}}}"#
        let (status, warnings, _) = list(body)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(warnings.map { $0["path"] as? String }, ["root.child"])
        XCTAssertEqual(warnings.map { $0["code"] as? String }, ["invalid_size"])
    }

    /// A position that overflows to infinity on the pixel grid (spacing 1e308 at scale 2) is
    /// written as 0 and reported at each element it moved.
    func testANonFinitePositionIsWrittenAs0AndReported() throws {
        let node = #"{"type": "node", "intrinsicSize": {"width": 5, "height": 5}}"#
        let body = #"{"root": {"type": "stack", "spacing": 1e308, "children": [\#(node), \#(node), \#(node)]}}"#
        let (status, warnings, object) = list(body)
        XCTAssertEqual(status, 200)
        let codes = warnings.map { "\($0["code"] as? String ?? "")@\($0["path"] as? String ?? "")" }
        XCTAssertEqual(codes, ["invalid_size@root", "invalid_position@root.children[1]", "invalid_position@root.children[2]"])
        let children = try XCTUnwrap((object["layout"] as? [String: Any])?["children"] as? [[String: Any]])
        XCTAssertEqual(children.map { ($0["frame"] as? [String: Double])?["x"] }, [0, 0, 0])
    }

    /// Many warnings: the first 100 are listed with their paths, then one item counts the rest
    /// (a request of 10,000 invalid nodes costs one walk for their paths, not one each).
    func testWarningsAreCappedAndCounted() throws {
        let node = #"{"type": "node", "style": {"height": 20000000}}"#
        let children = Array(repeating: node, count: 150).joined(separator: ",")
        let (status, warnings, _) = list(#"{"root": {"type": "wrapper", "children": [\#(children)]}}"#)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(warnings.count, 101)
        XCTAssertEqual(warnings[0]["path"] as? String, "root.children[0]")
        XCTAssertEqual(warnings[99]["path"] as? String, "root.children[99]")
        XCTAssertEqual(warnings[100]["code"] as? String, "more_warnings")
        XCTAssertTrue((warnings[100]["message"] as? String ?? "").hasPrefix("50 more"), "\(warnings[100])")
    }

    /// Every output carries the warnings: `frames` alone and `layout` alone list the same ones
    /// as both, the root's own first.
    func testEveryOutputCarriesTheWarnings() throws {
        let service = LayoutService(textMeasurer: GapMeasurer())
        func body(_ output: String) -> String {
            #"{"root": {"type": "text", "id": "t", "text": "x\uE000"}, "options": {"output": "\#(output)"}}"#
        }
        var seen: [[String]] = []
        for output in ["both", "frames", "layout"] {
            let answer = service.layout(body: Array(body(output).utf8))
            XCTAssertEqual(answer.status, 200, Svc.text(answer.body))
            let list = try XCTUnwrap(warnings(answer.body), "\(output): \(Svc.text(answer.body))")
            seen.append(list.map { "\($0["code"] as? String ?? "")@\($0["path"] as? String ?? "")" })
        }
        XCTAssertEqual(seen, Array(repeating: ["missing_glyphs@root"], count: 3))
    }
}
