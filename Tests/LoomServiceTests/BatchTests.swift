import Foundation
import LoomService
import XCTest

final class BatchTests: XCTestCase {
    private func batch(_ service: LayoutService, _ body: String, maxItems: Int = 1000) -> LayoutOutcome {
        service.batch(body: Array(body.utf8), maxItems: maxItems, forEachParallel: LayoutPool.forEachParallel)
    }

    /// Item k: a root node of width 10 + k, height 5 (exact style size in an unbounded range).
    private func item(_ k: Int) -> String {
        #"{"root": {"type": "node", "id": "n\#(k)", "style": {"width": \#(10 + k), "height": 5}}}"#
    }

    private func results(_ outcome: LayoutOutcome) -> [Any] {
        (Svc.object(outcome.body)["results"] as? [Any]) ?? []
    }

    /// The raw JSON text of each result (results are spliced verbatim).
    private func resultTexts(_ outcome: LayoutOutcome) -> [String] {
        guard case .object(let top)? = try? JSONParser.parse(outcome.body),
              case .array(let items)? = top.first(where: { $0.key == "results" })?.value else { return [] }
        return items.map { v in
            var w = JSONWriter()
            func write(_ v: JSONValue) {
                switch v {
                case .null: w.null()
                case .bool(let b): w.bool(b)
                case .number(let d): w.number(d)
                case .string(let s): w.string(s)
                case .array(let a): w.beginArray(); a.forEach(write); w.endArray()
                case .object(let m): w.beginObject(); for x in m { w.key(x.key); write(x.value) }; w.endObject()
                }
            }
            write(v)
            return Svc.text(w.bytes)
        }
    }

    func testResultsInOrderWithABadItemInItsOwnSlot() {
        let service = LayoutService(textMeasurer: nil)
        let bad = #"{"root": {"type": "stack", "children": [{"type": "nod"}]}}"#
        let body = #"{"items": [\#(item(0)), \#(bad), \#(item(2)), \#(item(3))]}"#
        let outcome = batch(service, body)
        XCTAssertEqual(outcome.status, 200, Svc.text(outcome.body))
        XCTAssertEqual(outcome.contentType, "application/json")
        let r = results(outcome)
        guard r.count == 4 else { return XCTFail("expected 4 results: \(Svc.text(outcome.body))") }
        // Good items: the same bytes a single request gets.
        let texts = resultTexts(outcome)
        guard texts.count == 4 else { return XCTFail("the batch response does not parse into 4 results: \(Svc.text(outcome.body))") }
        for k in [0, 2, 3] {
            let single = LayoutService(textMeasurer: nil).layout(body: Array(item(k).utf8))
            XCTAssertEqual(texts[k], Svc.text(single.body), "item \(k)")
            let frames = (r[k] as? [String: Any])?["frames"] as? [String: Any]
            XCTAssertEqual(Svc.frame(frames?["n\(k)"]), [0, 0, Double(10 + k), 5])
        }
        // The bad one: its own error, path prefixed with items[1].
        let error = (r[1] as? [String: Any])?["error"] as? [String: Any]
        XCTAssertEqual(error?["code"] as? String, "invalid_spec")
        XCTAssertEqual(error?["path"] as? String, "items[1].root.children[0].type")
    }

