import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LoomLayout
import LoomService
import XCTest

/// Requests written to hurt the service (issue 17), through the service without sockets:
/// each is refused with its error and path, and refused alike however often it comes.
final class HostileRequestTests: XCTestCase {
    /// The chain of finding 1: `stack{[ratio{flexGrow/Shrink 1, child: <next>}, text]}`,
    /// directions alternating, 300×700. Depth 40 is about 9 KB; unbounded it runs for minutes.
    static func ratioChain(depth: Int) -> String {
        var node = #"{"type":"text","text":"leaf"}"#
        for d in 0..<depth {
            let ratio = ["0.5", "0.75", "1"][d % 3]
            node = #"{"type":"stack","direction":"\#(d % 2 == 0 ? "horizontal" : "vertical")","children":["#
                + #"{"type":"ratio","ratio":\#(ratio),"style":{"flexGrow":1,"flexShrink":1},"child":\#(node)},"#
                + #"{"type":"text","text":"x y","style":{"flexGrow":1,"flexShrink":1}}]}"#
        }
        return #"{"sizeRange":{"max":{"width":300,"height":700}},"root":\#(node)}"#
    }

    private func service(measurements: Int = 20_000) -> LayoutService {
        var config = ServiceConfiguration()
        config.budget.measurements = measurements
        config.budget.measurementsPerElement = 0
        return LayoutService(configuration: config, textMeasurer: AttributeSensitiveTextMeasurer())
    }

