import Dispatch
import Foundation
import XCTest
import LoomService
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
            // LoomFuzz and the client library are not part of loom.
            guard relative.hasSuffix(".swift"), !relative.hasPrefix("LoomFuzz/"), !relative.hasPrefix("LoomClient/")
            else { continue }
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
        // port=123 in text lines, "port":"123" in JSON ones.
        guard let match = line.range(of: #"port"?[=:]"?[0-9]+"#, options: .regularExpression) else {
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

    /// The message names the one setting that is wrong and the value it was given.
    func testNegativeCacheSizesAreRefusedAtStart() throws {
        for (arguments, environment, message) in [
            (["serve", "--port", "0", "--cache-entries=-1"], [String: String](), "--cache-entries -1: --cache-entries / LOOM_CACHE_ENTRIES must be >= 0"),
            (["serve", "--port", "0"], ["LOOM_CACHE_BYTES": "-5"], "LOOM_CACHE_BYTES=-5: --cache-bytes / LOOM_CACHE_BYTES must be >= 0"),
        ] {
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
        // A file that cannot be read is an error like any other (exit 1), with errno's reason.
        let missing = try runLoom(["layout", file.path + ".missing"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertTrue(missing.stderr.contains("cannot read \(file.path).missing: No such file or directory"), missing.stderr)
        let directory = try runLoom(["layout", FileManager.default.temporaryDirectory.path])
        XCTAssertEqual(directory.status, 1, directory.stderr)
        XCTAssertTrue(directory.stderr.contains("Is a directory"), directory.stderr)
        // --pretty: the same JSON, indented two spaces a level.
        let pretty = try runLoom(["layout", "--pretty", file.path])
        XCTAssertEqual(pretty.status, 0, pretty.stderr)
        XCTAssertEqual(pretty.stdout.filter { !$0.isWhitespace }, fromFile.stdout.filter { !$0.isWhitespace })
        let lines = pretty.stdout.split(separator: "\n")
        XCTAssertEqual(lines.first, "{", pretty.stdout)
        XCTAssertTrue(lines.contains(#"  "frames": {"#), pretty.stdout)
        XCTAssertTrue(lines.contains(#"    "a": {"#), pretty.stdout)
        XCTAssertTrue(lines.contains(#"      "width": 12,"#), pretty.stdout)
        XCTAssertEqual(lines.last, "}", pretty.stdout)
        // A missing font directory is named in plain words, not as a Swift error value.
        let fonts = try runLoom(["layout", "--font-dir", "/nonexistent-loom-fonts", file.path])
        XCTAssertEqual(fonts.status, 64, fonts.stderr)
        XCTAssertTrue(fonts.stderr.contains("--font-dir /nonexistent-loom-fonts: /nonexistent-loom-fonts does not exist"), fonts.stderr)
        XCTAssertFalse(fonts.stderr.contains("TextMeasuringError"), fonts.stderr)
        let version = try runLoom(["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertEqual(version.stdout, LoomVersion.current + "\n")
    }

    /// Every bad value, as a flag or in the environment, stops `serve` before it listens:
    /// exit status 64 and a message naming the setting and the value.
    func testBadValuesStopTheStart() throws {
        let cases: [([String], [String: String], String)] = [
            ([], ["PORT": "abc"], "PORT=abc: --port / PORT must be a whole number"),
            ([], ["PORT": "70000"], "PORT=70000: --port / PORT must be 0…65535"),
            ([], ["LOOM_WORKERS": "abc"], "LOOM_WORKERS=abc: --workers / LOOM_WORKERS must be auto or a whole number"),
            ([], ["LOOM_WORKERS": "0"], "LOOM_WORKERS=0: --workers / LOOM_WORKERS must be auto or a whole number"),
            (["--workers", "0"], [:], "--workers 0: --workers / LOOM_WORKERS must be auto or a whole number"),
            ([], ["LOOM_CACHE_BYTES": "64Q"], "LOOM_CACHE_BYTES=64Q: --cache-bytes / LOOM_CACHE_BYTES must be a byte size"),
            (["--text-cache-bytes", "lots"], [:], "--text-cache-bytes lots: --text-cache-bytes / LOOM_TEXT_CACHE_BYTES must be a byte size"),
            ([], ["LOOM_MAX_BODY_BYTES": "4 megs"], "LOOM_MAX_BODY_BYTES=4 megs: --max-body-bytes / LOOM_MAX_BODY_BYTES must be a byte size"),
            ([], ["LOOM_LOG_LEVEL": "loud"], "LOOM_LOG_LEVEL=loud: --log-level / LOOM_LOG_LEVEL must be one of trace, debug, info"),
            ([], ["LOOM_LOG_FORMAT": "xml"], "LOOM_LOG_FORMAT=xml: --log-format / LOOM_LOG_FORMAT must be one of text, json"),
            ([], ["LOOM_QUEUE_LIMIT": "-1"], "LOOM_QUEUE_LIMIT=-1: --queue-limit / LOOM_QUEUE_LIMIT must be 0…1000000"),
            ([], ["LOOM_HTTP_THREADS": "0"], "LOOM_HTTP_THREADS=0: --http-threads / LOOM_HTTP_THREADS must be 1…1024"),
            ([], ["LOOM_DEADLINE": "soon"], "LOOM_DEADLINE=soon: --deadline / LOOM_DEADLINE must be a number"),
            ([], ["LOOM_MAX_NODES": "many"], "LOOM_MAX_NODES=many: --max-nodes / LOOM_MAX_NODES must be a whole number"),
            ([], ["LOOM_BUDGET_LINES": "-3"], "LOOM_BUDGET_LINES=-3: --budget-lines / LOOM_BUDGET_LINES must be >= 0"),
            ([], ["LOOM_ADMIN_PORT": "x"], "LOOM_ADMIN_PORT=x: --admin-port / LOOM_ADMIN_PORT must be a whole number"),
            ([], ["LOOM_DRAIN_TIMEOUT": "-1"], "LOOM_DRAIN_TIMEOUT=-1: --drain-timeout / LOOM_DRAIN_TIMEOUT must be 0…86400"),
            ([], ["LOOM_FONT_DIRS": "/nonexistent-loom-fonts"], "LOOM_FONT_DIRS=/nonexistent-loom-fonts: /nonexistent-loom-fonts does not exist"),
        ]
        for (arguments, environment, message) in cases {
            // --port would hide PORT.
            let port = environment["PORT"] == nil ? ["--port", "0"] : ["--host", "127.0.0.1"]
            let run = try runLoom(["serve"] + port + arguments, environment: environment, timeout: 30)
            XCTAssertEqual(run.status, 64, "\(arguments) \(environment): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments) \(environment): \(run.stderr)")
            XCTAssertFalse(run.stdout.contains("loom listening"), run.stdout)
        }
    }

    /// Byte sizes in any accepted form, `auto` workers (this process's cores: the test runs
    /// with the same affinity and cgroup) and every effective setting in the start line.
    func testStartLineListsEveryEffectiveSetting() throws {
        let served = try serve(["--word-cache-bytes", "2KiB"], environment: [
            "LOOM_CACHE_BYTES": "64Mi", "LOOM_TEXT_CACHE_BYTES": "1MB", "LOOM_MAX_BUFFERED_BODY_BYTES": "1Gi", "LOOM_WORKERS": "auto"])
        let line = try XCTUnwrap(served.waitForLine(containing: "loom listening", timeout: 10))
        for expected in ["cache_bytes=67108864", "text_cache_bytes=1000000", "word_cache_bytes=2048",
                         "max_buffered_body_bytes=1073741824", "workers=\(ProcessFacts.availableCores())",
                         "version=\(LoomVersion.current)", "max_body_bytes=4194304", "cache_entries=10000"] {
            XCTAssertTrue(line.contains(" \(expected) "), "\(expected) not in \(line)")
        }
        for key in ["host", "port", "queue_limit", "http_threads", "max_connections", "connection_timeout", "header_timeout",
                    "body_timeout", "min_body_rate", "max_depth", "max_nodes", "max_text_bytes", "deadline", "budget_measurements",
                    "budget_per_element", "budget_text_bytes", "budget_lines", "budget_per_text_byte", "cors", "font_dirs",
                    "fonts", "log_level", "log_format", "drain_timeout", "allocator"] {
            XCTAssertTrue(line.contains(" \(key)="), "\(key) not in \(line)")
        }
        XCTAssertTrue(line.contains("Roboto"), "the shipped families are listed: \(line)")
        kill(served.process.processIdentifier, SIGTERM)
        XCTAssertEqual(served.waitForExit(timeout: 30), 0, served.log)
        let three = try serve(environment: ["LOOM_WORKERS": "3"])
        XCTAssertTrue(three.waitForLine(containing: "loom listening", timeout: 10)?.contains(" workers=3 ") == true, three.log)
        kill(three.process.processIdentifier, SIGTERM)
        XCTAssertEqual(three.waitForExit(timeout: 30), 0, three.log)
    }

    /// `--log-format json`: every line one JSON object with the text format's fields, access
    /// lines included; `/metrics` names the version.
    func testJSONLogFormat() throws {
        let served = try serve(["--log-format", "json"])
        let client = try RawHTTPClient(port: served.port)
        XCTAssertEqual(try client.roundTrip("POST", "/layout", headers: Self.json, body: Array(Self.smallNode.utf8)).status, 200)
        let metrics = try client.roundTrip("GET", "/metrics")
        XCTAssertTrue(metrics.text.contains(#"loom_build_info{version="\#(LoomVersion.current)"} 1"#), metrics.text)
        XCTAssertNotNil(served.waitForLine(containing: "/metrics", timeout: 10), served.log)
        kill(served.process.processIdentifier, SIGTERM)
        XCTAssertEqual(served.waitForExit(timeout: 30), 0, served.log)
        let objects = served.output.current.map { TestJSON.object(Array($0.utf8)) }
        XCTAssertGreaterThanOrEqual(objects.count, 4, served.log)
        for (object, line) in zip(objects, served.output.current) {
            for field in ["time", "level", "label", "source", "message"] {
                XCTAssertNotNil(object[field] as? String, "\(field) missing: \(line)")
            }
            XCTAssertNotNil((object["time"] as? String)?.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression), line)
        }
        let start = try XCTUnwrap(objects.first { $0["message"] as? String == "loom listening" })
        XCTAssertEqual(start["port"] as? String, String(served.port))
        XCTAssertEqual(start["log_format"] as? String, "json")
        let access = try XCTUnwrap(objects.first { ($0["message"] as? String)?.hasPrefix("POST /layout 200 ") == true }, served.log)
        XCTAssertEqual(access["remote"] as? String, "127.0.0.1")
        XCTAssertEqual(access["source"] as? String, "LoomHTTP")
        XCTAssertEqual(access["level"] as? String, "info")
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

    /// `loom bench --scenario misses`: one JSON line; every body of the run was laid out afresh
    /// through the service (it stops with a message otherwise), its time and the bare path's
    /// measured. Without the marker number in cell.json the scenario says it is skipped.
    func testBenchMissScenario() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cell = #"{"root": {"type": "stack", "direction": "horizontal", "children": [{"type": "text", "text": "Miss me", "font": {"family": "Roboto", "size": 12}}, {"type": "node", "style": {"width": 7.125, "height": 5}}]}}"#
        try Data(cell.utf8).write(to: dir.appendingPathComponent("cell.json"))
        let run = try runLoom(["bench", "--scenario", "misses", "--trees-dir", dir.path, "--runs", "5", "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let lines = run.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, run.stdout)
        let line = TestJSON.object(Array(lines[0].utf8))
        XCTAssertEqual(line["scenario"] as? String, "misses", run.stdout)
        XCTAssertEqual(line["runs"] as? Int, 5, run.stdout)
        let miss = try XCTUnwrap(line["miss_us"] as? Double, run.stdout)
        let freeing = try XCTUnwrap(line["miss_freeing_us"] as? Double, run.stdout)
        XCTAssertGreaterThan(miss, 0, run.stdout)
        XCTAssertGreaterThan(try XCTUnwrap(line["bare_path_us"] as? Double, run.stdout), 0, run.stdout)
        XCTAssertLessThanOrEqual(freeing, miss, run.stdout)
        XCTAssertGreaterThan(try XCTUnwrap(line["ratio"] as? Double, run.stdout), 0, run.stdout)

        try Data(cell.replacingOccurrences(of: "7.125", with: "7").utf8).write(to: dir.appendingPathComponent("cell.json"))
        let skipped = try runLoom(["bench", "--scenario", "misses", "--trees-dir", dir.path, "--runs", "2", "--json"])
        XCTAssertEqual(skipped.status, 0, skipped.stderr)
        XCTAssertTrue(skipped.stdout.hasPrefix("miss scenario skipped"), skipped.stdout)
    }
}