    func testEveryKindOfItemError() {
        let service = LayoutService(textMeasurer: nil)
        var deep = #"{"type": "node"}"#
        for _ in 0..<600 { deep = #"{"type": "inset", "child": \#(deep)}"# }
        let items = [
            item(0),
            #"[1, 2]"#,                                              // not a request object
            #"{"scale": 2}"#,                                        // no root
            #"{"root": {"type": "ratio", "ratio": 0, "child": {"type": "node"}}}"#,
            #"{"root": \#(deep)}"#,                                  // over the depth limit
            #"{"root": {"type": "text", "text": "x"}}"#,              // no text measurer
            item(6),
        ]
        let outcome = batch(service, #"{"items": [\#(items.joined(separator: ","))]}"#)
        XCTAssertEqual(outcome.status, 200)
        let r = results(outcome).map { ($0 as? [String: Any])?["error"] as? [String: Any] }
        guard r.count == 7 else { return XCTFail("expected 7 results: \(Svc.text(outcome.body))") }
        XCTAssertNil(r[0])
        XCTAssertNil(r[6])
        XCTAssertEqual(r[1]?["code"] as? String, "invalid_spec")
        XCTAssertEqual(r[1]?["path"] as? String, "items[1]")
        XCTAssertEqual(r[2]?["path"] as? String, "items[2].root")
        XCTAssertEqual(r[3]?["path"] as? String, "items[3].root.ratio")
        XCTAssertEqual(r[4]?["code"] as? String, "too_large")
        XCTAssertEqual(r[4]?["path"] as? String, "items[4].root" + String(repeating: ".child", count: 512))
        XCTAssertEqual(r[5]?["code"] as? String, "invalid_spec")
        XCTAssertEqual(r[5]?["path"] as? String, "items[5].root")
    }

    func testItemsShareTheCaches() {
        let service = LayoutService(textMeasurer: nil)
        let first = service.layout(body: Array(item(1).utf8))
        XCTAssertFalse(first.cacheHit)
        let outcome = batch(service, #"{"items": [\#(item(1)), \#(item(1)), \#(item(2))]}"#)
        let texts = resultTexts(outcome)
        guard texts.count == 3 else { return XCTFail("the batch response does not parse into 3 results: \(Svc.text(outcome.body))") }
        XCTAssertEqual(texts[0], Svc.text(first.body))
        XCTAssertEqual(texts[1], Svc.text(first.body))
        XCTAssertGreaterThanOrEqual(service.responseCache.statistics.hits, 2)
        // And a later single request is answered from what the batch stored.
        XCTAssertTrue(service.layout(body: Array(item(2).utf8)).cacheHit)
    }

    func testManyItemsInParallelMatchSingleRequests() {
        let service = LayoutService(textMeasurer: nil)
        let n = 200
        let items = (0..<n).map { k in
            #"{"sizeRange": {"max": {"width": \#(100 + k % 7)}}, "root": {"type": "stack", "id": "s", "children": [{"type": "node", "id": "a", "style": {"flexGrow": 1, "height": \#(k % 11)}}, {"type": "node", "id": "b", "style": {"width": \#(k % 13), "height": 3}}]}}"#
        }
        let outcome = batch(service, #"{"items": [\#(items.joined(separator: ","))]}"#)
        let texts = resultTexts(outcome)
        guard texts.count == n else { return XCTFail("expected \(n) results, got \(texts.count)") }
        for k in 0..<n {
            XCTAssertEqual(texts[k], Svc.text(LayoutService(textMeasurer: nil).layout(body: Array(items[k].utf8)).body), "item \(k)")
        }
    }

    func testEmptyBatch() {
        let outcome = batch(LayoutService(textMeasurer: nil), #"{"items": []}"#)
        XCTAssertEqual(outcome.status, 200)
        XCTAssertEqual(Svc.text(outcome.body), #"{"results":[]}"#)
    }

    func testMalformedBatchIs400() {
        let service = LayoutService(textMeasurer: nil)
        let outcome = batch(service, "{\"items\": [\n{\"root\": {\"type\": \"node\"}},\n]}")
        XCTAssertEqual(outcome.status, 400)
        let e = Svc.error(outcome.body)
        XCTAssertEqual(e["code"] as? String, "malformed_json")
        let message = e["message"] as? String ?? ""
        XCTAssertTrue(message.contains("line 3") && message.contains("column 1"), message)
        XCTAssertEqual(batch(service, "").status, 400)
    }

    func testBatchShapeErrors() {
        let service = LayoutService(textMeasurer: nil)
        for body in [#"[]"#, #"{"items": {}}"#, #"{"item": []}"#, #"{"items": [], "extra": 1}"#, #"{}"#, #"null"#] {
            let outcome = batch(service, body)
            XCTAssertEqual(outcome.status, 400, body)
            let e = Svc.error(outcome.body)
            XCTAssertEqual(e["code"] as? String, "invalid_spec", body)
            XCTAssertEqual(e["path"] as? String, "items", body)
        }
        let tooMany = batch(service, #"{"items": [\#(Array(repeating: item(0), count: 4).joined(separator: ","))]}"#, maxItems: 3)
        XCTAssertEqual(tooMany.status, 413)
        XCTAssertEqual(Svc.error(tooMany.body)["code"] as? String, "too_large")
        let deep = batch(service, String(repeating: "[", count: 100_000))
        XCTAssertEqual(deep.status, 413)
    }
}
