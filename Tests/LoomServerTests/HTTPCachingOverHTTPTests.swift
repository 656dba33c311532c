import Foundation
import Logging
import XCTest
@testable import LoomHTTP
@testable import LoomService
@testable import LoomServer

/// Layouts as web resources: `Content-Location`, `ETag`, `GET /layouts/{key}`, conditional
/// requests, `Vary`, `Accept`, gzip request bodies, request ids and access-line fields,
/// CORS for them, and `/openapi.json`.
final class HTTPCachingOverHTTPTests: ServiceOverHTTPTestCase {
    private static let hex64 = { (s: String) in s.utf8.count == 64 && s.allSatisfy { $0.isHexDigit && !$0.isUppercase } }

    // MARK: POST /layout

    func testAPostSaysWhereTheLayoutLivesAndItsTag() throws {
        let loom = try startLoom()
        let first = try postJSON(loom, "/layout", Self.column(60))
        XCTAssertEqual(first.status, 200)
        let key = try XCTUnwrap(first.header("X-Layout-Key"))
        XCTAssertTrue(Self.hex64(key), key)
        XCTAssertEqual(first.header("Content-Location"), "/layouts/\(key)")
        XCTAssertEqual(first.header("ETag"), "W/\"\(key)\"")
        let vary = Set((first.header("Vary") ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        // The answer (over 1 KB) may be gzipped, and Accept picks its format.
        XCTAssertEqual(vary, ["Accept", "Accept-Encoding"])
        XCTAssertGreaterThan(first.body.count, 1024)

        // gzip and identity: the same weak tag.
        let zipped = try postJSON(loom, "/layout", Self.column(60), headers: [("Accept-Encoding", "gzip")])
        XCTAssertEqual(zipped.header("Content-Encoding"), "gzip")
        XCTAssertEqual(zipped.header("ETag"), first.header("ETag"))
        XCTAssertEqual(Gzip.decompress(zipped.body), first.body)
    }

    func testGetReturnsTheCachedAnswerWithCacheHeaders() throws {
        let loom = try startLoom()
        let posted = try postJSON(loom, "/layout", Self.row(40))
        let location = try XCTUnwrap(posted.header("Content-Location"))
        let got = try request(loom, "GET", location)
        XCTAssertEqual(got.status, 200)
        XCTAssertEqual(got.body, posted.body)
        XCTAssertEqual(got.header("Content-Type"), "application/json")
        XCTAssertEqual(got.header("Cache-Control"), "public, max-age=86400, immutable")
        XCTAssertEqual(got.header("ETag"), posted.header("ETag"))
        XCTAssertEqual(got.header("X-Layout-Cache"), "hit")
        // The URL names one format: Accept changes nothing, so no Vary on it.
        XCTAssertFalse((got.header("Vary") ?? "").contains("Accept,") || got.header("Vary") == "Accept")
        // Answered twice alike (the second from the shared response), and HEAD: headers only.
        XCTAssertEqual(try request(loom, "GET", location).body, posted.body)
        let head = try request(loom, "HEAD", location)
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("ETag"), posted.header("ETag"))
    }

    func testIfNoneMatchGives304WithoutABody() throws {
        let loom = try startLoom()
        let posted = try postJSON(loom, "/layout", Self.row(40))
        let key = try XCTUnwrap(posted.header("X-Layout-Key"))
        let tag = try XCTUnwrap(posted.header("ETag"))
        let location = "/layouts/\(key)"
        for given in [tag, "\"\(key)\"", "W/\"other\", \(tag)", "*"] {
            let got = try request(loom, "GET", location, headers: [("If-None-Match", given)])
            XCTAssertEqual(got.status, 304, given)
            XCTAssertEqual(got.body, [], given)
            XCTAssertEqual(got.header("ETag"), tag)
            XCTAssertEqual(got.header("Cache-Control"), "public, max-age=86400, immutable")
        }
        let other = try request(loom, "GET", location, headers: [("If-None-Match", "W/\"\(String(key.reversed()))\"")])
        XCTAssertEqual(other.status, 200)

        // POST: a client that holds the layout gets 304 from the cache...
        let again = try postJSON(loom, "/layout", Self.row(40), headers: [("If-None-Match", tag)])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.body, [])
        XCTAssertEqual(again.header("Content-Location"), location)
        XCTAssertEqual(again.header("X-Layout-Cache"), "hit")
        // ...and another tree still gets its layout.
        let changed = try postJSON(loom, "/layout", Self.row(41), headers: [("If-None-Match", tag)])
        XCTAssertEqual(changed.status, 200)
        XCTAssertNotEqual(changed.header("ETag"), tag)
    }

