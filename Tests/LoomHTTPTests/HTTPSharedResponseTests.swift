import Foundation
import XCTest
@testable import LoomHTTP

#if canImport(Glibc)
import Glibc
#endif

/// Responses with a reuse key: built once per (key, CORS origin, gzip) and answered again,
/// byte for byte what a response built each time says.
final class HTTPSharedResponseTests: HTTPServerTestCase {
    private final class Key: Sendable {}

    private let body: [UInt8] = Array((0..<300).map { #"{"id":"n\#($0)","x":\#($0)}"# }.joined(separator: ",").utf8)

    /// Two servers allowing two origins: one answering with a reuse key, one without.
    private func servers(key: Key) throws -> (shared: HTTPServer, plain: HTTPServer) {
        let config = configuration { $0.corsAllowedOrigins = ["https://a.example", "https://b.example"] }
        let body = self.body
        let headers = [("Content-Type", "application/json"), ("X-Layout-Cache", "hit")]
        let shared = try startServer(config) { _, respond in
            respond(HTTPResponse(status: 200, headers: headers, body: body, reuseKey: key))
        }
        let plain = try startServer(config) { _, respond in
            respond(HTTPResponse(status: 200, headers: headers, body: body))
        }
        return (shared, plain)
    }

    private func comparable(_ r: RawHTTPClient.Response) -> String {
        let headers = r.headers.filter { $0.0.lowercased() != "date" }.map { "\($0.0): \($0.1)" }.joined(separator: "\n")
        return "\(r.status)\n\(headers)\n\(r.body.count) \(r.body.hashValue)"
    }

    func testSharedAnswersAreWhatFreshOnesSay() throws {
        let (shared, plain) = try servers(key: Key())
        let a = try RawHTTPClient(port: shared.boundPort)
        let b = try RawHTTPClient(port: plain.boundPort)
        let variants: [[(String, String)]] = [
            [], [("Accept-Encoding", "gzip")], [("Origin", "https://a.example")], [("Origin", "https://b.example")],
            [("Origin", "https://evil.example"), ("Accept-Encoding", "gzip")], [("Origin", "https://a.example"), ("Accept-Encoding", "gzip")],
        ]
        var gzipped = 0
        for round in 0..<3 {
            for headers in variants {
                let x = try a.roundTrip("GET", "/x", headers: headers)
                let y = try b.roundTrip("GET", "/x", headers: headers)
                XCTAssertEqual(comparable(x), comparable(y), "round \(round) \(headers)")
                let expected = headers.contains { $0.0 == "Accept-Encoding" } ? Gzip.decompress(x.body) : x.body
                XCTAssertEqual(expected, body, "\(headers)")
                if x.header("Content-Encoding") == "gzip" { gzipped += 1 }
            }
        }
        XCTAssertEqual(gzipped, 9)
        // HEAD: the headers only, from the same response.
        try a.send(RawHTTPClient.request("HEAD", "/x", headers: [("Origin", "https://b.example")]))
        let head = try a.readResponse(noBody: true)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Access-Control-Allow-Origin"), "https://b.example")
        XCTAssertEqual(head.header("Content-Length"), String(body.count))
    }

    func testTheKeyStandsForTheResponse() throws {
        // Whatever the handler says later under the same key, the first answer is kept:
        // that is the contract of reuseKey (and what makes it cheap).
        let key = Key()
        let calls = Locked(0)
        let server = try startServer { _, respond in
            let n = calls.withValue { $0 += 1; return $0 }
            respond(HTTPResponse(status: 200, headers: [("X-N", String(n))], body: Array("answer \(n)".utf8), reuseKey: key))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        for _ in 0..<3 {
            let r = try client.roundTrip("GET", "/")
            XCTAssertEqual(r.text, "answer 1")
            XCTAssertEqual(r.header("X-N"), "1")
        }
        XCTAssertEqual(calls.current, 3)
        // Another key, another response.
        let other = try startServer { _, respond in
            respond(HTTPResponse(status: 201, body: Array("other".utf8), reuseKey: Key()))
        }
        let r = try RawHTTPClient(port: other.boundPort).roundTrip("GET", "/")
        XCTAssertEqual(r.status, 201)
        XCTAssertEqual(r.text, "other")
    }

    func testSharedResponseWhileStoppingSaysConnectionClose() throws {
        let key = Key()
        let server = try startServer { _, respond in
            respond(HTTPResponse(status: 200, body: Array("kept".utf8), reuseKey: key))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let first = try client.roundTrip("GET", "/")
        XCTAssertNil(first.header("Connection"))
        server.stopAccepting()
        let second = try client.roundTrip("GET", "/")
        XCTAssertEqual(second.text, "kept")
        XCTAssertEqual(second.header("Connection")?.lowercased(), "close")
        XCTAssertTrue(client.waitForClose(timeout: 2))
    }

    /// A connection answering again from the same shared response swaps only the id: every
    /// answer carries exactly its own request's id (given, repeated, of another length, or
    /// made up), whatever the one before it carried, and the body and headers stay the same.
    func testAConnectionsKeptAnswerCarriesEachRequestsOwnId() throws {
        let key = Key()
        let body = self.body
        let server = try startServer(configuration { $0.requestIDHeader = "X-Request-Id" }) { _, respond in
            respond(HTTPResponse(status: 200, headers: [("Content-Type", "application/json")], body: body, reuseKey: key))
        }
        let client = try RawHTTPClient(port: server.boundPort)
        let other = try RawHTTPClient(port: server.boundPort)
        let given: [String?] = ["a", "a", "bb", nil, "ccc", nil, "a", String(repeating: "z", count: 128), "d", nil]
        var madeUp = Set<String>()
        for (n, id) in given.enumerated() {
            let r = try client.roundTrip("GET", "/x", headers: id.map { [("X-Request-Id", $0)] } ?? [])
            let ids = r.headers.filter { $0.0.lowercased() == "x-request-id" }.map(\.1)
            XCTAssertEqual(ids.count, 1, "request \(n): \(r.headers)")
            if let id {
                XCTAssertEqual(ids.first, id, "request \(n)")
            } else {
                XCTAssertEqual(ids.first?.utf8.count, 24, "request \(n)")
                madeUp.insert(ids.first ?? "")
            }
            XCTAssertEqual(r.body, body, "request \(n)")
            XCTAssertEqual(r.header("Content-Type"), "application/json")
            // Another connection in between, on the same shared response, keeps its own.
            let o = try other.roundTrip("GET", "/x", headers: [("X-Request-Id", "other-\(n)")])
            XCTAssertEqual(o.headers.filter { $0.0.lowercased() == "x-request-id" }.map(\.1), ["other-\(n)"])
        }
        XCTAssertEqual(madeUp.count, 3)
    }

    func testNumericHostIPv4() {
        for text in ["127.0.0.1", "0.0.0.0", "255.255.255.255", "10.20.30.40", "192.168.100.9", "1.2.3.4"] {
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            XCTAssertEqual(inet_pton(AF_INET, text, &sin.sin_addr), 1)
            let formatted = withUnsafePointer(to: &sin) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { numericHost($0) }
            }
            XCTAssertEqual(formatted, text)
        }
    }
}
