import Foundation
import HTTPTypes
import LoomClient
import OpenAPIRuntime
import XCTest

/// What the real server shows only under load or across requests (503, ETags), through a
/// transport that answers as told and records what it was sent.
final class TransportBehaviourTests: XCTestCase {
    final class ScriptedTransport: ClientTransport, @unchecked Sendable {
        let lock = NSLock()
        var sent: [(HTTPRequest, Date)] = []
        let answer: @Sendable (Int, HTTPRequest) -> (HTTPResponse, String)

        init(_ answer: @escaping @Sendable (Int, HTTPRequest) -> (HTTPResponse, String)) { self.answer = answer }

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws
            -> (HTTPResponse, HTTPBody?) {
            if let body { _ = try await Data(collecting: body, upTo: 1 << 20) }
            let n: Int = lock.withLock { sent.append((request, Date())); return sent.count }
            let (response, text) = answer(n, request)
            return (response, HTTPBody(text))
        }
    }

    static let okBody = #"{"size":{"width":1,"height":2},"layout":{"type":"node","id":"n","frame":{"x":0,"y":0,"width":1,"height":2},"children":[]},"frames":{"n":{"x":0,"y":0,"width":1,"height":2}}}"#

    static func response(_ status: Int, _ fields: [(HTTPField.Name, String)]) -> HTTPResponse {
        var r = HTTPResponse(status: .init(code: status))
        r.headerFields[.contentType] = "application/json"
        for (name, value) in fields { r.headerFields[name] = value }
        return r
    }

    static let layoutHeaders: [(HTTPField.Name, String)] = [
        (HTTPField.Name("X-Layout-Key")!, "k1"), (HTTPField.Name("X-Layout-Cache")!, "miss"),
        (HTTPField.Name("Content-Location")!, "/layouts/k1"), (.eTag, #"W/"k1""#),
        (HTTPField.Name("X-Request-Id")!, "r1"),
    ]

    func testA503IsRetriedAfterItsRetryAfter() async throws {
        let transport = ScriptedTransport { n, _ in
            n == 1 ? (Self.response(503, [(.retryAfter, "1")]), #"{"error":{"code":"overloaded","message":"busy"}}"#)
                : (Self.response(200, Self.layoutHeaders), Self.okBody)
        }
        let client = LoomClient(baseURL: URL(string: "http://loom.invalid")!, transport: transport)
        let result = try await client.layout(LayoutRequest(DisplayNode().id("n")))
        XCTAssertEqual(result.size, Size(width: 1, height: 2))
        XCTAssertEqual(transport.sent.count, 2)
        XCTAssertGreaterThanOrEqual(transport.sent[1].1.timeIntervalSince(transport.sent[0].1), 0.95)
    }

    func testA503BeyondTheRetriesIsAnOverloadedError() async throws {
        let transport = ScriptedTransport { _, _ in
            (Self.response(503, [(.retryAfter, "0")]), #"{"error":{"code":"overloaded","message":"busy"}}"#)
        }
        let client = LoomClient(baseURL: URL(string: "http://loom.invalid")!, retries: 1, transport: transport)
        do { _ = try await client.layout(LayoutRequest(DisplayNode())); XCTFail("503 twice") } catch let e as LoomError {
            XCTAssertEqual(e.status, 503)
            XCTAssertEqual(e.code, "overloaded")
            XCTAssertEqual(e.retryAfter, 0)
        }
        XCTAssertEqual(transport.sent.count, 2)
    }

    func testAnAnswerWithAnETagIsAskedForAgainWithIfNoneMatch() async throws {
        let transport = ScriptedTransport { _, request in
            if request.headerFields[.ifNoneMatch] == #"W/"k1""# { return (Self.response(304, [(.eTag, #"W/"k1""#)]), "") }
            return (Self.response(200, Self.layoutHeaders), Self.okBody)
        }
        let client = LoomClient(baseURL: URL(string: "http://loom.invalid")!, transport: transport)
        let first = try await client.layout(LayoutRequest(DisplayNode().id("n")))
        let second = try await client.layout(LayoutRequest(DisplayNode().id("n")))
        XCTAssertNil(transport.sent[0].0.headerFields[.ifNoneMatch])
        XCTAssertEqual(transport.sent[1].0.headerFields[.ifNoneMatch], #"W/"k1""#)
        XCTAssertEqual(second.frames, first.frames)
        XCTAssertEqual(first.cache, "miss")
        XCTAssertEqual(second.cache, "hit", "answered from what the client kept")
        _ = try await client.layout(LayoutRequest(DisplayNode().id("other")))
        XCTAssertNil(transport.sent[2].0.headerFields[.ifNoneMatch], "another request has no ETag yet")
    }

    func testAnUnreachableServerIsATransportError() async throws {
        let client = LoomClient(baseURL: URL(string: "http://127.0.0.1:9")!, retries: 0)
        do { _ = try await client.layout(LayoutRequest(DisplayNode())); XCTFail("port 9 is closed") } catch let e as LoomError {
            XCTAssertEqual(e.code, "transport")
            XCTAssertEqual(e.status, 0)
        }
    }
}
