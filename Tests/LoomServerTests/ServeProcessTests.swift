import Dispatch
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// `loom serve` as a process: it logs its port, serves, and on SIGTERM / SIGINT reports not
/// ready, stops accepting, finishes the requests in flight with 200 and exits 0.
final class ServeProcessTests: XCTestCase {
    private var processes: [Process] = []

    override func tearDown() {
        for p in processes where p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        processes = []
        super.tearDown()
    }

    /// Why a process test cannot run: a failure, never a skip.
    struct BinaryProblem: Error, CustomStringConvertible { let description: String }

    /// The package's root (this file is Tests/LoomHTTPTests/…).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The `loom` binary: $LOOM_BIN (`make test` sets it to the one it just built), else
    /// .build/debug/loom of this package. It must exist and be newer than every source file
    /// it is built from, so a stale build is never what these tests check.
    static func loomBinary() throws -> String {
        let environment = ProcessInfo.processInfo.environment["LOOM_BIN"] ?? ""
        let path = environment.isEmpty ? packageRoot.appendingPathComponent(".build/debug/loom").path : environment
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw BinaryProblem(description: "no loom binary at \(path): build it first (swift build --product loom; make test does) or set LOOM_BIN")
        }
        let built = try modified(path)
        let sources = packageRoot.appendingPathComponent("Sources")
        var newest: (path: String, date: Date)?
        let walker = FileManager.default.enumerator(atPath: sources.path)
        while let relative = walker?.nextObject() as? String {
            // LoomFuzz is not part of loom.
            guard relative.hasSuffix(".swift"), !relative.hasPrefix("LoomFuzz/") else { continue }
            let date = try modified(sources.appendingPathComponent(relative).path)
            if newest == nil || date > newest!.date { newest = (relative, date) }
        }
        if let newest, newest.date > built {
            throw BinaryProblem(description: "\(path) is older than Sources/\(newest.path): rebuild it (swift build --product loom)")
        }
        return path
    }

    private static func modified(_ path: String) throws -> Date {
        guard let date = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date else {
            throw BinaryProblem(description: "no modification date for \(path)")
        }
        return date
    }

    /// Runs `loom ARGUMENTS` to its end (killed after `timeout` seconds) with `input` on its
    /// standard input: its exit status (nil when killed), standard output and error.
    func runLoom(_ arguments: [String], input: [UInt8] = [], environment: [String: String] = [:],
                 timeout: Double = 120) throws -> (status: Int32?, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.loomBinary())
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for key in env.keys where key.hasPrefix("LOOM_") && key != "LOOM_FONT_DIRS" { env[key] = nil }
        env.merge(environment) { $1 }
        process.environment = env
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let out = Locked(Data()), err = Locked(Data())
        let readers = [(stdout, out), (stderr, err)].map { pipe, sink in
            Thread {
                while true {
                    let chunk = pipe.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    sink.withValue { $0.append(chunk) }
                }
            }
        }
        try process.run()
        processes.append(process)
        readers.forEach { $0.start() }
        stdin.fileHandleForWriting.write(Data(input))
        try stdin.fileHandleForWriting.close()
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        var status: Int32?
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        } else {
            status = process.terminationStatus
        }
        process.waitUntilExit()
        _ = waitFor(5) { readers.allSatisfy(\.isFinished) }
        return (status, String(decoding: out.current, as: UTF8.self), String(decoding: err.current, as: UTF8.self))
    }

    /// A running `loom serve` with its stdout collected line by line.
    final class Served {
        let process: Process
        let output = Locked([String]())
        var port = 0
        private let reader: Thread

        init(process: Process, pipe: Pipe) {
            self.process = process
            let output = self.output
            let handle = pipe.fileHandleForReading
            reader = Thread {
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let nl = pending.firstIndex(of: 10) {
                        let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                        pending = Data(pending[(nl + 1)...])
                        if ProcessInfo.processInfo.environment["LOOM_HTTP_TEST_LOG"] == "1" {
                            FileHandle.standardError.write(Data("[loom] \(line)\n".utf8))
                        }
                        output.withValue { $0.append(line) }
                    }
                }
            }
            reader.start()
        }

        func waitForLine(containing needle: String, timeout: Double) -> String? {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while Date() < deadline {
                if let line = output.current.first(where: { $0.contains(needle) }) { return line }
                if !process.isRunning { break }
                usleep(10_000)
            }
            return output.current.first(where: { $0.contains(needle) })
        }

        /// Waits for the exit; nil if still running after `timeout`.
        func waitForExit(timeout: Double) -> Int32? {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while process.isRunning && Date() < deadline { usleep(20_000) }
            if process.isRunning { return nil }
            process.waitUntilExit()
            return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
        }

        var log: String { output.current.joined(separator: "\n") }
    }

    func serve(_ extra: [String] = [], environment extraEnvironment: [String: String] = [:]) throws -> Served {
        let binary = try Self.loomBinary()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--host", "127.0.0.1", "--log-level", "info"] + extra
        var environment = ProcessInfo.processInfo.environment
        for key in ["PORT", "HOST", "LOOM_WORKERS", "LOOM_QUEUE_LIMIT", "LOOM_DRAIN_TIMEOUT"] { environment[key] = nil }
        environment.merge(extraEnvironment) { $1 }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        processes.append(process)
        let served = Served(process: process, pipe: pipe)
        guard let line = served.waitForLine(containing: "loom listening", timeout: 30) else {
            throw BinaryProblem(description: "loom serve did not start: no 'loom listening' line; output:\n\(served.log)")
        }
        guard let match = line.range(of: #"port="?[0-9]+"#, options: .regularExpression) else {
            throw BinaryProblem(description: "no port in: \(line)")
        }
        served.port = Int(line[match].filter(\.isNumber)) ?? 0
        XCTAssertGreaterThan(served.port, 0, line)
        return served
    }

    /// A tree that takes a noticeable time to lay out (thousands of distinct text nodes,
    /// `tag` makes each request's strings its own so no cache helps), with a known frame:
    /// `mark` is a 7 × 5 node at x = 0, y = 5 × count.
    static func slowTree(tag: Int, count: Int) -> String {
        var children = (0..<count).map { k in
            #"{"type": "node", "style": {"preferredSize": {"width": 10, "height": 5}}, "layout": {"type": "inset", "insets": {"top": 1, "left": 1, "bottom": 1, "right": 1}, "child": {"type": "text", "text": "request \#(tag) line \#(k) \#(k * 7919 % 10007)", "font": {"family": "Roboto", "size": \#(9 + k % 11)}}}}"#
        }
        children.append(#"{"type": "node", "id": "mark", "style": {"preferredSize": {"width": 7, "height": 5}}}"#)
        return #"{"sizeRange": {"max": {"width": 320}}, "root": {"type": "stack", "direction": "vertical", "alignItems": "start", "children": [\#(children.joined(separator: ","))]}}"#
    }

    static let json = [("Content-Type", "application/json")]

    func testServeLogsItsPortAndAnswers() throws {
        let served = try serve()
        let client = try RawHTTPClient(port: served.port)
        let health = try client.roundTrip("GET", "/healthz")
        XCTAssertEqual(health.status, 200)
        let layout = try client.roundTrip("POST", "/layout", headers: Self.json,
                                          body: Array(#"{"root": {"type": "node", "id": "a", "style": {"width": 12, "height": 3}}}"#.utf8))
        XCTAssertEqual(layout.status, 200, layout.text)
        XCTAssertTrue(layout.text.contains(#""a":{"x":0,"y":0,"width":12,"height":3}"#), layout.text)
        client.close()

        kill(served.process.processIdentifier, SIGINT)
        XCTAssertEqual(served.waitForExit(timeout: 30), 0, served.log)
    }

    /// SIGTERM while layouts are in flight: /readyz turns 503 (or new connections are
    /// refused), every request in flight is answered 200 with its own layout, exit 0.
    func testSIGTERMDrainsInFlightRequestsAndExitsZero() throws {
        // One worker and a queue: the requests run one after another, so the drain lasts
        // several layouts long.
        let served = try serve(["--workers", "1", "--queue-limit", "16", "--drain-timeout", "60"])
        let port = served.port

        // Calibrate: how long does one slow layout take on this machine?
        var count = 400
        var seconds = 0.0
        for attempt in 0..<6 {
            let c = try RawHTTPClient(port: port, timeout: 120)
            let start = Date()
            let r = try c.roundTrip("POST", "/layout", headers: Self.json,
                                    body: Array(Self.slowTree(tag: 1000 + attempt, count: count).utf8))
            seconds = Date().timeIntervalSince(start)
            XCTAssertEqual(r.status, 200, r.text.prefix(300).description)
            if seconds >= 0.4 { break }
            count = min(count * max(2, Int(0.6 / max(seconds, 0.01))), 200_000)
        }

        // A keep-alive connection opened before the signal, to ask /readyz during the drain.
        let probe = try RawHTTPClient(port: port, timeout: 30)
        XCTAssertEqual(try probe.roundTrip("GET", "/readyz").status, 200)

        let inFlight = 4
        let clients = try (0..<inFlight).map { _ in try RawHTTPClient(port: port, timeout: 120) }
        for (k, c) in clients.enumerated() {
            try c.send(RawHTTPClient.request("POST", "/layout", headers: Self.json,
                                             body: Array(Self.slowTree(tag: k, count: count).utf8)))
        }
        // Wait until the server has them (the first is being laid out).
        let metrics = try RawHTTPClient(port: port, timeout: 30)
        let sawInFlight = waitFor(10) {
            guard let m = try? metrics.roundTrip("GET", "/metrics") else { return false }
            return m.text.split(separator: "\n").contains { $0.hasPrefix("loom_layouts_in_flight") && !$0.hasSuffix(" 0") && !$0.hasSuffix(" 0.0") }
        }
        XCTAssertTrue(sawInFlight, "no layout in flight before SIGTERM")
        metrics.close()
        usleep(100_000) // let the rest of the bodies arrive

        let signalled = Date()
        XCTAssertEqual(kill(served.process.processIdentifier, SIGTERM), 0)
        XCTAssertNotNil(served.waitForLine(containing: "stopped accepting", timeout: 10), served.log)

        // During the drain: not ready on an existing connection, refused on new ones.
        if served.process.isRunning {
            do {
                let ready = try probe.roundTrip("GET", "/readyz")
                XCTAssertEqual(ready.status, 503, ready.text)
            } catch {
                XCTFail("an open connection was not answered during the drain: \(error)")
            }
            do {
                let late = try RawHTTPClient(port: port, timeout: 5)
                let r = try late.roundTrip("GET", "/readyz")
                XCTAssertEqual(r.status, 503, "a new connection after SIGTERM was served as ready")
            } catch {
                // Refused or reset: what a stopped listener does.
            }
        }

        for (k, c) in clients.enumerated() {
            do {
                let r = try c.readResponse()
                XCTAssertEqual(r.status, 200, "in-flight request \(k): \(r.text.prefix(300))")
                XCTAssertTrue(r.text.contains(#""mark":{"x":0,"y":\#(5 * count),"width":7,"height":5}"#),
                              "request \(k): \(r.text.suffix(200))")
            } catch {
                XCTFail("in-flight request \(k) was not answered: \(error)\n\(served.log)")
            }
        }

        let status = served.waitForExit(timeout: 60)
        XCTAssertEqual(status, 0, served.log)
        XCTAssertTrue(served.log.contains("draining"), served.log)
        XCTAssertNotNil(served.output.current.first { $0.contains("stopped") && $0.contains("drained=true") }, served.log)
        print("ServeProcessTests: \(inFlight) in-flight layouts of \(count) nodes (\(String(format: "%.2f", seconds)) s each) drained in \(String(format: "%.2f", Date().timeIntervalSince(signalled))) s")

        // Gone: connections are refused.
        XCTAssertThrowsError(try RawHTTPClient(port: port, timeout: 2))
    }

    /// The line of the log that starts with `prefix` (e.g. `stopped`), if any.
    func line(_ served: Served, containing needle: String) -> String? {
        served.output.current.first { $0.contains(needle) }
    }

    static let smallNode = #"{"root": {"type": "node", "id": "a", "style": {"width": 12, "height": 3}}}"#

    /// SIGTERM while a client has sent its headers and half its body: the request is in
    /// flight, so the rest is still read and answered with its layout, and the process
    /// exits 0 with everything drained.
    func testSIGTERMWithHalfABodyStillAnswersIt() throws {
        let served = try serve(["--drain-timeout", "20"])
        let body = Array(Self.smallNode.utf8)
        let half = body.count / 2
        let client = try RawHTTPClient(port: served.port, timeout: 30)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, contentLength: body.count) + body[..<half])
        // The server has the headers once it has answered another request on a later connection.
        XCTAssertEqual(try RawHTTPClient(port: served.port).roundTrip("GET", "/healthz").status, 200)

        XCTAssertEqual(kill(served.process.processIdentifier, SIGTERM), 0)
        XCTAssertNotNil(served.waitForLine(containing: "stopped accepting", timeout: 10), served.log)
        XCTAssertTrue(served.process.isRunning, "exited with a request half read:\n\(served.log)")
        try client.send(Array(body[half...]))
        let r = try client.readResponse()
        XCTAssertEqual(r.status, 200, r.text)
        XCTAssertTrue(r.text.contains(#""a":{"x":0,"y":0,"width":12,"height":3}"#), r.text)

        XCTAssertEqual(served.waitForExit(timeout: 30), 0, served.log)
        XCTAssertNotNil(line(served, containing: "drained=true"), served.log)
    }

    /// A request that outlives `--drain-timeout` (its body never finishes; no body deadline
    /// or rate ends it): the process stops waiting, closes it and exits 0 as documented
    /// (README: "then exit 0"), logging that the drain did not finish.
    func testDrainTimeoutExpiresAndExitsZero() throws {
        let served = try serve(["--drain-timeout", "2", "--body-timeout", "0", "--min-body-rate", "0"])
        let body = Array(Self.smallNode.utf8)
        let client = try RawHTTPClient(port: served.port, timeout: 30)
        try client.send(RawHTTPClient.request("POST", "/layout", headers: Self.json, contentLength: body.count) + body[..<10])
        XCTAssertEqual(try RawHTTPClient(port: served.port).roundTrip("GET", "/healthz").status, 200)

        XCTAssertEqual(kill(served.process.processIdentifier, SIGTERM), 0)
        XCTAssertNotNil(served.waitForLine(containing: "stopped accepting", timeout: 10), served.log)
        XCTAssertEqual(served.waitForExit(timeout: 60), 0, served.log)
        XCTAssertNotNil(line(served, containing: "drained=false"), served.log)
        XCTAssertNil(line(served, containing: "drained=true"), served.log)
        XCTAssertTrue(client.waitForClose(timeout: 10), "the unfinished request's connection stayed open")
    }

    /// Settings given only as LOOM_* environment variables take effect: the depth limit,
    /// the body limit and no response cache.
    func testEnvironmentSettingsAreHonoured() throws {
        let served = try serve(environment: ["LOOM_MAX_DEPTH": "3", "LOOM_MAX_BODY_BYTES": "2000", "LOOM_CACHE_ENTRIES": "0"])
        func post(_ body: String) throws -> RawHTTPClient.Response {
            try RawHTTPClient(port: served.port).roundTrip("POST", "/layout", headers: Self.json, body: Array(body.utf8))
        }
        XCTAssertEqual(try post(ServiceOverHTTPTestCase.nested(3)).status, 200)
        let deep = try post(ServiceOverHTTPTestCase.nested(4))
        XCTAssertEqual(deep.status, 413, deep.text)
        XCTAssertTrue(deep.text.contains("deeper than 3"), deep.text)
        let big = try post(#"{"root": {"type": "node", "id": "\#(String(repeating: "x", count: 2000))"}}"#)
        XCTAssertEqual(big.status, 413, big.text)
        // No response cache: the same request is laid out again.
        XCTAssertEqual(try post(Self.smallNode).header("X-Layout-Cache"), "miss")
        XCTAssertEqual(try post(Self.smallNode).header("X-Layout-Cache"), "miss")
        kill(served.process.processIdentifier, SIGTERM)
        XCTAssertEqual(served.waitForExit(timeout: 30), 0, served.log)
    }

    /// `--max-depth` outside 1…1024, as a flag or from the environment, stops `serve` and
    /// `layout` at start with the range in the message.
    func testMaxDepthOutOfRangeIsRefusedAtStart() throws {
        let message = "--max-depth / LOOM_MAX_DEPTH must be 1…1024"
        for (arguments, environment) in [(["serve", "--port", "0", "--max-depth", "0"], [String: String]()),
                                         (["serve", "--port", "0", "--max-depth", "1025"], [:]),
                                         (["serve", "--port", "0"], ["LOOM_MAX_DEPTH": "5000"]),
                                         (["layout", "--max-depth", "0", "-"], [:])] {
            let run = try runLoom(arguments, input: Array(Self.smallNode.utf8), environment: environment, timeout: 60)
            XCTAssertNotNil(run.status, "\(arguments) \(environment) still running")
            XCTAssertNotEqual(run.status, 0, "\(arguments) \(environment)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments) \(environment): \(run.stderr)")
            XCTAssertFalse(run.stdout.contains("loom listening"), run.stdout)
        }
        // The ends of the range are accepted.
        let run = try runLoom(["layout", "--max-depth", "1024", "-"], input: Array(Self.smallNode.utf8))
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    func testNegativeCacheSizesAreRefusedAtStart() throws {
        let message = "--cache-entries / LOOM_CACHE_ENTRIES and --cache-bytes / LOOM_CACHE_BYTES must be >= 0"
        for (arguments, environment) in [(["serve", "--port", "0", "--cache-entries=-1"], [String: String]()),
                                         (["serve", "--port", "0"], ["LOOM_CACHE_BYTES": "-5"])] {
            let run = try runLoom(arguments, environment: environment, timeout: 60)
            XCTAssertNotNil(run.status, "\(arguments) \(environment) still running")
            XCTAssertNotEqual(run.status, 0, "\(arguments) \(environment)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments) \(environment): \(run.stderr)")
            XCTAssertFalse(run.stdout.contains("loom listening"), run.stdout)
        }
    }

    /// `loom layout FILE` and `loom layout -` print the response and exit 0; an invalid
    /// request prints its error and exits 1; SVG on request.
    func testLayoutCommand() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loom-layout-\(UUID().uuidString).json")
        try Data(Self.smallNode.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let frame = #""a":{"x":0,"y":0,"width":12,"height":3}"#
        let fromFile = try runLoom(["layout", file.path])
        XCTAssertEqual(fromFile.status, 0, fromFile.stderr)
        XCTAssertTrue(fromFile.stdout.contains(frame), fromFile.stdout)
        let fromStdin = try runLoom(["layout", "-"], input: Array(Self.smallNode.utf8))
        XCTAssertEqual(fromStdin.status, 0, fromStdin.stderr)
        XCTAssertEqual(fromStdin.stdout, fromFile.stdout)
        let svg = try runLoom(["layout", "--format", "svg", "-"], input: Array(Self.smallNode.utf8))
        XCTAssertEqual(svg.status, 0, svg.stderr)
        XCTAssertTrue(svg.stdout.hasPrefix("<svg "), svg.stdout)
        XCTAssertTrue(svg.stdout.contains(#"<rect x="0" y="0" width="12" height="3""#), svg.stdout)
        let bad = try runLoom(["layout", "-"], input: Array(#"{"root": {"type": "nope"}}"#.utf8))
        XCTAssertEqual(bad.status, 1, bad.stderr)
        XCTAssertEqual(TestJSON.object(Array(bad.stdout.utf8))["error"].flatMap { ($0 as? [String: Any])?["code"] as? String }, "invalid_spec", bad.stdout)
        let missing = try runLoom(["layout", file.path + ".missing"])
        XCTAssertEqual(missing.status, 2, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("cannot read"), missing.stderr)
    }

    /// `loom bench --tree FILE --json` times a small tree: one JSON line for the tree and,
    /// as it has text, one for each of its cold and instant-text variants.
    func testBenchCommand() throws {
        let tree = #"{"root": {"type": "stack", "children": [{"type": "text", "text": "Hello bench", "font": {"family": "Roboto", "size": 12}}, {"type": "node", "style": {"width": 5, "height": 5}}]}}"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loom-bench-\(UUID().uuidString).json")
        try Data(tree.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try runLoom(["bench", "--tree", file.path, "--runs", "2", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n").map { TestJSON.object(Array($0.utf8)) }
        let name = file.deletingPathExtension().lastPathComponent
        XCTAssertEqual(lines.map { $0["tree"] as? String }, [name, name + "_coldtext", name + "_coldwords", name + "_instanttext"], run.stdout)
        for line in lines {
            XCTAssertEqual(line["nodes"] as? Int, 3, "\(line)")
            XCTAssertEqual(line["runs"] as? Int, 2, "\(line)")
            XCTAssertNotNil((line["median_ms"] as? [String: Any])?["layout"], "\(line)")
        }
    }
}
