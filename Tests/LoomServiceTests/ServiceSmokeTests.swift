import Foundation
import LoomLayout
import LoomService
import XCTest

final class ServiceSmokeTests: XCTestCase {
    func json(_ bytes: [UInt8]) -> [String: Any] { TestJSON.object(bytes) }

    /// §12 golden case 1 through the whole wire path: justify center underflow.
    func testJustifyCenterThroughTheWire() {
        let body = #"""
        {"sizeRange": {"min": {"width": 300, "height": 0}, "max": {"width": 300, "height": 300}},
         "root": {"type": "stack", "id": "s", "alignItems": "start", "justifyContent": "center", "children": [
           {"type": "node", "id": "a", "style": {"preferredSize": {"width": 50, "height": 50}}},
           {"type": "node", "id": "b", "style": {"width": 50, "height": 50}},
           {"type": "node", "id": "c", "style": {"height": 50, "width": 50.0}}]}}
        """#
        let service = LayoutService(textMeasurer: nil)
        let outcome = service.layout(body: Array(body.utf8))
        XCTAssertEqual(outcome.status, 200, String(decoding: outcome.body, as: UTF8.self))
        let frames = json(outcome.body)["frames"] as? [String: [String: Double]] ?? [:]
        XCTAssertEqual(frames["a"]?["x"], 75)
        XCTAssertEqual(frames["b"]?["x"], 125)
        XCTAssertEqual(frames["c"]?["x"], 175)
        XCTAssertEqual(frames["s"]?["width"], 300)
        XCTAssertEqual(frames["s"]?["height"], 50)
        XCTAssertFalse(outcome.cacheHit)
        let again = service.layout(body: Array(body.utf8))
        XCTAssertTrue(again.cacheHit)
        XCTAssertEqual(again.body, outcome.body)
    }

    func testErrorPath() {
        let body = #"{"root": {"type": "stack", "children": [{"type": "node"}, {"type": "node"}, {"type": "ratio", "ratio": 0, "child": {"type": "node"}}]}}"#
        let outcome = LayoutService(textMeasurer: nil).layout(body: Array(body.utf8))
        XCTAssertEqual(outcome.status, 400)
        let error = json(outcome.body)["error"] as? [String: String]
        XCTAssertEqual(error?["code"], "invalid_spec")
        XCTAssertEqual(error?["path"], "root.children[2].ratio")
    }
}
