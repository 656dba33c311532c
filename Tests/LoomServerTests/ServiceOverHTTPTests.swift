import Dispatch
import Foundation
import XCTest
import LoomHTTP
import LoomService
import LoomServer

/// System tests of the HTTP service: the real router, service, pool and Pango measurer behind
/// the real libmicrohttpd server on 127.0.0.1, driven over plain sockets.
final class ServiceOverHTTPTests: ServiceOverHTTPTestCase {

    // MARK: POST /layout

    func testLayoutIsAMissThenAHitWithTheSameKey() throws {
        let loom = try startLoom()
        let first = try postJSON(loom, "/layout", Self.row(40))
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertEqual(first.header("Content-Type"), "application/json")
        XCTAssertEqual(first.header("X-Layout-Cache"), "miss")
        let key = try XCTUnwrap(first.header("X-Layout-Key"))
        XCTAssertGreaterThanOrEqual(key.count, 32)
        XCTAssertTrue(key.allSatisfy { $0.isHexDigit }, key)

        let body = object(first)
        let size = body["size"] as? [String: Any]
        XCTAssertEqual((size?["width"] as? NSNumber)?.doubleValue, 47)
        XCTAssertEqual((size?["height"] as? NSNumber)?.doubleValue, 10)
        let f = frames(first)
        XCTAssertEqual(f["row"], [0, 0, 47, 10])
        XCTAssertEqual(f["lead"], [0, 0, 40, 10])
        XCTAssertEqual(f["mark"]?.prefix(3), [40, 0, 7])
        XCTAssertNotNil(body["layout"] as? [String: Any])

        let second = try postJSON(loom, "/layout", Self.row(40))
        XCTAssertEqual(second.status, 200)
        XCTAssertEqual(second.header("X-Layout-Cache"), "hit")
        XCTAssertEqual(second.header("X-Layout-Key"), key)
        XCTAssertEqual(second.body, first.body)

        // The same tree written differently (other whitespace) is still a hit, same key.
        let respaced = Self.row(40).replacingOccurrences(of: "\n", with: " ")
        let third = try postJSON(loom, "/layout", respaced)
        XCTAssertEqual(third.header("X-Layout-Cache"), "hit")
        XCTAssertEqual(third.header("X-Layout-Key"), key)

        // Another tree: another key, a miss.
        let other = try postJSON(loom, "/layout", Self.row(41))
        XCTAssertEqual(other.header("X-Layout-Cache"), "miss")
        XCTAssertNotEqual(other.header("X-Layout-Key"), key)
    }

