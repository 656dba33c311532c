import Foundation
import LoomLayout
import LoomService
import XCTest

/// Hostile requests against the real service behind the real server: a client that leaves
/// frees its worker, a layout past its deadline answers 503, and the router refuses before
/// reading a body.
final class ServiceHostileOverHTTPTests: ServiceOverHTTPTestCase {
    /// The exponential chain (HostileRequestTests' shape) with the Pango measurer's fonts.
    private static func chain(depth: Int) -> String {
        var node = #"{"type":"text","text":"leaf","font":{"family":"Roboto","size":14}}"#
        for d in 0..<depth {
            node = #"{"type":"stack","direction":"\#(d % 2 == 0 ? "horizontal" : "vertical")","children":["#
                + #"{"type":"ratio","ratio":\#(["0.5", "0.75", "1"][d % 3]),"style":{"flexGrow":1,"flexShrink":1},"child":\#(node)},"#
                + #"{"type":"text","text":"x y","font":{"family":"Roboto","size":14},"style":{"flexGrow":1,"flexShrink":1}}]}"#
        }
        return #"{"sizeRange":{"max":{"width":300,"height":700}},"root":\#(node)}"#
    }

    func testAClientThatLeavesFreesItsWorker() throws {
        // One worker, a budget and deadline that never stop the chain: only the client's
        // leaving can end its layout.
        let loom = try startLoom {
            $0.workers = 1
            $0.budget.measurements = Int.max / 4; $0.budget.characters = Int.max / 4; $0.budget.lines = Int.max / 4
            $0.deadlineSeconds = 3600
        }
        let body = Array(Self.chain(depth: 40).utf8)
        let client = try RawHTTPClient(port: loom.port, timeout: 10)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, body: body))
        // Wait until the layout runs on the only worker.
        XCTAssertTrue(waitFor(10) { loom.pool.load.running == 1 })
        client.close()
        // The worker comes free, and the next request is answered.
        XCTAssertTrue(waitFor(10) { loom.pool.load.running == 0 }, "the abandoned layout still holds the worker")
        let next = try postJSON(loom, "/layout", Self.row(10))
        XCTAssertEqual(next.status, 200)
    }

    func testALayoutPastItsDeadlineIs503AndFreesItsWorker() throws {
        let loom = try startLoom {
            $0.workers = 1
            $0.budget.measurements = Int.max / 4; $0.budget.characters = Int.max / 4; $0.budget.lines = Int.max / 4
            $0.deadlineSeconds = 0.3
        }
        let response = try postJSON(loom, "/layout", Self.chain(depth: 40))
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(errorObject(response)["code"] as? String, "deadline_exceeded")
        XCTAssertEqual(response.header("Retry-After"), "1")
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(10)).status, 200)
    }

    func testTheChainIsRefusedWithItsBudgetOverHTTP() throws {
        // A deadline far off, so that only the budget can stop the chain, even on a loaded
        // machine where a debug build runs slowly.
        let loom = try startLoom { $0.deadlineSeconds = 120 }
        let response = try postJSON(loom, "/layout", Self.chain(depth: 40))
        XCTAssertEqual(response.status, 422)
        let error = errorObject(response)
        XCTAssertEqual(error["code"] as? String, "budget_exceeded")
        XCTAssertEqual(error["budget"] as? String, "measurements")
        XCTAssertTrue((error["path"] as? String ?? "").hasPrefix("root.children[0].child"))
    }

    func testRefusalsComeBeforeTheBodyIsInvited() throws {
        let loom = try startLoom()
        for (path, type, status) in [("/nope", "application/json", 404), ("/layout", "text/plain", 415)] {
            let client = try RawHTTPClient(port: loom.port, timeout: 5)
            defer { client.close() }
            try client.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: \(type)\r\nContent-Length: 4000000\r\nExpect: 100-continue\r\n\r\n")
            let response = try client.readResponse()
            XCTAssertEqual(response.status, status, "\(path): no 100 Continue first, the refusal at once")
        }
    }
}
