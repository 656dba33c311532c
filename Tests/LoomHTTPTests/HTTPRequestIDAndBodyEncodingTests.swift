import Foundation
import XCTest
@testable import LoomHTTP

/// Request ids (`requestIDHeader`), gzip request bodies (`decodesGzipBodies`), the access
/// line's fields, and the preflight's `Allow` from `allowedMethods`.
final class HTTPRequestIDAndBodyEncodingTests: HTTPServerTestCase {
    private final class Key: Sendable {}

    /// A handler answering with the body and the id it was handed.
    static let idEcho: HTTPServer.Handler = { request, respond in
        respond(HTTPResponse(status: 200, headers: [("X-Seen-Id", request.requestID)], body: request.body))
    }

    private func isMadeUp(_ id: String?) -> Bool {
        guard let id else { return false }
        return id.utf8.count == 24 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    // MARK: request ids

    func testAWellFormedIdIsKeptAndEchoed() throws {
        let server = try startServer(configuration { $0.requestIDHeader = "X-Request-Id" }, handler: Self.idEcho)
        let client = try RawHTTPClient(port: server.boundPort)
        for id in ["abc", "3f2c9a1e-7b4d-4e0a-9c55-0d2b6f1e8a77", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                   "dXNlcj0x+/w==", "svc@host:42", String(repeating: "z", count: 128)] {
            let response = try client.roundTrip("GET", "/x", headers: [("X-Request-Id", id)])
            XCTAssertEqual(response.header("X-Request-Id"), id)
            XCTAssertEqual(response.header("X-Seen-Id"), id)
        }
    }

    func testAMissingOrUnfitIdIsReplaced() throws {
        let server = try startServer(configuration { $0.requestIDHeader = "X-Request-Id" }, handler: Self.idEcho)
        let client = try RawHTTPClient(port: server.boundPort)
        var seen = Set<String>()
        for given in [nil, "", String(repeating: "z", count: 129), "two words", "quote\"d", "semi;colon", "é", "a\\b"] {
            let response = try client.roundTrip("GET", "/x", headers: given.map { [("X-Request-Id", $0)] } ?? [])
            let id = response.header("X-Request-Id")
            XCTAssertTrue(isMadeUp(id), "\(given ?? "nil") → \(id ?? "nil")")
            XCTAssertEqual(response.header("X-Seen-Id"), id)
            seen.insert(id ?? "")
        }
        XCTAssertEqual(seen.count, 8, "made-up ids repeat: \(seen)")
    }

    func testIdsAreOffByDefault() throws {
        let server = try startServer(handler: Self.idEcho)
        let response = try RawHTTPClient(port: server.boundPort).roundTrip("GET", "/x", headers: [("X-Request-Id", "abc")])
        XCTAssertNil(response.header("X-Request-Id"))
        XCTAssertEqual(response.header("X-Seen-Id") ?? "", "")
    }

    /// The server's own answers (413 before the body, framing 400, preflight) carry the id too.
    func testRefusalsAndPreflightsCarryTheId() throws {
        let server = try startServer(configuration {
            $0.requestIDHeader = "X-Request-Id"
            $0.maxBodyBytes = 100
            $0.corsAllowedOrigins = ["*"]
        }, handler: Self.idEcho)
        let big = try RawHTTPClient(port: server.boundPort).roundTrip(
            "POST", "/x", headers: [("X-Request-Id", "big-1")], body: Array(repeating: 65, count: 101))
        XCTAssertEqual(big.status, 413)
        XCTAssertEqual(big.header("X-Request-Id"), "big-1")
        let preflight = try RawHTTPClient(port: server.boundPort).roundTrip(
            "OPTIONS", "/x", headers: [("X-Request-Id", "pre-1"), ("Origin", "https://a.example")])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertEqual(preflight.header("X-Request-Id"), "pre-1")
        let framing = try RawHTTPClient(port: server.boundPort)
        try framing.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab")
        let bad = try framing.readResponse()
        XCTAssertEqual(bad.status, 400)
        XCTAssertTrue(isMadeUp(bad.header("X-Request-Id")), "\(bad.headers)")
    }

    /// Answers built once (`reuseKey`) still carry each request's own id, over the same body.
    func testSharedAnswersCarryEachRequestsId() throws {
        let key = Key()
        let body = Array(String(repeating: "shared body ", count: 200).utf8)
        let server = try startServer(configuration { $0.requestIDHeader = "X-Request-Id" }) { _, respond in
            respond(HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: body, reuseKey: key))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        for n in 0..<20 {
            let gzip = n % 2 == 1
            let response = try client.roundTrip("GET", "/s", headers: [("X-Request-Id", "r\(n)")]
                                                + (gzip ? [("Accept-Encoding", "gzip")] : []))
            XCTAssertEqual(response.header("X-Request-Id"), "r\(n)")
            XCTAssertEqual(response.header("Content-Type"), "text/plain")
            XCTAssertEqual(gzip ? Gzip.decompress(response.body) : response.body, body, "request \(n)")
        }
    }

    // MARK: the access line

    func testTheAccessLineCarriesTheIdAndTheAnswersFields() throws {
        let records = Locked<[(String, HTTPAccessLogFields)]>([])
        let server = try startServer(configuration { $0.requestIDHeader = "X-Request-Id" }, prepare: { server in
            server.accessLogWriter = { message, fields in
                records.withValue { $0.append((String(decoding: message, as: UTF8.self), fields)) }
            }
        }) { request, respond in
            respond(HTTPResponse(status: 404, body: [], accessLogFields: [("error", "not_found"), ("note", "a b\nc")]))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        _ = try client.roundTrip("GET", "/missing", headers: [("X-Request-Id", "log-7")])
        _ = try client.roundTrip("GET", "/again")
        XCTAssertTrue(waitFor(2) { records.current.count >= 1 })
        let (message, fields) = try XCTUnwrap(records.current.first)
        XCTAssertTrue(message.hasPrefix("GET /missing 404 0B "), message)
        XCTAssertEqual(fields.remote, "127.0.0.1")
        XCTAssertEqual(fields.requestID, "log-7")
        // Sorted by key, values escaped as the path is.
        XCTAssertEqual(fields.sorted.map { "\($0.key)=\($0.value)" },
                       ["error=not_found", "note=a\\x20b\\x0ac", "remote=127.0.0.1", "request_id=log-7"])
        XCTAssertEqual(fields.metadata["request_id"], .string("log-7"))
        XCTAssertEqual(fields.metadata["error"], .string("not_found"))
    }

    /// `forEachSorted` visits what `sorted` lists, in its order: equal keys in the order
    /// given, `remote` and `request_id` of the answer's own fields left out.
    func testAccessLogFieldsInKeyOrderWithoutAnArray() {
        let cases = [
            HTTPAccessLogFields(remote: "::1", requestID: nil, extra: []),
            HTTPAccessLogFields(remote: "10.0.0.2", requestID: "r-1",
                                extra: [("zeta", "1"), ("cache", "hit"), ("remote", "x"), ("alpha", "2"), ("cache", "miss"),
                                        ("request_id", "y"), ("s", "3"), ("requests", "4")]),
            HTTPAccessLogFields(remote: "a", requestID: "b", extra: [("remote_", "c"), ("", "d"), ("Z", "e")]),
        ]
        for fields in cases {
            var visited: [String] = []
            fields.forEachSorted { visited.append("\($0)=\($1)") }
            XCTAssertEqual(visited, fields.sorted.map { "\($0.key)=\($0.value)" })
        }
        var visited: [String] = []
        cases[1].forEachSorted { k, _ in visited.append(k) }
        XCTAssertEqual(visited, ["alpha", "cache", "cache", "remote", "request_id", "requests", "s", "zeta"])
        cases[1].forEachSorted { k, v in if k == "cache" { visited.append(v) } }
        XCTAssertEqual(visited.suffix(2), ["hit", "miss"])
    }

    // MARK: gzip request bodies

    private func gzipServer(limit: Int = 1000) throws -> HTTPServer {
        try startServer(configuration {
            $0.decodesGzipBodies = true
            $0.maxBodyBytes = limit
        }, handler: Self.echo)
    }

    func testAGzipBodyIsHandedOverInflated() throws {
        let server = try gzipServer()
        let original = Array(String(repeating: "{\"type\":\"node\"}", count: 60).utf8) // 900 bytes
        let zipped = try XCTUnwrap(Gzip.compress(original))
        XCTAssertLessThan(zipped.count, 100)
        let client = try RawHTTPClient(port: server.boundPort)
        for encoding in ["gzip", "GZIP", "x-gzip", " gzip "] {
            let response = try client.roundTrip("POST", "/z", headers: [("Content-Encoding", encoding)], body: zipped)
            XCTAssertEqual(response.status, 200, encoding)
            XCTAssertEqual(response.body, original, encoding)
        }
        // identity (or no header): as sent.
        let plain = try client.roundTrip("POST", "/z", headers: [("Content-Encoding", "identity")], body: Array("abc".utf8))
        XCTAssertEqual(plain.text, "abc")
    }

    /// Inflating stops at the body limit: exactly the limit passes, one byte more is 413, and
    /// a bomb (10 MB of zeros in about 10 KB: deflate's best ratio is about 1:1000) is 413
    /// without the handler.
    func testInflatingStopsAtTheBodyLimit() throws {
        let limit = 16 << 10
        let server = try gzipServer(limit: limit)
        let client = try RawHTTPClient(port: server.boundPort)
        let exact = try client.roundTrip("POST", "/z", headers: [("Content-Encoding", "gzip")],
                                         body: try XCTUnwrap(Gzip.compress(Array(repeating: 120, count: limit))))
        XCTAssertEqual(exact.status, 200)
        XCTAssertEqual(exact.body.count, limit)
        let calls = handlerCalls.current
        for size in [limit + 1, 10 << 20] {
            let zipped = try XCTUnwrap(Gzip.compress(Array(repeating: 0, count: size)))
            XCTAssertLessThan(zipped.count, limit, "the compressed body itself is within the limit")
            let response = try RawHTTPClient(port: server.boundPort).roundTrip(
                "POST", "/z", headers: [("Content-Encoding", "gzip")], body: zipped)
            XCTAssertEqual(response.status, 413, "\(size)")
            XCTAssertTrue(response.text.contains("too_large"), response.text)
        }
        XCTAssertEqual(handlerCalls.current, calls)
    }

    func testBrokenGzipIs400AndOtherEncodingsAre415() throws {
        let server = try gzipServer()
        let zipped = try XCTUnwrap(Gzip.compress(Array("hello, hello, hello".utf8)))
        for (body, what) in [(Array("not gzip".utf8), "garbage"), (Array(zipped.dropLast(6)), "truncated"),
                             (zipped + [1, 2, 3], "trailing bytes")] {
            let response = try RawHTTPClient(port: server.boundPort).roundTrip(
                "POST", "/z", headers: [("Content-Encoding", "gzip")], body: body)
            XCTAssertEqual(response.status, 400, what)
            XCTAssertTrue(response.text.contains("bad_request"), response.text)
        }
        for encoding in ["br", "deflate", "gzip, gzip", "compress"] {
            // Refused on its headers: the body is never invited (no 100 Continue).
            let client = try RawHTTPClient(port: server.boundPort)
            try client.send(RawHTTPClient.request("POST", "/z", headers: [("Content-Encoding", encoding),
                                                                        ("Expect", "100-continue")], contentLength: 10))
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 415, encoding)
            XCTAssertTrue(response.text.contains("unsupported_media_type"), response.text)
        }
        XCTAssertEqual(handlerCalls.current, 0)
    }

    func testWithoutTheOptionBodiesPassAsSent() throws {
        let server = try startServer(handler: Self.echo)
        let zipped = try XCTUnwrap(Gzip.compress(Array("abc".utf8)))
        let response = try RawHTTPClient(port: server.boundPort).roundTrip(
            "POST", "/z", headers: [("Content-Encoding", "gzip")], body: zipped)
        XCTAssertEqual(response.body, zipped)
        let br = try RawHTTPClient(port: server.boundPort).roundTrip(
            "POST", "/z", headers: [("Content-Encoding", "br")], body: Array("x".utf8))
        XCTAssertEqual(br.status, 200)
    }

    func testInflateLimits() throws {
        let data = Array((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let zipped = try XCTUnwrap(Gzip.compress(data))
        XCTAssertEqual(Gzip.inflate(zipped, limit: 5000), .decoded(data))
        XCTAssertEqual(Gzip.inflate(zipped, limit: 4999), .tooLarge)
        XCTAssertEqual(Gzip.inflate(zipped, limit: 0), .tooLarge)
        XCTAssertEqual(Gzip.inflate(try XCTUnwrap(Gzip.compress([])), limit: 0), .decoded([]))
        if case .invalid = Gzip.inflate([], limit: 10) {} else { XCTFail("empty input is not gzip") }
    }

    // MARK: Allow

    func testPreflightAllowComesFromTheConfiguration() throws {
        let server = try startServer(configuration {
            $0.corsAllowedOrigins = ["*"]
            $0.allowedMethods = { path in path == "/post" ? "POST, OPTIONS" : "GET, HEAD, OPTIONS" }
            $0.corsAllowedHeaders = ["Content-Type", "If-None-Match"]
        }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let post = try client.roundTrip("OPTIONS", "/post", headers: [("Origin", "https://a.example")])
        XCTAssertEqual(post.header("Allow"), "POST, OPTIONS")
        XCTAssertEqual(post.header("Access-Control-Allow-Methods"), "POST, OPTIONS")
        XCTAssertEqual(post.header("Access-Control-Allow-Headers"), "Content-Type, If-None-Match")
        let get = try client.roundTrip("OPTIONS", "/get")
        XCTAssertEqual(get.header("Allow"), "GET, HEAD, OPTIONS")
        XCTAssertNil(get.header("Access-Control-Allow-Methods"))
    }
}