    func testTextIsMeasuredWithRealFonts() throws {
        let loom = try startLoom()
        let tree = #"""
        {"sizeRange": {"max": {"width": 300, "height": null}},
         "root": {"type": "text", "id": "t", "text": "Hello, Loom", "font": {"family": "Roboto", "size": 16}}}
        """#
        let response = try postJSON(loom, "/layout", tree)
        XCTAssertEqual(response.status, 200, response.text)
        let t = try XCTUnwrap(frames(response)["t"])
        XCTAssertGreaterThan(t[2], 40)      // 11 glyphs of a 16 pt font
        XCTAssertLessThan(t[2], 300)
        XCTAssertGreaterThan(t[3], 10)
        let layout = object(response)["layout"] as? [String: Any]
        XCTAssertEqual((layout?["lines"] as? NSNumber)?.intValue, 1)
        XCTAssertEqual(layout?["truncated"] as? Bool, false)
    }

    func testSVGFormat() throws {
        let loom = try startLoom()
        let response = try postJSON(loom, "/layout?format=svg", Self.row(30))
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "image/svg+xml")
        XCTAssertTrue(response.text.contains("<svg"), response.text)
        XCTAssertTrue(response.text.contains("<rect"), response.text)
        XCTAssertTrue(response.text.contains("mark"), response.text)
        XCTAssertNotNil(response.header("X-Layout-Key"))

        let bad = try postJSON(loom, "/layout?format=png", Self.row(30))
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(errorObject(bad)["code"] as? String, "invalid_spec")
        XCTAssertEqual(errorObject(bad)["path"] as? String, "format")
    }

    // MARK: errors

    func testMalformedJSONGivesLineAndColumn() throws {
        let loom = try startLoom()
        let response = try postJSON(loom, "/layout", "{\n  \"root\": {\"type\": \"node\",}\n}")
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let e = errorObject(response)
        XCTAssertEqual(e["code"] as? String, "malformed_json")
        let message = try XCTUnwrap(e["message"] as? String)
        XCTAssertTrue(message.contains("line 2"), message)
        XCTAssertTrue(message.range(of: #"column \d+"#, options: .regularExpression) != nil, message)
        XCTAssertNil(response.header("X-Layout-Key"))

        let empty = try postJSON(loom, "/layout", "")
        XCTAssertEqual(empty.status, 400)
        XCTAssertEqual(errorObject(empty)["code"] as? String, "malformed_json")
    }

    func testInvalidSpecGivesThePath() throws {
        let loom = try startLoom()
        let tree = #"""
        {"root": {"type": "stack", "children": [
          {"type": "node"},
          {"type": "ratio", "ratio": 0, "child": {"type": "node"}}]}}
        """#
        let response = try postJSON(loom, "/layout", tree)
        XCTAssertEqual(response.status, 400, response.text)
        let e = errorObject(response)
        XCTAssertEqual(e["code"] as? String, "invalid_spec")
        XCTAssertEqual(e["path"] as? String, "root.children[1].ratio")
        XCTAssertNotNil(e["message"] as? String)

        let typo = try postJSON(loom, "/layout", #"{"root": {"type": "node", "style": {"widht": 10}}}"#)
        XCTAssertEqual(typo.status, 400)
        XCTAssertEqual(errorObject(typo)["path"] as? String, "root.style.widht")
    }

    func testUnknownPathIs404() throws {
        let loom = try startLoom()
        for (method, path) in [("GET", "/nope"), ("POST", "/layouts"), ("GET", "/layout/batch/x")] {
            let response = try request(loom, method, path, headers: Self.json, body: method == "POST" ? Array("{}".utf8) : [])
            XCTAssertEqual(response.status, 404, "\(method) \(path)")
            XCTAssertEqual(errorObject(response)["code"] as? String, "not_found")
        }
    }

    /// A 405's `Allow` lists what the path answers, OPTIONS and HEAD included, and is the
    /// `Allow` of OPTIONS on the same path.
    func testWrongMethodIs405WithAllow() throws {
        let loom = try startLoom()
        let get = try request(loom, "GET", "/layout")
        XCTAssertEqual(get.status, 405)
        XCTAssertEqual(get.header("Allow"), "POST, OPTIONS")
        XCTAssertEqual(errorObject(get)["code"] as? String, "method_not_allowed")

        let delete = try request(loom, "DELETE", "/healthz")
        XCTAssertEqual(delete.status, 405)
        XCTAssertEqual(delete.header("Allow"), "GET, HEAD, OPTIONS")

        let put = try request(loom, "PUT", "/layout/batch", headers: Self.json, body: Array("{}".utf8))
        XCTAssertEqual(put.status, 405)
        XCTAssertEqual(put.header("Allow"), "POST, OPTIONS")

        for (path, wrong) in [("/layout", "GET"), ("/layout/batch", "DELETE"), ("/healthz", "POST"), ("/metrics", "PUT"),
                              ("/openapi.json", "POST"), ("/layouts/" + String(repeating: "0", count: 64), "POST"), ("/", "PATCH")] {
            let refused = try request(loom, wrong, path, headers: Self.json, body: wrong == "GET" ? [] : Array("{}".utf8))
            let options = try request(loom, "OPTIONS", path)
            XCTAssertEqual(refused.status, 405, path)
            XCTAssertEqual(options.status, 204, path)
            XCTAssertEqual(refused.header("Allow"), options.header("Allow"), path)
        }
    }

    func testBodyOverTheLimitIs413() throws {
        let loom = try startLoom { $0.maxBodyBytes = 2000 }
        // Headers only: the server answers before the body is sent.
        let client = try RawHTTPClient(port: loom.port)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, contentLength: 50_000))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        XCTAssertEqual(errorObject(response)["code"] as? String, "too_large")
        XCTAssertTrue(client.waitForClose(timeout: 3))

        // A body that fits is served.
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(5)).status, 200)
        // The batch route has the same limit.
        let padded = #"{"items": []}"# + String(repeating: " ", count: 3000)
        XCTAssertEqual(try postJSON(loom, "/layout/batch", padded).status, 413)
    }

    func testDepthAndNodeCountOverTheLimitAre413() throws {
        let loom = try startLoom { $0.maxDepth = 8; $0.maxNodes = 50 }
        XCTAssertEqual(try postJSON(loom, "/layout", Self.nested(8)).status, 200)
        for depth in [9, 20, 1000] {
            let response = try postJSON(loom, "/layout", Self.nested(depth))
            XCTAssertEqual(response.status, 413, "depth \(depth): \(response.text)")
            XCTAssertEqual(errorObject(response)["code"] as? String, "too_large")
        }
        XCTAssertEqual(try postJSON(loom, "/layout", Self.column(49)).status, 200)
        let many = try postJSON(loom, "/layout", Self.column(51))
        XCTAssertEqual(many.status, 413, many.text)
        XCTAssertEqual(errorObject(many)["code"] as? String, "too_large")
        // The service is still fine.
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(3)).status, 200)
    }

    func testWrongContentTypeIs415() throws {
        let loom = try startLoom()
        for headers in [[("Content-Type", "text/plain")], [("Content-Type", "application/x-www-form-urlencoded")], []] {
            let response = try request(loom, "POST", "/layout", headers: headers, body: Array(Self.row(4).utf8))
            XCTAssertEqual(response.status, 415, "\(headers)")
            XCTAssertEqual(errorObject(response)["code"] as? String, "unsupported_media_type")
        }
        let batch = try request(loom, "POST", "/layout/batch", headers: [("Content-Type", "text/json")],
                                body: Array(#"{"items": []}"#.utf8))
        XCTAssertEqual(batch.status, 415)
        // With parameters and +json it is JSON.
        XCTAssertEqual(try request(loom, "POST", "/layout", headers: [("Content-Type", "application/json; charset=utf-8")],
                                   body: Array(Self.row(4).utf8)).status, 200)
        XCTAssertEqual(try request(loom, "POST", "/layout", headers: [("Content-Type", "application/vnd.loom+json")],
                                   body: Array(Self.row(4).utf8)).status, 200)
    }

    /// One worker, no queue: while the worker is busy every layout is refused with 503 and
    /// Retry-After. The worker is held by a job on the very pool the router uses, so the
    /// test does not depend on how long a layout takes.
    func testOverloadedIs503WithRetryAfter() throws {
        let loom = try startLoom { $0.workers = 1; $0.queueLimit = 0 }
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        XCTAssertTrue(loom.pool.submit { started.signal(); release.wait() })
        XCTAssertEqual(started.wait(timeout: .now() + 5), .success)

        for path in ["/layout", "/layout/batch"] {
            let body = path == "/layout" ? Self.row(9) : #"{"items": [\#(Self.row(9))]}"#
            let response = try postJSON(loom, path, body)
            XCTAssertEqual(response.status, 503, "\(path): \(response.text)")
            XCTAssertEqual(response.header("Retry-After"), "1")
            XCTAssertEqual(errorObject(response)["code"] as? String, "overloaded")
        }
        // Routes that do not lay out are not refused.
        XCTAssertEqual(try request(loom, "GET", "/healthz").status, 200)

        release.signal()
        XCTAssertTrue(waitFor(5) { loom.pool.load.running == 0 })
        let after = try postJSON(loom, "/layout", Self.row(9))
        XCTAssertEqual(after.status, 200, after.text)
    }

    /// The same with real traffic only: a request being laid out on the single worker makes
    /// the next one 503. The first is a tree whose measurements multiply with its depth, with
    /// no budget to stop it: it holds the worker until its deadline (3 s), so the probe sent
    /// while it runs always meets a busy pool.
    func testOverloadedUnderRealTraffic() throws {
        let loom = try startLoom {
            $0.workers = 1; $0.queueLimit = 0
            $0.budget.measurements = Int.max / 4; $0.budget.characters = Int.max / 4; $0.budget.lines = Int.max / 4
            $0.deadlineSeconds = 3
        }
        var node = #"{"type":"text","text":"leaf","font":{"family":"Roboto","size":14}}"#
        for d in 0..<40 {
            node = #"{"type":"stack","direction":"\#(d % 2 == 0 ? "horizontal" : "vertical")","children":["#
                + #"{"type":"ratio","ratio":\#(["0.5", "0.75", "1"][d % 3]),"style":{"flexGrow":1,"flexShrink":1},"child":\#(node)},"#
                + #"{"type":"text","text":"x y","font":{"family":"Roboto","size":14},"style":{"flexGrow":1,"flexShrink":1}}]}"#
        }
        let heavy = #"{"sizeRange":{"max":{"width":300,"height":700}},"root":\#(node)}"#
        let slow = try RawHTTPClient(port: loom.port, timeout: 60)
        try slow.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, body: Array(heavy.utf8)))
        guard waitFor(20, { loom.pool.load.running == 1 }) else { return XCTFail("the heavy layout never started") }

        let refused = try postJSON(loom, "/layout", Self.row(11))
        XCTAssertEqual(refused.status, 503, refused.text)
        XCTAssertEqual(refused.header("Retry-After"), "1")
        XCTAssertEqual(errorObject(refused)["code"] as? String, "overloaded")
        // Not ready while a new layout would be refused.
        XCTAssertEqual(try request(loom, "GET", "/readyz").status, 503)

        let heavyResponse = try slow.readResponse()
        XCTAssertEqual(heavyResponse.status, 503)
        XCTAssertEqual(errorObject(heavyResponse)["code"] as? String, "deadline_exceeded")
        XCTAssertTrue(waitFor(5) { loom.pool.load.running == 0 })
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(11)).status, 200)
    }

    // MARK: GET routes

    func testHealthAndReadiness() throws {
        let loom = try startLoom()
        let health = try request(loom, "GET", "/healthz")
        XCTAssertEqual(health.status, 200)
        XCTAssertEqual(object(health)["status"] as? String, "ok")
        let ready = try request(loom, "GET", "/readyz")
        XCTAssertEqual(ready.status, 200)
        XCTAssertEqual(object(ready)["status"] as? String, "ok")

        loom.router.setDraining()
        XCTAssertEqual(try request(loom, "GET", "/readyz").status, 503)
        XCTAssertEqual(try request(loom, "GET", "/healthz").status, 200)
        // HEAD works like GET without a body.
        let client = try RawHTTPClient(port: loom.port)
        let head = try client.roundTrip("HEAD", "/healthz")
        XCTAssertEqual(head.status, 200)
        XCTAssertTrue(head.body.isEmpty)
    }

    func testMetricsHaveRequestCountsAndCacheFigures() throws {
        let loom = try startLoom()
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(12)).status, 200)
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(12)).status, 200)
        XCTAssertEqual(try postJSON(loom, "/layout", "nope").status, 400)
        XCTAssertEqual(try request(loom, "GET", "/missing").status, 404)

        let response = try request(loom, "GET", "/metrics")
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.header("Content-Type")?.hasPrefix("text/plain") == true)
        let text = response.text
        for needle in ["loom_http_requests_total", "loom_http_request_duration_seconds", "loom_cache_hits_total",
                       "loom_cache_misses_total", "loom_cache_entries", "loom_cache_bytes", "loom_cache_evictions_total",
                       "loom_layouts_in_flight", "loom_subtree_cache_hits_total", "loom_build_info"] {
            XCTAssertTrue(text.contains(needle), "no \(needle) in\n\(text)")
        }
        func value(_ prefix: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(prefix) }
                .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        }
        XCTAssertEqual(value("loom_cache_hits_total"), 1)
        XCTAssertEqual(value("loom_cache_misses_total"), 1)
        XCTAssertEqual(value("loom_cache_entries"), 1)
        let layoutOK = text.split(separator: "\n").first {
            $0.hasPrefix("loom_http_requests_total") && $0.contains(#"route="/layout""#) && $0.contains(#"status="200""#)
        }
        XCTAssertEqual(layoutOK.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }, 2, text)
        XCTAssertTrue(text.contains(#"status="400""#), text)
        XCTAssertTrue(text.contains(#"route="other""#), text)
    }

    /// The exposition follows Prometheus' conventions: every family has `# HELP` and
    /// `# TYPE` once, every sample belongs to a family declared before it, counters (and only
    /// counters) end in `_total`, the version is in `loom_build_info`, and the process
    /// figures are there and plausible.
    func testMetricsFollowPrometheusConventions() throws {
        let loom = try startLoom()
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(3)).status, 200)
        let text = try request(loom, "GET", "/metrics").text
        var help = Set<String>(), types: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", maxSplits: 3).map(String.init)
            if line.hasPrefix("# HELP ") {
                XCTAssertTrue(help.insert(words[2]).inserted, "HELP twice for \(words[2])")
                XCTAssertGreaterThan(words.count, 3, "empty help: \(line)")
            } else if line.hasPrefix("# TYPE ") {
                XCTAssertNil(types[words[2]], "TYPE twice for \(words[2])")
                XCTAssertTrue(help.contains(words[2]), "no HELP before the TYPE of \(words[2])")
                types[words[2]] = words[3]
            } else {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                let family = types[name] != nil ? name
                    : ["_bucket", "_sum", "_count"].compactMap { name.hasSuffix($0) ? String(name.dropLast($0.count)) : nil }.first ?? name
                XCTAssertNotNil(types[family], "sample of an undeclared family: \(line)")
                XCTAssertNotNil(Double(line.split(separator: " ").last ?? ""), "not a number: \(line)")
            }
        }
        for (name, type) in types {
            XCTAssertTrue(["counter", "gauge", "histogram"].contains(type), "\(name): \(type)")
            XCTAssertEqual(name.hasSuffix("_total"), type == "counter", "\(name) is a \(type)")
        }
        // The names this version renamed are gone (CHANGELOG.md, 0.11.0).
        for old in ["loom_cache_evictions", "loom_subtree_cache_hits", "loom_text_cache_hits", "loom_text_cache_misses"] {
            XCTAssertNil(types[old], "\(old) is still exposed")
            XCTAssertEqual(types[old + "_total"] ?? (old.hasPrefix("loom_text") ? "counter" : nil), "counter", old)
        }
        XCTAssertEqual(types["loom_build_info"], "gauge")
        XCTAssertTrue(text.contains(#"loom_build_info{version="\#(LoomVersion.current)"} 1"#), text)
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        }
        // This test process is the server: its own figures bound them.
        let now = Date().timeIntervalSince1970
        let start = try XCTUnwrap(value("process_start_time_seconds"))
        XCTAssertLessThan(start, now + 1)
        XCTAssertGreaterThan(start, now - 24 * 3600, "started within a day")
        XCTAssertGreaterThan(try XCTUnwrap(value("process_resident_memory_bytes")), 1_048_576)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(value("process_virtual_memory_bytes")), try XCTUnwrap(value("process_resident_memory_bytes")))
        XCTAssertGreaterThan(try XCTUnwrap(value("process_cpu_seconds_total")), 0)
        let open = try XCTUnwrap(value("process_open_fds"))
        XCTAssertGreaterThanOrEqual(open, 4, "stdin, stdout, stderr and the listening socket at least")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(value("process_max_fds")), open)
    }

    func testFontsListRoboto() throws {
        let loom = try startLoom()
        let response = try request(loom, "GET", "/fonts")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let families = (object(response)["families"] as? [[String: Any]]) ?? []
        let names = families.compactMap { $0["family"] as? String }
        XCTAssertTrue(names.contains("Roboto"), "\(names)")
        let roboto = families.first { $0["family"] as? String == "Roboto" }
        XCTAssertFalse(((roboto?["faces"] as? [Any]) ?? []).isEmpty)
    }

    func testOpenAPIAndPlayground() throws {
        let loom = try startLoom()
        let spec = try request(loom, "GET", "/openapi.yaml")
        XCTAssertEqual(spec.status, 200)
        XCTAssertTrue(spec.header("Content-Type")?.contains("yaml") == true)
        XCTAssertTrue(spec.text.hasPrefix("openapi:"), String(spec.text.prefix(100)))
        for route in ["/layout:", "/layout/batch:", "/healthz:", "/readyz:", "/metrics:", "/fonts:"] {
            XCTAssertTrue(spec.text.contains(route), route)
        }

        let page = try request(loom, "GET", "/")
        XCTAssertEqual(page.status, 200)
        XCTAssertEqual(page.header("Content-Type"), "text/html; charset=utf-8")
        XCTAssertTrue(page.text.lowercased().hasPrefix("<!doctype html>"))
        // The page's script is a module of this server that lays out with the JavaScript client.
        XCTAssertTrue(page.text.contains(#"<script type="module" src="/playground.js">"#))
    }

    // MARK: batch

    func testBatchWithOneBadItem() throws {
        let loom = try startLoom()
        let bad = #"{"root": {"type": "stack", "children": [{"type": "nod"}]}}"#
        let body = #"{"items": [\#(Self.row(10)), \#(bad), \#(Self.row(20)), {"root": 5}]}"#
        let response = try postJSON(loom, "/layout/batch", body)
        XCTAssertEqual(response.status, 200, response.text)
        let results = try XCTUnwrap(object(response)["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(frames(results[0]["frames"])["mark"]?.prefix(3), [10, 0, 7])
        XCTAssertNil(results[0]["error"])
        let error = try XCTUnwrap(results[1]["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "invalid_spec")
        XCTAssertEqual(error["path"] as? String, "items[1].root.children[0].type")
        XCTAssertNil(results[1]["frames"])
        XCTAssertEqual(frames(results[2]["frames"])["mark"]?.prefix(3), [20, 0, 7])
        XCTAssertEqual((results[3]["error"] as? [String: Any])?["path"] as? String, "items[3].root")

        let notABatch = try postJSON(loom, "/layout/batch", Self.row(3))
        XCTAssertEqual(notABatch.status, 400)
        XCTAssertEqual(errorObject(notABatch)["code"] as? String, "invalid_spec")
        let malformed = try postJSON(loom, "/layout/batch", #"{"items": [}"#)
        XCTAssertEqual(malformed.status, 400)
        XCTAssertEqual(errorObject(malformed)["code"] as? String, "malformed_json")
    }

    // MARK: concurrency and robustness

    /// 200 connections, each with its own tree, all sent before any answer is read: every
    /// answer is its own tree's (the mark sits at x = n, the root is n + 7 wide).
    func testTwoHundredConcurrentRequestsEachGetTheirOwnAnswer() throws {
        let loom = try startLoom { $0.workers = 4; $0.queueLimit = 256; $0.httpThreads = 4 }
        let count = 200
        let clients = try (0..<count).map { _ in try RawHTTPClient(port: loom.port, timeout: 30) }
        let errors = Locked([String]())
        // Send from several threads at once, then read every answer.
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for i in stride(from: t, to: count, by: 8) {
                let n = 1 + i * 3
                do {
                    try clients[i].send(RawHTTPClient.request("POST", "/layout", headers: Self.json,
                                                              body: Array(Self.row(n, tag: "-\(i)").utf8)))
                } catch { errors.withValue { $0.append("send \(i): \(error)") } }
            }
        }
        DispatchQueue.concurrentPerform(iterations: 8) { t in
            for i in stride(from: t, to: count, by: 8) {
                let n = 1 + i * 3
                do {
                    let response = try clients[i].readResponse()
                    let f = self.frames(response)
                    if response.status != 200 || f["mark"]?.prefix(3) != [Double(n), 0, 7]
                        || f["lead"] != [0, 0, Double(n), 10] || f["row-\(i)"] != [0, 0, Double(n + 7), 10] {
                        errors.withValue { $0.append("request \(i): \(response.status) \(response.text.prefix(300))") }
                    }
                } catch { errors.withValue { $0.append("read \(i): \(error)") } }
            }
        }
        XCTAssertEqual(errors.current, [])
        for c in clients { c.close() }
    }

    /// A client that sends half a body and stops does not hold up the others; when it sends
    /// the rest it is answered; one that never does is dropped after the connection timeout.
    func testStalledClientDoesNotBlockOthers() throws {
        let loom = try startLoom { $0.workers = 1; $0.httpThreads = 1; $0.connectionTimeout = 4 }
        let body = Array(Self.row(33).utf8)
        let half = body.count / 2
        let stalled = try RawHTTPClient(port: loom.port, timeout: 10)
        try stalled.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, contentLength: body.count)
                         + body[..<half])
        let forever = try RawHTTPClient(port: loom.port, timeout: 10)
        try forever.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, contentLength: body.count)
                         + body[..<half])

        for n in 1...10 {
            let r = try postJSON(loom, "/layout", Self.row(n))
            XCTAssertEqual(r.status, 200)
            XCTAssertEqual(frames(r)["mark"]?.first, Double(n))
        }
        // The others were answered while both stalled uploads were still open.
        XCTAssertFalse(forever.waitForClose(timeout: 0.01), "a stalled connection ended before the others were served")

        try stalled.send(Array(body[half...]))
        let finished = try stalled.readResponse()
        XCTAssertEqual(finished.status, 200)
        XCTAssertEqual(frames(finished)["mark"]?.first, 33)

        XCTAssertTrue(forever.waitForClose(timeout: 10), "a stalled connection must be closed after the timeout")
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(34)).status, 200)
    }

    func testGzipWhenAccepted() throws {
        let loom = try startLoom()
        let tree = Self.column(80)      // about 4 KB of frames
        let plain = try postJSON(loom, "/layout", tree)
        XCTAssertEqual(plain.status, 200)
        XCTAssertNil(plain.header("Content-Encoding"))
        XCTAssertGreaterThan(plain.body.count, 2000)

        let zipped = try postJSON(loom, "/layout", tree, headers: [("Accept-Encoding", "gzip, deflate")])
        XCTAssertEqual(zipped.status, 200)
        XCTAssertEqual(zipped.header("Content-Encoding"), "gzip")
        XCTAssertTrue(zipped.header("Vary")?.contains("Accept-Encoding") == true)
        XCTAssertEqual(zipped.header("X-Layout-Cache"), "hit")
        XCTAssertLessThan(zipped.body.count, plain.body.count)
        XCTAssertEqual(try gunzipWithSystemTool(zipped.body), plain.body)
        XCTAssertEqual(frames(plain)["n79"], [0, 158, 3, 2])

        // Small bodies are not compressed.
        let small = try request(loom, "GET", "/healthz", headers: [("Accept-Encoding", "gzip")])
        XCTAssertNil(small.header("Content-Encoding"))
    }

    func testCORSPreflightAndHeaders() throws {
        let loom = try startLoom()
        let preflight = try request(loom, "OPTIONS", "/layout", headers: [
            ("Origin", "http://example.com"), ("Access-Control-Request-Method", "POST"),
            ("Access-Control-Request-Headers", "content-type"),
        ])
        XCTAssertTrue([200, 204].contains(preflight.status), "\(preflight.status)")
        XCTAssertEqual(preflight.header("Access-Control-Allow-Origin"), "*")
        XCTAssertTrue(preflight.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        XCTAssertTrue(preflight.header("Access-Control-Allow-Headers")?.lowercased().contains("content-type") == true)

        let actual = try postJSON(loom, "/layout", Self.row(2), headers: [("Origin", "http://example.com")])
        XCTAssertEqual(actual.status, 200)
        XCTAssertEqual(actual.header("Access-Control-Allow-Origin"), "*")
        XCTAssertTrue(actual.header("Access-Control-Expose-Headers")?.contains("X-Layout-Cache") == true)

        // Restricted origins: only the listed one is allowed.
        let strict = try startLoom { $0.corsOrigins = ["https://app.example"] }
        let allowed = try request(strict, "OPTIONS", "/layout", headers: [
            ("Origin", "https://app.example"), ("Access-Control-Request-Method", "POST")])
        XCTAssertEqual(allowed.header("Access-Control-Allow-Origin"), "https://app.example")
        let denied = try request(strict, "OPTIONS", "/layout", headers: [
            ("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")])
        XCTAssertNil(denied.header("Access-Control-Allow-Origin"))
    }

    /// The deepest trees the default limit (512 elements) lets through are decoded, laid out
    /// and encoded on the pool's threads without exhausting their stacks, alone and in a batch.
    func testDeepestAllowedTreesAreLaidOut() throws {
        let loom = try startLoom()
        let wrappers = [
            #"{"type": "stack", "concurrent": true, "children": [%@, {"type": "node"}]}"#,
            #"{"type": "inset", "insets": {"top": 1, "left": 1, "bottom": 1, "right": 1}, "child": %@}"#,
            #"{"type": "overlay", "child": %@, "overlay": {"type": "node"}}"#,
            #"{"type": "ratio", "ratio": 1, "child": %@}"#,
            #"{"type": "corner", "child": %@, "corner": {"type": "node"}}"#,
            #"{"type": "absolute", "children": [%@]}"#,
            #"{"type": "stack", "alignItems": "baselineFirst", "children": [%@, {"type": "text", "text": "x"}]}"#,
        ]
        var element = #"{"type": "node", "id": "leaf", "style": {"width": 1, "height": 1}}"#
        for k in 0..<511 {
            element = wrappers[k % wrappers.count].replacingOccurrences(of: "%@", with: element)
        }
        let tree = #"{"root": \#(element), "options": {"includeSpecs": true}}"#
        for path in ["/layout", "/layout?format=svg"] {
            let response = try postJSON(loom, path, tree)
            XCTAssertEqual(response.status, 200, "\(path): \(response.text.prefix(300))")
        }
        // (The answers are ~1000 JSON levels deep, more than Foundation's parser takes: look
        // at the text.)
        let response = try postJSON(loom, "/layout", tree.replacingOccurrences(of: "\"leaf\"", with: "\"leaf2\""))
        XCTAssertEqual(response.status, 200)
        XCTAssertTrue(response.text.contains(#""frames":{"leaf2":{"x":"#), String(response.text.suffix(300)))
        let batch = try postJSON(loom, "/layout/batch", #"{"items": [\#(tree), \#(tree), \#(tree), \#(tree)]}"#)
        XCTAssertEqual(batch.status, 200)
        XCTAssertTrue(batch.text.hasPrefix(#"{"results":[{"size":"#), String(batch.text.prefix(300)))
        XCTAssertEqual(batch.text.components(separatedBy: #""frames":{"leaf":"#).count - 1, 4)
        XCTAssertFalse(batch.text.contains(#""error""#))
        // One more level is refused.
        let deeper = #"{"root": {"type": "wrapper", "children": [\#(element)]}}"#
        XCTAssertEqual(try postJSON(loom, "/layout", deeper).status, 413)
        XCTAssertEqual(try request(loom, "GET", "/healthz").status, 200)
    }

    /// Garbage and half requests on some connections; the service keeps answering.
    func testGarbageDoesNotTakeTheServiceDown() throws {
        let loom = try startLoom { $0.connectionTimeout = 2 }
        let junk: [[UInt8]] = [
            Array("GARBAGE\r\n\r\n".utf8),
            Array("POST /layout HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8),
            Array("POST /layout HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8),
            [0, 255, 13, 10, 13, 10],
        ]
        for bytes in junk {
            let c = try RawHTTPClient(port: loom.port, timeout: 5)
            try? c.send(bytes)
            _ = try? c.readResponse()
            c.close()
        }
        for body in ["\u{0}", "[]", "{\"root\": null}", "{\"root\": {\"type\": \"node\", \"style\": {\"width\": \"NaN%\"}}}",
                     String(repeating: "[", count: 100_000)] {
            let r = try postJSON(loom, "/layout", body)
            XCTAssertTrue([400, 413].contains(r.status), "\(body.prefix(40)): \(r.status) \(r.text)")
        }
        XCTAssertEqual(try postJSON(loom, "/layout", Self.row(1)).status, 200)
    }
}
