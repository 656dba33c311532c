import Foundation
import XCTest
@testable import LoomHTTP

final class HTTPServerCORSAndGzipTests: HTTPServerTestCase {
    func testPreflightIsAnsweredWithoutTheHandler() throws {
        let server = try startServer(configuration { $0.corsAllowedOrigins = ["*"] }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("OPTIONS", "/layout", headers: [
            ("Origin", "https://app.example"),
            ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ])
        XCTAssertEqual(response.status, 204)
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*")
        let methods = try XCTUnwrap(response.header("Access-Control-Allow-Methods"))
        for method in ["GET", "POST", "OPTIONS"] { XCTAssertTrue(methods.contains(method), methods) }
        let allowed = try XCTUnwrap(response.header("Access-Control-Allow-Headers")).lowercased()
        XCTAssertTrue(allowed.contains("content-type"), allowed)
        XCTAssertTrue(allowed.contains("accept-encoding"), allowed)
        XCTAssertEqual(response.header("Access-Control-Max-Age"), "86400")
        XCTAssertEqual(handlerCalls.current, 0)
        // The connection stays usable.
        XCTAssertEqual(try client.roundTrip("GET", "/next").status, 200)
        XCTAssertEqual(handlerCalls.current, 1)
    }

    func testWildcardCORSOnNormalResponses() throws {
        let server = try startServer(configuration { $0.corsAllowedOrigins = ["*"] }, handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("POST", "/layout", headers: [("Origin", "https://app.example")],
                                            body: Array("x".utf8))
        XCTAssertEqual(response.header("Access-Control-Allow-Origin"), "*")
        let exposed = try XCTUnwrap(response.header("Access-Control-Expose-Headers"))
        XCTAssertTrue(exposed.contains("X-Layout-Cache") && exposed.contains("X-Layout-Key"), exposed)
        XCTAssertNil(response.header("Vary"))
        // No Origin, no CORS headers.
        let plain = try client.roundTrip("POST", "/layout", body: Array("x".utf8))
        XCTAssertNil(plain.header("Access-Control-Allow-Origin"))
    }

    func testListedOriginsAreEchoedOthersGetNothing() throws {
        let server = try startServer(configuration { $0.corsAllowedOrigins = ["https://a.example", "https://b.example"] },
                                     handler: Self.echo)
        let client = try RawHTTPClient(port: server.boundPort)
        let allowed = try client.roundTrip("GET", "/", headers: [("Origin", "https://b.example")])
        XCTAssertEqual(allowed.header("Access-Control-Allow-Origin"), "https://b.example")
        XCTAssertEqual(allowed.header("Vary"), "Origin")
        let refused = try client.roundTrip("GET", "/", headers: [("Origin", "https://evil.example")])
        XCTAssertNil(refused.header("Access-Control-Allow-Origin"))
        XCTAssertEqual(refused.header("Vary"), "Origin")
        let preflight = try client.roundTrip("OPTIONS", "/layout", headers: [
            ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST"),
        ])
        XCTAssertEqual(preflight.status, 204)
        XCTAssertNil(preflight.header("Access-Control-Allow-Origin"))
        XCTAssertNil(preflight.header("Access-Control-Allow-Methods"))
        let goodPreflight = try client.roundTrip("OPTIONS", "/layout", headers: [
            ("Origin", "https://a.example"), ("Access-Control-Request-Method", "POST"),
        ])
        XCTAssertEqual(goodPreflight.header("Access-Control-Allow-Origin"), "https://a.example")
        XCTAssertEqual(handlerCalls.current, 2)
    }

    func testLargeBodyIsGzippedForClientsThatAcceptIt() throws {
        let text = (0..<400).map { #"{"id":"node-\#($0)","frame":{"x":\#($0),"y":0,"width":40,"height":40}}"# }
            .joined(separator: ",")
        let original = Array(text.utf8)
        let server = try startServer { _, respond in
            respond(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: original))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let zipped = try client.roundTrip("GET", "/big", headers: [("Accept-Encoding", "br, gzip;q=0.8, deflate")])
        XCTAssertEqual(zipped.status, 200)
        XCTAssertEqual(zipped.header("Content-Encoding"), "gzip")
        XCTAssertTrue(zipped.header("Vary")?.contains("Accept-Encoding") == true)
        XCTAssertEqual(Array(zipped.body.prefix(2)), [0x1f, 0x8b], "not a gzip stream")
        XCTAssertLessThan(zipped.body.count, original.count / 3)
        XCTAssertEqual(zipped.header("Content-Length"), String(zipped.body.count))
        XCTAssertEqual(try gunzipWithSystemTool(zipped.body), original)
        XCTAssertEqual(Gzip.decompress(zipped.body), original)

        let plain = try client.roundTrip("GET", "/big")
        XCTAssertNil(plain.header("Content-Encoding"))
        XCTAssertEqual(plain.body, original)
        XCTAssertTrue(plain.header("Vary")?.contains("Accept-Encoding") == true)

        let refused = try client.roundTrip("GET", "/big", headers: [("Accept-Encoding", "gzip;q=0")])
        XCTAssertNil(refused.header("Content-Encoding"))
        XCTAssertEqual(refused.body, original)
    }

    func testSmallBodyIsNotGzipped() throws {
        let server = try startServer(configuration { $0.gzipMinimumBytes = 1024 }) { _, respond in
            respond(HTTPResponse(status: 200, body: [UInt8](repeating: 65, count: 1023)))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let response = try client.roundTrip("GET", "/small", headers: [("Accept-Encoding", "gzip")])
        XCTAssertNil(response.header("Content-Encoding"))
        XCTAssertEqual(response.body.count, 1023)
    }

    func testGzipRoundTripAndAcceptEncodingParsing() {
        let data = Array(String(repeating: "loom layout ", count: 1000).utf8)
        let compressed = Gzip.compress(data)
        XCTAssertNotNil(compressed)
        XCTAssertEqual(Gzip.decompress(compressed ?? []), data)
        XCTAssertNil(Gzip.decompress(Array((compressed ?? []).dropLast(10))), "truncated stream accepted")
        XCTAssertEqual(Gzip.compress([]).flatMap { Gzip.decompress($0) }, [])
        XCTAssertTrue(Gzip.accepts("gzip"))
        XCTAssertTrue(Gzip.accepts("deflate, GZIP"))
        XCTAssertTrue(Gzip.accepts("gzip;q=0.5"))
        XCTAssertFalse(Gzip.accepts("gzip;q=0"))
        XCTAssertFalse(Gzip.accepts("gzip ; q=0.000"))
        XCTAssertFalse(Gzip.accepts("br, deflate"))
        XCTAssertFalse(Gzip.accepts("xgzip"))
        XCTAssertFalse(Gzip.accepts(nil))
    }
}
