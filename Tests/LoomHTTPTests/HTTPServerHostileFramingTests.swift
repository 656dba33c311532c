import Foundation
import XCTest
@testable import LoomHTTP

/// Issue 17, finding 7 (request smuggling: RFC 9112 framing, 400 and close, the smuggled
/// request never answered) and finding 9 (`Expect: 100-continue` only after the precheck).
final class HTTPServerHostileFramingTests: HTTPServerHostileTestCase {
    private let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"

    /// Sends `raw`; expects exactly one answer, a 400, and the connection closed.
    private func assertRefused(_ server: HTTPServer, _ raw: String, json: Bool = true,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let before = handlerCalls.current
        let (text, closed) = try exchange(server, raw)
        let statuses = statusLines(text)
        if json {
            XCTAssertEqual(statuses, ["HTTP/1.1 400"], text, file: file, line: line)
        } else {
            // libmicrohttpd 0.9.75 sends the header block of its own 400 twice.
            XCTAssertFalse(statuses.isEmpty, text, file: file, line: line)
            XCTAssertTrue(statuses.allSatisfy { $0 == "HTTP/1.1 400" }, text, file: file, line: line)
        }
        XCTAssertTrue(closed, "connection left open after a refused framing", file: file, line: line)
        XCTAssertFalse(text.contains("/smuggled"), file: file, line: line)
        XCTAssertEqual(handlerCalls.current, before, "the handler saw a refused request", file: file, line: line)
        if json {
            XCTAssertTrue(text.contains(#""code":"bad_request""#), text, file: file, line: line)
            XCTAssertTrue(text.contains("X-Content-Type-Options: nosniff"), text, file: file, line: line)
        }
    }

    func testTwoContentLengthsAreRefused() throws {
        let server = try startServer(handler: Self.echo)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 30\r\n\r\nhello" + smuggled)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\nhello" + smuggled)
        // A list in one header: libmicrohttpd refuses it itself (its own HTML page).
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello" + smuggled, json: false)
    }

    func testContentLengthWithTransferEncodingIsRefused() throws {
        let server = try startServer(handler: Self.echo)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 40\r\n\r\n0\r\n\r\n" + smuggled)
    }

    func testTransferEncodingOnHTTP10IsRefused() throws {
        let server = try startServer(handler: Self.echo)
        try assertRefused(server, "POST /a HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled)
    }

    func testTransferEncodingOtherThanChunkedIsRefused() throws {
        let server = try startServer(handler: Self.echo)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" + smuggled)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n" + smuggled)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled)
        // libmicrohttpd would read this one up to the connection's end.
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked \r\n\r\n0\r\n\r\n" + smuggled)
        // Exactly chunked, in any case, is fine.
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send("POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:   Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.text, "hello")
    }

    func testHostIsRequiredOnceOnHTTP11() throws {
        let server = try startServer(handler: Self.echo)
        try assertRefused(server, "GET /a HTTP/1.1\r\n\r\n" + smuggled)
        try assertRefused(server, "GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n" + smuggled)
        try assertRefused(server, "GET /a HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n")
        // HTTP/1.0 needs none.
        let (text, _) = try exchange(server, "GET /old HTTP/1.0\r\n\r\n")
        XCTAssertEqual(statusLines(text), ["HTTP/1.1 200"], text)
    }

    func testWhitespaceBeforeTheColonIsRefused() throws {
        // libmicrohttpd keeps "Content-Length " as another header: the body would be read
        // as the next request, while a proxy in front may have used the length.
        let server = try startServer(handler: Self.echo)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length : 5\r\n\r\nhello" + smuggled)
        try assertRefused(server, "POST /a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding\t: chunked\r\n\r\n0\r\n\r\n" + smuggled)
    }

    func testPipelinedRequestsStillWork() throws {
        let server = try startServer(handler: Self.echo)
        let raw = "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" + "GET /two HTTP/1.1\r\nHost: x\r\n\r\n"
        let client = try RawHTTPClient(port: server.boundPort)
        try client.send(raw)
        let one = try client.readResponse()
        let two = try client.readResponse()
        XCTAssertEqual(one.header("X-Path"), "/one")
        XCTAssertEqual(one.text, "abc")
        XCTAssertEqual(two.header("X-Path"), "/two")
    }

    // MARK: - precheck and Expect: 100-continue

    private static let onlyLayout: HTTPServer.Precheck = { head in
        head.path == "/layout" ? nil : HTTPServerTestCase.errorBody(404, "not_found", "no route \(head.path)")
    }

    func testExpectContinueOnlyAfterThePrecheckAccepts() throws {
        let server = try startServer(precheck: Self.onlyLayout, handler: Self.echo)
        let rejected = try RawHTTPClient(port: server.boundPort)
        try rejected.send(RawHTTPClient.request("POST", "/nope", headers: [("Expect", "100-continue")], contentLength: 5))
        let answer = try rejected.readResponse()
        XCTAssertEqual(answer.status, 404, "the rejected request was invited to upload")
        XCTAssertTrue(answer.text.contains(#""code":"not_found""#), answer.text)
        let (rest, closed) = rejected.readUntilClose(timeout: 3)
        XCTAssertTrue(closed, "a rejected request announcing a body keeps its connection")
        XCTAssertFalse(String(decoding: rest, as: UTF8.self).contains("100 Continue"))

        let accepted = try RawHTTPClient(port: server.boundPort)
        try accepted.send(RawHTTPClient.request("POST", "/layout", headers: [("Expect", "100-continue")], contentLength: 5))
        XCTAssertEqual(try accepted.readResponse().status, 100)
        try accepted.send(Array("hello".utf8))
        XCTAssertEqual(try accepted.readResponse().text, "hello")
        XCTAssertEqual(handlerCalls.current, 1)
    }

    func testPrecheckRejectionWithoutBodyKeepsTheConnection() throws {
        let server = try startServer(precheck: Self.onlyLayout, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let missing = try client.roundTrip("GET", "/nope")
        XCTAssertEqual(missing.status, 404)
        XCTAssertNil(missing.header("Connection"))
        XCTAssertEqual(missing.header("X-Content-Type-Options"), "nosniff")
        let found = try client.roundTrip("GET", "/layout?x=1")
        XCTAssertEqual(found.status, 200)
        XCTAssertEqual(handlerCalls.current, 1)
    }

    func testPreflightToARejectedPathGetsThePrecheckAnswer() throws {
        let heads = Locked<[String]>([])
        let server = try startServer(configuration { $0.corsAllowedOrigins = ["*"] }, precheck: { head in
            heads.withValue { $0.append("\(head.method) \(head.path)") }
            return Self.onlyLayout(head)
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let preflightHeaders = [("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")]
        let rejected = try client.roundTrip("OPTIONS", "/nope", headers: preflightHeaders)
        XCTAssertEqual(rejected.status, 404)
        XCTAssertNil(rejected.header("Access-Control-Allow-Methods"))
        let approved = try client.roundTrip("OPTIONS", "/layout", headers: preflightHeaders)
        XCTAssertEqual(approved.status, 204)
        XCTAssertEqual(approved.header("Access-Control-Allow-Origin"), "*")
        XCTAssertEqual(heads.current, ["OPTIONS /nope", "OPTIONS /layout"])
        XCTAssertEqual(handlerCalls.current, 0)
    }

    func testPrecheckSeesTheHead() throws {
        let seen = Locked<[String]>([])
        let server = try startServer(precheck: { head in
            seen.withValue {
                $0.append("\(head.method) \(head.path) q=\(head.query["q"] ?? "-") ct=\(head.header("content-type") ?? "-") body=\(head.announcesBody)")
            }
            return nil
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        _ = try client.roundTrip("POST", "/layout?q=a%20b", headers: [("Content-Type", "application/json")], body: [1])
        _ = try client.roundTrip("HEAD", "/healthz")
        XCTAssertEqual(seen.current, ["POST /layout q=a b ct=application/json body=true",
                                      "GET /healthz q=- ct=- body=false"])
    }
}
