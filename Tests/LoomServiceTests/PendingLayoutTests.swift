import LoomLayout
@testable import LoomService
import XCTest

/// A layout's answer is handed over before its tree and layout are freed
/// (`PendingLayout.run(budget:deliver:)`).
final class PendingLayoutTests: XCTestCase {
    private let body = Array(#"{"root": {"type": "stack", "id": "s", "children": [{"type": "node", "id": "a", "style": {"width": 10, "height": 4}}]}}"#.utf8)

    private func pending(_ service: LayoutService, _ body: [UInt8]) -> LayoutService.PendingLayout? {
        if case .layoutNeeded(let p) = service.answer(body: body) { return p }
        return nil
    }

    func testAMissKeepsItsTreeAndLayoutForTheCallerToFree() throws {
        let service = LayoutService(textMeasurer: nil)
        let pending = try XCTUnwrap(pending(service, body))
        weak var root: LayoutElement?
        weak var layout: Layout?
        do {
            let (outcome, kept) = pending.runKeepingTree(budget: nil)
            XCTAssertEqual(outcome.status, 200)
            let k = try XCTUnwrap(kept, "a miss keeps what it made")
            XCTAssertEqual(k.request.root.id, "s")
            XCTAssertEqual(k.layout?.size, Size(width: 10, height: 4))
            root = k.request.root
            layout = k.layout
            XCTAssertNotNil(root)
            XCTAssertNotNil(layout)
        }
        // Freed once the caller lets go (the response cache keeps bytes, not trees).
        XCTAssertNil(root)
        XCTAssertNil(layout)
    }

    func testDeliverGetsTheOutcomeOnceWhileTheTreeIsAlive() throws {
        let service = LayoutService(textMeasurer: nil)
        let expected = LayoutService(textMeasurer: nil).layout(body: body)
        let pending = try XCTUnwrap(pending(service, body))
        var delivered: [LayoutOutcome] = []
        pending.run(budget: nil) { delivered.append($0) }
        XCTAssertEqual(delivered.count, 1)
        XCTAssertEqual(delivered.first?.body, expected.body)
        XCTAssertEqual(delivered.first?.status, 200)
    }

    func testTheSameTreeSpelledAnotherWayIsAnsweredFromTheCacheWithoutALayout() throws {
        let service = LayoutService(textMeasurer: nil)
        let first = try XCTUnwrap(pending(service, body)).run()
        // Other bytes (spaces), the same tree: its decoded key hits the response cache.
        let spaced = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: ",", with: ", ").utf8)
        let (outcome, kept) = try XCTUnwrap(pending(service, spaced)).runKeepingTree(budget: nil)
        XCTAssertTrue(outcome.cacheHit)
        XCTAssertEqual(outcome.body, first.body)
        XCTAssertNotNil(kept?.request, "the decoded request is still the caller's to free")
        XCTAssertNil(kept?.layout ?? nil, "no layout was computed")
    }

    func testALayoutStoppedByItsBudgetKeepsItsTreeButNoLayout() throws {
        var configuration = ServiceConfiguration()
        configuration.budget.measurements = 3
        configuration.budget.measurementsPerElement = 0
        let service = LayoutService(configuration: configuration, textMeasurer: nil)
        let wide = Array(("{\"root\": {\"type\": \"stack\", \"children\": ["
            + (0..<10).map { _ in #"{"type": "node", "style": {"width": 5, "height": 5}}"# }.joined(separator: ", ")
            + "]}}").utf8)
        let (outcome, kept) = try XCTUnwrap(pending(service, wide)).runKeepingTree(budget: nil)
        XCTAssertEqual(outcome.status, 422, String(decoding: outcome.body, as: UTF8.self))
        XCTAssertEqual(TestJSON.object(outcome.body)["error"].flatMap { ($0 as? [String: Any])?["code"] as? String },
                       "budget_exceeded")
        XCTAssertEqual(kept?.request.root.layoutChildren.count, 10, "the decoded tree is the caller's to free")
        XCTAssertNil(kept?.layout ?? nil)
    }

    func testErrorsAndStoppedBudgetsKeepNothing() throws {
        let service = LayoutService(textMeasurer: nil)
        let bad = Array(#"{"root": {"type": "ratio", "ratio": 0, "child": {"type": "node"}}}"#.utf8)
        var outcomes: [LayoutOutcome] = []
        try XCTUnwrap(pending(service, bad)).run(budget: nil) { outcomes.append($0) }
        XCTAssertEqual(outcomes.map(\.status), [400])
        XCTAssertNil(try XCTUnwrap(pending(service, bad)).runKeepingTree(budget: nil).kept)

        let budget = service.makeBudget()
        budget.cancel()
        let (stopped, kept) = try XCTUnwrap(pending(service, body)).runKeepingTree(budget: budget)
        XCTAssertEqual(stopped.status, 503)
        XCTAssertNil(kept)
    }
}