    func testExponentialNestingIsRefusedWithTheBudgetAndThePath() {
        let service = self.service()
        let outcome = service.layout(body: Svc.bytes(Self.ratioChain(depth: 40)))
        XCTAssertEqual(outcome.status, 422)
        let error = Svc.error(outcome.body)
        XCTAssertEqual(error["code"] as? String, "budget_exceeded")
        XCTAssertEqual(error["budget"] as? String, "measurements")
        // The element being measured when the budget ran out: somewhere down the chain.
        let path = error["path"] as? String ?? ""
        XCTAssertTrue(path.hasPrefix("root.children[0].child."), path)
        XCTAssertTrue(path.range(of: #"^root(\.children\[[01]\](\.child)?)+$"#, options: .regularExpression) != nil, path)
        XCTAssertTrue((error["message"] as? String ?? "").contains("20000"))
    }

    func testTheBudgetGrowsWithTheRequest() {
        // 50,000 + 10 per element: the depth-40 chain has 121 elements.
        let limits = BudgetPolicy().limits(elements: 121, textBytes: 1000)
        XCTAssertEqual(limits.measurements, 50_000 + 1_210)
        XCTAssertEqual(limits.characters, 1_000_000 + 8_000)
        XCTAssertEqual(limits.lines, 100_000 + 8_000)
        XCTAssertEqual(BudgetPolicy().limits(elements: .max, textBytes: 0).measurements, .max, "saturates")
        // With the defaults, the chain is still refused.
        let outcome = LayoutService(textMeasurer: AttributeSensitiveTextMeasurer()).layout(body: Svc.bytes(Self.ratioChain(depth: 40)))
        XCTAssertEqual(outcome.status, 422)
    }

    func testTheSameVerdictColdAndWarm() {
        // The budget counts what the tree asks for: the parts cached by an earlier refusal
        // (the shared subtree cache keeps what was finished) do not let it through later.
        let service = self.service()
        let body = Svc.bytes(Self.ratioChain(depth: 30))
        for attempt in 0..<4 {
            let outcome = service.layout(body: body)
            XCTAssertEqual(outcome.status, 422, "attempt \(attempt)")
        }
        // And a chain that fits its budget passes, cold and warm, with the same frames.
        let fits = Svc.bytes(Self.ratioChain(depth: 4))
        let first = service.layout(body: fits), second = self.service().layout(body: fits)
        XCTAssertEqual(first.status, 200)
        XCTAssertEqual(Svc.frames(first.body), Svc.frames(second.body))
    }

    func testEachBatchItemHasItsOwnBudget() {
        let service = self.service()
        let small = #"{"root":{"type":"node","id":"a","style":{"width":10,"height":5}}}"#
        let body = #"{"items":[\#(small),\#(Self.ratioChain(depth: 40)),\#(small)]}"#
        let outcome = service.batch(body: Svc.bytes(body), forEachParallel: LayoutPool.forEachParallel)
        XCTAssertEqual(outcome.status, 200)
        let results = Svc.object(outcome.body)["results"] as? [[String: Any]] ?? []
        XCTAssertEqual(results.count, 3)
        // The chain used its own 20,000; the small items still had the batch's second allowance.
        XCTAssertNotNil(results.first?["frames"])
        XCTAssertNotNil(results.last?["frames"])
        let error = results.count == 3 ? results[1]["error"] as? [String: Any] ?? [:] : [:]
        XCTAssertEqual(error["code"] as? String, "budget_exceeded")
        XCTAssertTrue((error["path"] as? String ?? "").hasPrefix("items[1].root.children[0]"))
    }

    func testABatchCostsWhatOneRequestOfItsSizeMay() {
        // 40 chains, each able to use its own whole budget of 20,000 measurements: together
        // they draw from one allowance of 2 × 20,000 (no per-element share here), so at
        // most about two of them run to their own limit before the rest find it spent.
        var config = ServiceConfiguration()
        config.budget.measurements = 20_000
        config.budget.measurementsPerElement = 0
        let measurer = AttributeSensitiveTextMeasurer()
        let service = LayoutService(configuration: config, textMeasurer: measurer)
        let chain = Self.ratioChain(depth: 30)
        let body = #"{"items":[\#(Array(repeating: chain, count: 40).joined(separator: ","))]}"#
        let budget = service.makeBudget()
        let outcome = service.batch(body: Svc.bytes(body), budget: budget, forEachParallel: LayoutPool.forEachParallel)
        XCTAssertEqual(outcome.status, 200)
        let results = Svc.object(outcome.body)["results"] as? [[String: Any]] ?? []
        XCTAssertEqual(results.count, 40)
        for (k, r) in results.enumerated() {
            let e = r["error"] as? [String: Any] ?? [:]
            XCTAssertEqual(e["code"] as? String, "budget_exceeded", "item \(k)")
            XCTAssertTrue((e["path"] as? String ?? "").hasPrefix("items[\(k)]"), "item \(k): \(e)")
        }
        // What the whole batch was charged: about the shared allowance, not 40 × 20,000 (a
        // charge can pass the limit by one cached subtree's cost: the items share subtrees).
        XCTAssertLessThanOrEqual(budget.spent.measurements, 3 * 20_000)
    }

    func testAPassedDeadlineIs503DeadlineExceeded() {
        let service = self.service()
        let budget = LayoutBudget(limits: LayoutLimits(), deadline: DispatchTime.now().uptimeNanoseconds - 1)
        let outcome = service.layout(body: Svc.bytes(Self.ratioChain(depth: 3)), budget: budget)
        XCTAssertEqual(outcome.status, 503)
        XCTAssertEqual(Svc.error(outcome.body)["code"] as? String, "deadline_exceeded")
    }

    func testACancelledLayoutIsNotCached() {
        let service = self.service()
        let budget = LayoutBudget(limits: LayoutLimits())
        budget.cancel()
        let body = Svc.bytes(Self.ratioChain(depth: 3))
        XCTAssertEqual(service.layout(body: body, budget: budget).status, 503)
        // The next one is laid out, not answered from a cache with the cancelled answer.
        let next = service.layout(body: body)
        XCTAssertEqual(next.status, 200)
        XCTAssertFalse(next.cacheHit)
    }

    // MARK: text limits, checked before anything is measured (findings 2, 10)

    private func textRequest(_ fields: String) -> [UInt8] {
        Svc.bytes(#"{"sizeRange":{"max":{"width":200}},"root":{"type":"stack","children":[{"type":"text",\#(fields)}]}}"#)
    }

    private func assertRefused(_ fields: String, status: Int, code: String, path: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        let outcome = service().layout(body: textRequest(fields))
        XCTAssertEqual(outcome.status, status, Svc.text(outcome.body), file: file, line: line)
        let error = Svc.error(outcome.body)
        XCTAssertEqual(error["code"] as? String, code, file: file, line: line)
        XCTAssertEqual(error["path"] as? String, path, file: file, line: line)
    }

    func testTextLongerThanTheLimitIs413WithItsPath() {
        let long = String(repeating: "a", count: 100_001)
        assertRefused(#""text":"\#(long)""#, status: 413, code: "too_large", path: "root.children[0].text")
        let half = String(repeating: "a", count: 50_001)
        assertRefused(#""spans":[{"text":"\#(half)"},{"text":"\#(half)"}]"#, status: 413, code: "too_large",
                      path: "root.children[0].spans")
        assertRefused(#""text":"a","truncationText":"\#(String(repeating: "…", count: 334))""#, status: 413,
                      code: "too_large", path: "root.children[0].truncationText")
        let spans = Array(repeating: #"{"text":"a"}"#, count: 1001).joined(separator: ",")
        assertRefused(#""spans":[\#(spans)]"#, status: 413, code: "too_large", path: "root.children[0].spans")
        // At the limit: measured.
        let fits = service().layout(body: textRequest(#""text":"\#(String(repeating: "a", count: 100_000))""#))
        XCTAssertEqual(fits.status, 200)
    }

    func testNumbersThatWouldOverflowTheMeasurerAre400() {
        assertRefused(#""text":"a","letterSpacing":1000.5"#, status: 400, code: "invalid_spec", path: "root.children[0].letterSpacing")
        assertRefused(#""text":"a","letterSpacing":-1001"#, status: 400, code: "invalid_spec", path: "root.children[0].letterSpacing")
        assertRefused(#""spans":[{"text":"a","letterSpacing":5000}]"#, status: 400, code: "invalid_spec",
                      path: "root.children[0].spans[0].letterSpacing")
        assertRefused(#""text":"a","lineHeight":10001"#, status: 400, code: "invalid_spec", path: "root.children[0].lineHeight")
        assertRefused(#""text":"a","lineSpacing":10001"#, status: 400, code: "invalid_spec", path: "root.children[0].lineSpacing")
        assertRefused(#""text":"a","maximumNumberOfLines":100001"#, status: 400, code: "invalid_spec",
                      path: "root.children[0].maximumNumberOfLines")
        assertRefused(#""text":"a","font":{"size":1000.5}"#, status: 400, code: "invalid_spec", path: "root.children[0].font.size")
        // The bounds themselves are accepted.
        let edge = service().layout(body: textRequest(#""text":"a","letterSpacing":-1000,"lineHeight":10000,"lineSpacing":10000,"maximumNumberOfLines":100000"#))
        XCTAssertEqual(edge.status, 200, Svc.text(edge.body))
    }

    func testMoreThan64DistinctFontsIs413AtTheFont() {
        func request(_ count: Int) -> [UInt8] {
            let texts = (0..<count).map { #"{"type":"text","text":"a","font":{"family":"Roboto","size":\#(10 + Double($0) / 100)}}"# }
            return Svc.bytes(#"{"root":{"type":"stack","children":[\#(texts.joined(separator: ","))]}}"#)
        }
        XCTAssertEqual(service().layout(body: request(64)).status, 200)
        let outcome = service().layout(body: request(65))
        XCTAssertEqual(outcome.status, 413)
        XCTAssertEqual(Svc.error(outcome.body)["path"] as? String, "root.children[64].font")
    }

    // MARK: SVG (finding 8)

    func testSVGOfIdsWithCharactersXMLForbidsStillParses() throws {
        let ids = ["\\u0000", "\\u0001", "\\u0008", "\\u000b", "\\u000c", "\\u001f", "\\ufffe", "\\uffff", "<&>\\\"'"]
        let children = ids.enumerated().map { k, id in
            #"{"type":"node","id":"n\#(k)\#(id)","style":{"width":10,"height":10}}"#
        }.joined(separator: ",")
        let body = #"{"sizeRange":{"max":{"width":300,"height":300}},"root":{"type":"stack","id":"root","children":[\#(children)]}}"#
        let outcome = service().layout(body: Svc.bytes(body), format: .svg)
        XCTAssertEqual(outcome.status, 200)
        let parser = XMLParser(data: Data(outcome.body))
        let delegate = TextCollector()
        parser.delegate = delegate
        XCTAssertTrue(parser.parse(), "the SVG is not XML: \(String(describing: parser.parserError))")
        // Each id's label is there, the forbidden character replaced by U+FFFD.
        XCTAssertTrue(delegate.texts.contains("n0\u{FFFD}"), "\(delegate.texts)")
        XCTAssertTrue(delegate.texts.contains("n8<&>\"'"), "\(delegate.texts)")
    }
}

private final class TextCollector: NSObject, XMLParserDelegate {
    var texts: [String] = []
    private var current = ""
    private var inText = false
    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        if name == "text" { inText = true; current = "" }
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { if inText { current += string } }
    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "text" { texts.append(current); inText = false }
    }
}
