import Foundation
import Logging
import XCTest
@testable import LoomHTTP

/// The cheap per-request paths of the server: headers kept as received, Content-Length
/// read from the C string, the preformatted access line.
final class HTTPFastPathTests: HTTPServerTestCase {
    /// Records as `loom_mhd_collect_values` writes them.
    private func raw(_ pairs: [(String, String)]) -> RawValues {
        var bytes: [UInt8] = []
        for (k, v) in pairs {
            withUnsafeBytes(of: UInt32(k.utf8.count)) { bytes.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt32(v.utf8.count)) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: k.utf8)
            bytes.append(contentsOf: v.utf8)
        }
        return RawValues(bytes: bytes)
    }

    func testHeaderLookupOverTheWire() throws {
        let seen = Locked<[String]>([])
        let server = try startServer { request, respond in
            seen.withValue {
                $0 = [request.header("X-MULTI") ?? "<nil>", request.header("accept") ?? "<nil>",
                      request.header("Content-Type") ?? "<nil>", request.header("x-absent") ?? "<nil>",
                      request.headers["x-multi"] ?? "<nil>", request.headers["X-Multi"] ?? "<nil>"]
            }
            respond(HTTPResponse(status: 204))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("GET", "/", headers: [
            ("X-Multi", "a"), ("x-multi", "b"), ("ACCEPT", "*/*"), ("Content-Type", "application/json; charset=utf-8"),
        ])
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(seen.current, ["a, b", "*/*", "application/json; charset=utf-8", "<nil>", "a, b", "<nil>"])
    }

    func testRawHeadersMatchTheDictionary() {
        let headers = raw([("Host", "x"), ("X-Multi", "a"), ("X-MULTI", ""), ("x-multi", "c"), ("Empty", ""),
                           ("X-Ä", "umlaut"), ("Accept", "*/*")])
        let request = HTTPRequest(method: "GET", path: "/", query: [:], rawHeaders: headers, body: [], remoteAddress: "")
        XCTAssertEqual(request.headers, ["host": "x", "x-multi": "a, , c", "empty": "", "x-ä": "umlaut", "accept": "*/*"])
        XCTAssertEqual(request.header("X-MULTI"), "a, , c")
        XCTAssertEqual(request.header("empty"), "")
        XCTAssertNil(request.header("x-mult"))
        XCTAssertNil(request.header("x-multii"))
        // Non-ASCII names: decided by the dictionary's Unicode lower-casing.
        XCTAssertEqual(request.header("X-Ä"), "umlaut")
        XCTAssertEqual(request.header("x-ä"), "umlaut")
        // Undecided (left to the dictionary) as soon as a name is not ASCII.
        XCTAssertNil(headers.asciiLookup("x-ä"))
        XCTAssertNil(headers.asciiLookup("accept"))
        let ascii = raw([("Host", "x"), ("Accept", "*/*"), ("ACCEPT", "b")])
        XCTAssertEqual(ascii.asciiLookup("accept"), .some("*/*, b"))
        XCTAssertEqual(ascii.asciiLookup("absent"), .some(nil))
        XCTAssertNil(ascii.asciiLookup("x-ä"))
        XCTAssertEqual(raw([]).asciiLookup("host"), .some(nil))
        XCTAssertEqual(HTTPRequest(method: "GET", path: "/", query: [:], rawHeaders: raw([]), body: [], remoteAddress: "").headers, [:])

        // Assigning the dictionary replaces the received headers.
        var changed = request
        changed.headers = ["content-type": "text/plain"]
        XCTAssertEqual(changed.header("Content-Type"), "text/plain")
        XCTAssertNil(changed.header("accept"))
        XCTAssertEqual(request.header("accept"), "*/*")
    }

    func testContentLengthParsing() {
        func parse(_ s: String) -> String {
            guard let (length, overflow) = s.withCString({ HTTPServer.contentLength($0) }) else { return "none" }
            return "\(length.map(String.init) ?? "nil") \(overflow)"
        }
        let cases: [(String, String)] = [
            ("42", "42 false"), ("0", "0 false"), (" \t42 \t", "42 false"), ("", "none"), (" \t ", "none"),
            ("+5", "5 false"), ("12a", "nil false"), ("1 2", "nil false"), ("-1", "nil false"),
            ("9999999999999999999", "9999999999999999999 false"),
            ("18446744073709551615", "18446744073709551615 false"),
            ("18446744073709551616", "nil true"), ("123456789012345678901234567890", "nil true"),
        ]
        for (value, expected) in cases { XCTAssertEqual(parse(value), expected, value.debugDescription) }
    }

    func testAccessLogWriterGetsTheLineInsteadOfTheLogger() throws {
        let lines = Locked<[String]>([])
        let server = try startServer(prepare: { server in
            server.accessLogWriter = { message, fields in
                lines.withValue { $0.append("\(fields.remote)|" + String(decoding: message, as: UTF8.self)) }
            }
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        _ = try client.roundTrip("POST", "/logged?x=1", body: Array("12345".utf8))
        XCTAssertTrue(waitFor(2) { !lines.current.isEmpty })
        let line = try XCTUnwrap(lines.current.first)
        XCTAssertNotNil(line.range(of: #"^127\.0\.0\.1\|POST /logged 200 5B [0-9]+\.[0-9]ms$"#, options: .regularExpression), line)
        XCTAssertFalse(log.lines.contains { $0.1.contains("/logged") }, "\(log.lines)")
    }

    func testAccessLogWriterRespectsTheLogLevel() throws {
        let lines = Locked<[String]>([])
        let server = try startServer(logLevel: .notice, prepare: { server in
            server.accessLogWriter = { message, _ in lines.withValue { $0.append(String(decoding: message, as: UTF8.self)) } }
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        _ = try client.roundTrip("GET", "/quiet")
        // A connection's requests are completed in turn: once the second is answered, the
        // first has finished (its line, if any, written).
        _ = try client.roundTrip("GET", "/quiet")
        XCTAssertEqual(lines.current, [])
    }

    func testAccessLineNumbers() {
        let text = "é/ü"
        let room = AccessLine.room(for: text)
        XCTAssertGreaterThanOrEqual(room, 96 + 5)
        withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { buffer in
            var line = AccessLine(buffer)
            line.append(0); line.append(" "); line.append(-7); line.append(" "); line.append(Int.max); line.append(" ")
            line.append(Int.min); line.append(" "); line.append(text)
            XCTAssertEqual(String(decoding: line.bytes, as: UTF8.self), "0 -7 \(Int.max) \(Int.min) é/ü")
            XCTAssertLessThanOrEqual(line.count, room)
        }
    }

    /// `Vary` names gathered from the handler and the server: each once, the first spelling
    /// kept, empty ones dropped (as the set of lower-cased names did before).
    func testVaryNamesAreJoinedOnceEach() {
        XCTAssertEqual(HTTPServer.joinedUnique(["Accept", "Accept-Encoding"]), "Accept, Accept-Encoding")
        XCTAssertEqual(HTTPServer.joinedUnique(["accept", "", "Origin", "ACCEPT", "origin", "Accept-Encoding"]),
                       "accept, Origin, Accept-Encoding")
        XCTAssertEqual(HTTPServer.joinedUnique(["Ä-X", "ä-x", "Accept"]), "Ä-X, Accept")
        XCTAssertEqual(HTTPServer.joinedUnique(["", ""]), "")
    }
}