    /// Without a response cache every POST is laid out on the pool: the 304 comes from there,
    /// and GET finds nothing (404: POST instead).
    func testWithoutACacheAPostStillAnswers304AndGetIs404() throws {
        let loom = try startLoom { $0.cacheEntries = 0 }
        let posted = try postJSON(loom, "/layout", Self.row(40))
        let tag = try XCTUnwrap(posted.header("ETag"))
        let again = try postJSON(loom, "/layout", Self.row(40), headers: [("If-None-Match", tag)])
        XCTAssertEqual(again.status, 304)
        XCTAssertEqual(again.header("X-Layout-Cache"), "miss")
        let got = try request(loom, "GET", try XCTUnwrap(posted.header("Content-Location")))
        XCTAssertEqual(got.status, 404)
        XCTAssertEqual(errorObject(got)["code"] as? String, "not_found")
    }

    func testUnknownAndMalformedKeysAre404() throws {
        let loom = try startLoom()
        for path in ["/layouts/" + String(repeating: "a", count: 64), "/layouts/xyz", "/layouts/",
                     "/layouts/" + String(repeating: "A", count: 64), "/layouts/" + String(repeating: "a", count: 65)] {
            let got = try request(loom, "GET", path)
            XCTAssertEqual(got.status, 404, path)
            XCTAssertEqual(errorObject(got)["code"] as? String, "not_found", path)
        }
    }

    func testTheResponseKeySpellsItself() throws {
        let loom = try startLoom()
        let posted = try postJSON(loom, "/layout", Self.row(12))
        let hex = try XCTUnwrap(posted.header("X-Layout-Key"))
        let key = try XCTUnwrap(LayoutService.ResponseKey(hex: hex))
        XCTAssertEqual(key.hex, hex)
        XCTAssertNil(LayoutService.ResponseKey(hex: String(hex.dropLast())))
        XCTAssertNil(LayoutService.ResponseKey(hex: hex.uppercased()))
        XCTAssertNil(LayoutService.ResponseKey(hex: String(hex.dropLast()) + "g"))
        XCTAssertEqual(loom.service.cachedAnswer(key: hex)?.body, posted.body)
    }

    // MARK: format by Accept

