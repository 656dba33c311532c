import Foundation
import XCTest
@testable import LoomHTTP

/// Issue 17, finding 6 (log forging) and finding 11 (safer defaults: CORS off, `Vary:
/// Origin`, `nosniff`).
final class HTTPServerHostileLogAndDefaultsTests: HTTPServerHostileTestCase {
    func testAccessLogEscapesWhatTheClientControls() throws {
        let server = try startServer(handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        // A forged line, a raw CR and an ANSI escape (finding 6), a byte that is not UTF-8,
        // a C1 control (NEL), a backslash and a space.
        let forged = "/x%0aGET%20/fake%20200%200B%200.0ms%0d%1b%5b2J"
        XCTAssertEqual(try client.roundTrip("GET", forged).status, 200)
        XCTAssertEqual(try client.roundTrip("GET", "/a%ff%c2%85b%5cc%20d").status, 200)
        XCTAssertTrue(waitFor(2) { self.accessLines.filter { $0.hasPrefix("GET ") }.count == 2 }, "\(log.lines)")
        let lines = accessLines.filter { $0.hasPrefix("GET ") }
        for line in lines {
            XCTAssertFalse(line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                           line.debugDescription)
        }
        XCTAssertTrue(lines[0].hasPrefix(#"GET /x\x0aGET\x20/fake\x20200\x200B\x200.0ms\x0d\x1b[2J 200 "#), lines[0])
        XCTAssertTrue(lines[1].hasPrefix(#"GET /a\xff\xc2\x85b\x5cc\x20d 200 "#), lines[1])
    }

    func testEscapingRules() {
        XCTAssertEqual(AccessLine.escaped("/layout?x=1"), "/layout?x=1")
        XCTAssertEqual(AccessLine.escaped("a\nb\rc\u{1b}d\u{7f}e\\f g"), #"a\x0ab\x0dc\x1bd\x7fe\x5cf\x20g"#)
        XCTAssertEqual(AccessLine.escaped("é/ü/日本"), "é/ü/日本")
        XCTAssertEqual(AccessLine.escaped("free text\nline", keepSpaces: true), #"free text\x0aline"#)
        XCTAssertEqual(AccessLine.escaped("\u{85}\u{9f}\u{a0}"), #"\xc2\x85\xc2\x9f"# + "\u{a0}")
        XCTAssertEqual(AccessLine.escaped("a\u{2028}b\u{202e}c\u{2067}d"), #"a\xe2\x80\xa8b\xe2\x80\xaec\xe2\x81\xa7d"#)
        let invalid: [UInt8] = [0x2F, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80, 0xF0, 0x9F, 0x98, 0x80]
        let room = AccessLine.room(for: String(decoding: invalid, as: UTF8.self))
        withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { buffer in
            var line = AccessLine(buffer)
            line.appendEscaped("ignored", raw: invalid)
            XCTAssertEqual(String(decoding: line.bytes, as: UTF8.self), #"/\xff\xc3(\xed\xa0\x80"# + "😀")
        }
    }

    func testCORSIsOffByDefault() throws {
        let server = try startServer(HTTPServer.Configuration(host: "127.0.0.1", port: 0), precheck: nil, handler: Self.echo)
        XCTAssertEqual(server.configuration.corsAllowedOrigins, [])
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("POST", "/layout", headers: [("Origin", "https://evil.example")], body: [1])
        XCTAssertEqual(response.status, 200)
        XCTAssertFalse(response.headers.contains { $0.0.lowercased().hasPrefix("access-control-") }, "\(response.headers)")
        XCTAssertNil(response.header("Vary"))
        let preflight = try client.roundTrip("OPTIONS", "/layout", headers: [
            ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST"),
        ])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertFalse(preflight.headers.contains { $0.0.lowercased().hasPrefix("access-control-") }, "\(preflight.headers)")
    }

    /// The answers of one request each kind: the handler's, a preflight, a precheck
    /// rejection, a 413, a framing 400, a 503 for buffered bytes.
    private func everyKindOfAnswer(_ server: HTTPServer, origin: String) throws -> [String: RawHTTPClient.Response] {
        var answers: [String: RawHTTPClient.Response] = [:]
        let o = ("Origin", origin)
        answers["handler"] = try RawHTTPClient(port: server.boundPort).roundTrip("GET", "/layout", headers: [o])
        answers["preflight"] = try RawHTTPClient(port: server.boundPort).roundTrip("OPTIONS", "/layout", headers: [
            o, ("Access-Control-Request-Method", "POST"),
        ])
        answers["precheck"] = try RawHTTPClient(port: server.boundPort).roundTrip("GET", "/nope", headers: [o])
        let big = try RawHTTPClient(port: server.boundPort)
        try big.send(RawHTTPClient.request("POST", "/layout", headers: [o], contentLength: 2000))
        answers["too large"] = try big.readResponse()
        let smuggler = try RawHTTPClient(port: server.boundPort)
        try smuggler.send("POST /layout HTTP/1.1\r\nHost: x\r\nOrigin: \(origin)\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")
        answers["framing"] = try smuggler.readResponse()
        let a = try RawHTTPClient(port: server.boundPort)
        try a.send(RawHTTPClient.request("POST", "/layout", contentLength: 900) + [UInt8](repeating: 1, count: 500))
        XCTAssertTrue(waitFor(3) { server.bufferedBodyBytes.load(ordering: .relaxed) == 500 })
        let b = try RawHTTPClient(port: server.boundPort)
        try b.send(RawHTTPClient.request("POST", "/layout", headers: [o], contentLength: 600))
        answers["overloaded"] = try b.readResponse()
        return answers
    }

    private func hostileConfiguration(_ origins: [String]) -> HTTPServer.Configuration {
        configuration {
            $0.corsAllowedOrigins = origins
            $0.maxBodyBytes = 1000
            $0.maxBufferedBodyBytes = 1000
        }
    }

    private static let onlyLayout: HTTPServer.Precheck = { head in
        head.path == "/layout" ? nil : HTTPServerTestCase.errorBody(404, "not_found", "no route")
    }

    func testNosniffOnEveryAnswer() throws {
        let server = try startServer(hostileConfiguration([]), precheck: Self.onlyLayout, handler: Self.echo)
        let answers = try everyKindOfAnswer(server, origin: "https://a.example")
        XCTAssertEqual(answers.mapValues { $0.status },
                       ["handler": 200, "preflight": 204, "precheck": 404, "too large": 413, "framing": 400, "overloaded": 503])
        for (kind, response) in answers {
            XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff", kind)
        }
    }

    func testVaryOriginOnEveryAnswerWhenOriginsAreListed() throws {
        let server = try startServer(hostileConfiguration(["https://a.example"]), precheck: Self.onlyLayout, handler: Self.echo)
        for (kind, response) in try everyKindOfAnswer(server, origin: "https://b.example") {
            XCTAssertTrue(response.header("Vary")?.contains("Origin") == true, "\(kind): \(response.headers)")
            XCTAssertNil(response.header("Access-Control-Allow-Origin"), kind)
        }
        for server in servers { server.stop() }
        servers = []
        let again = try startServer(hostileConfiguration(["https://a.example"]), precheck: Self.onlyLayout, handler: Self.echo)
        for (kind, response) in try everyKindOfAnswer(again, origin: "https://a.example") {
            XCTAssertTrue(response.header("Vary")?.contains("Origin") == true, "\(kind): \(response.headers)")
            XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "https://a.example", kind)
        }
    }

    func testNoVaryOriginForAWildcard() throws {
        let server = try startServer(hostileConfiguration(["*"]), precheck: Self.onlyLayout, handler: Self.echo)
        for (kind, response) in try everyKindOfAnswer(server, origin: "https://b.example") {
            XCTAssertFalse(response.header("Vary")?.contains("Origin") == true, "\(kind): \(response.headers)")
            XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*", kind)
        }
    }
}