    func testAcceptSVGGivesTheSVG() throws {
        let loom = try startLoom()
        let json = try postJSON(loom, "/layout", Self.row(40))
        let query = try postJSON(loom, "/layout?format=svg", Self.row(40))
        XCTAssertEqual(query.header("Content-Type"), "image/svg+xml")
        for accept in ["image/svg+xml", "image/*", "application/json;q=0.5, image/svg+xml", "text/html, image/svg+xml;q=0.9"] {
            let svg = try postJSON(loom, "/layout", Self.row(40), headers: [("Accept", accept)])
            XCTAssertEqual(svg.header("Content-Type"), "image/svg+xml", accept)
            XCTAssertEqual(svg.body, query.body, accept)
            XCTAssertEqual(svg.header("X-Layout-Key"), query.header("X-Layout-Key"), accept)
        }
        XCTAssertNotEqual(query.header("X-Layout-Key"), json.header("X-Layout-Key"))
        for accept in ["*/*", "application/json", "application/json, image/svg+xml;q=0.5", "image/svg+xml;q=0, */*",
                       "image/svg+xml;q=0.5, */*"] {
            let answer = try postJSON(loom, "/layout", Self.row(40), headers: [("Accept", accept)])
            XCTAssertEqual(answer.header("Content-Type"), "application/json", accept)
        }
        // The query wins over Accept.
        let asked = try postJSON(loom, "/layout?format=json", Self.row(40), headers: [("Accept", "image/svg+xml")])
        XCTAssertEqual(asked.header("Content-Type"), "application/json")
        // The SVG's key fetches the SVG.
        let got = try request(loom, "GET", try XCTUnwrap(query.header("Content-Location")))
        XCTAssertEqual(got.header("Content-Type"), "image/svg+xml")
        XCTAssertEqual(got.body, query.body)
        // The batch answers JSON whatever Accept says.
        let batch = try postJSON(loom, "/layout/batch", #"{"items": [\#(Self.row(3))]}"#, headers: [("Accept", "image/svg+xml")])
        XCTAssertEqual(batch.status, 200)
        XCTAssertEqual(batch.header("Content-Type"), "application/json")
    }

    // MARK: gzip request bodies

    func testAGzipBodyIsLaidOutLikeThePlainOne() throws {
        let loom = try startLoom { $0.maxBodyBytes = 64 << 10 }
        let plain = try postJSON(loom, "/layout", Self.column(200))
        let zipped = try XCTUnwrap(Gzip.compress(Array(Self.column(200).utf8)))
        let answer = try request(loom, "POST", "/layout", headers: Self.json + [("Content-Encoding", "gzip")], body: zipped)
        XCTAssertEqual(answer.status, 200, answer.text)
        XCTAssertEqual(answer.header("X-Layout-Key"), plain.header("X-Layout-Key"))
        XCTAssertEqual(answer.body, plain.body)

        let bomb = try XCTUnwrap(Gzip.compress(Array(repeating: 32, count: 50 << 20)))
        XCTAssertLessThan(bomb.count, 64 << 10)
        let refused = try request(loom, "POST", "/layout", headers: Self.json + [("Content-Encoding", "gzip")], body: bomb)
        XCTAssertEqual(refused.status, 413)
        XCTAssertEqual(errorObject(refused)["code"] as? String, "too_large")

        let br = try request(loom, "POST", "/layout", headers: Self.json + [("Content-Encoding", "br")], body: Array("{}".utf8))
        XCTAssertEqual(br.status, 415)
        XCTAssertEqual(errorObject(br)["code"] as? String, "unsupported_media_type")
    }

    // MARK: CORS

    func testCORSLetsAPageSendAndReadTheCachingHeaders() throws {
        let loom = try startLoom()
        let preflight = try request(loom, "OPTIONS", "/layout", headers: [
            ("Origin", "http://other.example"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type, if-none-match, x-request-id, content-encoding")])
        let allowed = Set((preflight.header("Access-Control-Allow-Headers") ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(allowed.isSuperset(of: ["content-type", "if-none-match", "x-request-id", "content-encoding"]), "\(allowed)")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Methods"), "POST, OPTIONS")
        let get = try request(loom, "OPTIONS", "/layouts/" + String(repeating: "0", count: 64),
                              headers: [("Origin", "http://other.example")])
        XCTAssertEqual(get.header("Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS")

        let posted = try postJSON(loom, "/layout", Self.row(40), headers: [("Origin", "http://other.example")])
        let exposed = Set((posted.header("Access-Control-Expose-Headers") ?? "").lowercased()
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        XCTAssertTrue(exposed.isSuperset(of: ["etag", "content-location", "retry-after", "x-request-id", "x-layout-key"]),
                      "\(exposed)")
    }

    // MARK: request ids and the access line

    func testRequestIdsAndAccessLineFields() throws {
        let sink = MetadataLog()
        var logger = Logger(label: "loom.test") { _ in MetadataLogHandler(sink: sink) }
        logger.logLevel = .info
        let loom = try LoomTestServer(LoomTestServer.Settings(), logger: logger)
        loomServers.append(loom)

        let miss = try postJSON(loom, "/layout", Self.row(40), headers: [("X-Request-Id", "req-miss")])
        XCTAssertEqual(miss.header("X-Request-Id"), "req-miss")
        let hit = try postJSON(loom, "/layout", Self.row(40), headers: [("X-Request-Id", "req-hit")])
        XCTAssertEqual(hit.header("X-Request-Id"), "req-hit")
        let bad = try postJSON(loom, "/layout", #"{"root":{"type":"ratio","ratio":-1,"child":{"type":"node"}}}"#,
                               headers: [("X-Request-Id", "req-bad")])
        XCTAssertEqual(bad.status, 400)
        let missing = try request(loom, "GET", "/layouts/" + String(repeating: "b", count: 64),
                                  headers: [("X-Request-Id", "req-404")])
        XCTAssertEqual(missing.status, 404)
        let made = try request(loom, "GET", "/healthz", headers: [("X-Request-Id", "has space")])
        let madeID = try XCTUnwrap(made.header("X-Request-Id"))
        XCTAssertNotEqual(madeID, "has space")
        XCTAssertEqual(madeID.utf8.count, 24)

        func line(_ id: String) -> (String, [String: String])? {
            sink.current.first { $0.1["request_id"] == id }
        }
        XCTAssertTrue(waitFor(3) { line(madeID) != nil }, "\(sink.current)")
        XCTAssertEqual(line("req-miss")?.1["cache"], "miss")
        XCTAssertEqual(line("req-hit")?.1["cache"], "hit")
        let badLine = try XCTUnwrap(line("req-bad"))
        XCTAssertTrue(badLine.0.hasPrefix("POST /layout 400 "), badLine.0)
        XCTAssertEqual(badLine.1["error"], "invalid_spec")
        XCTAssertEqual(badLine.1["error_path"], "root.ratio")
        XCTAssertNil(badLine.1["cache"])
        let notFound = try XCTUnwrap(line("req-404"))
        XCTAssertEqual(notFound.1["error"], "not_found")
        XCTAssertEqual(notFound.1["cache"], "miss")
        XCTAssertTrue(notFound.0.hasPrefix("GET /layouts/bbbb"), notFound.0)
        XCTAssertEqual(line(madeID)?.1["remote"], "127.0.0.1")
    }

    // MARK: the contract as JSON

    func testOpenAPIJSONIsTheYAML() throws {
        let loom = try startLoom()
        let json = try request(loom, "GET", "/openapi.json")
        XCTAssertEqual(json.status, 200)
        XCTAssertEqual(json.header("Content-Type"), "application/json")
        let spec = object(json)
        // Made from this very YAML (scripts/openapi-json.py records its FNV-1a hash).
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in EmbeddedFiles.openapiYAML { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        XCTAssertEqual(spec["x-source-fnv1a64"] as? String, String(hash, radix: 16).leftPadded(16),
                       "openapi.json is stale: run scripts/openapi-json.py")
        let paths = (spec["paths"] as? [String: Any]) ?? [:]
        for path in ["/layout", "/layout/batch", "/layouts/{key}", "/openapi.json", "/healthz"] {
            XCTAssertNotNil(paths[path], path)
        }
    }
}

private extension String {
    func leftPadded(_ n: Int) -> String { String(repeating: "0", count: max(0, n - count)) + self }
}

/// Log lines with their metadata.
final class MetadataLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [(String, [String: String])] = []
    func append(_ message: String, _ metadata: [String: String]) {
        lock.lock(); lines.append((message, metadata)); lock.unlock()
    }
    var current: [(String, [String: String])] {
        lock.lock(); defer { lock.unlock() }
        return lines
    }
}

struct MetadataLogHandler: LogHandler {
    let sink: MetadataLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        var all: [String: String] = [:]
        for (k, v) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { all[k] = "\(v)" }
        sink.append(event.message.description, all)
    }
}

/// The contract's examples are true: each request example, sent, gets the 200 example.
final class OpenAPIExamplesOverHTTPTests: ServiceOverHTTPTestCase {
    private func spec() -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(EmbeddedFiles.openapiJSON))) as? [String: Any] ?? [:]
    }

    private func operation(_ path: String, _ method: String) -> [String: Any] {
        ((spec()["paths"] as? [String: Any])?[path] as? [String: Any])?[method] as? [String: Any] ?? [:]
    }

    private func requestExample(_ op: [String: Any]) -> Any? {
        let content = ((op["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]
        return ((content?["examples"] as? [String: Any])?.values.first as? [String: Any])?["value"]
    }

    private func okExample(_ op: [String: Any]) -> Any? {
        let ok = (op["responses"] as? [String: Any])?["200"] as? [String: Any]
        return ((ok?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["example"]
    }

    private func same(_ a: Any?, _ b: Any?) -> Bool {
        guard let a, let b else { return false }
        return NSDictionary(dictionary: ["v": a]).isEqual(to: ["v": b])
    }

    func testEveryOperationHasAnExampleAndTheLayoutOnesAreTrue() throws {
        let paths = (spec()["paths"] as? [String: Any]) ?? [:]
        for (path, item) in paths {
            for (method, op) in (item as? [String: Any]) ?? [:] {
                let op = (op as? [String: Any]) ?? [:]
                let ok = (op["responses"] as? [String: Any])?["200"] as? [String: Any]
                let examples = ((ok?["content"] as? [String: Any]) ?? [:]).values.contains {
                    (($0 as? [String: Any])?["example"] ?? ($0 as? [String: Any])?["examples"]) != nil
                }
                XCTAssertTrue(examples, "\(method) \(path): no 200 example")
                let parameters = (op["parameters"] as? [Any]) ?? []
                XCTAssertTrue(requestExample(op) != nil || !parameters.isEmpty, "\(method) \(path): no request example")
            }
        }

        let loom = try startLoom()
        let layout = operation("/layout", "post")
        let body = try JSONSerialization.data(withJSONObject: try XCTUnwrap(requestExample(layout)))
        let posted = try request(loom, "POST", "/layout", headers: Self.json, body: Array(body))
        XCTAssertEqual(posted.status, 200, posted.text)
        XCTAssertTrue(same(try JSONSerialization.jsonObject(with: Data(posted.body)), okExample(layout)), posted.text)

        let stored = operation("/layouts/{key}", "get")
        let keyParameter = ((stored["parameters"] as? [Any]) ?? []).compactMap { $0 as? [String: Any] }.first { $0["name"] as? String == "key" }
        XCTAssertEqual(posted.header("X-Layout-Key"), keyParameter?["example"] as? String)
        let got = try request(loom, "GET", try XCTUnwrap(posted.header("Content-Location")))
        XCTAssertTrue(same(try JSONSerialization.jsonObject(with: Data(got.body)), okExample(stored)), got.text)

        let batch = operation("/layout/batch", "post")
        let batchBody = try JSONSerialization.data(withJSONObject: try XCTUnwrap(requestExample(batch)))
        let answered = try request(loom, "POST", "/layout/batch", headers: Self.json, body: Array(batchBody))
        XCTAssertTrue(same(try JSONSerialization.jsonObject(with: Data(answered.body)), okExample(batch)), answered.text)
    }
}
