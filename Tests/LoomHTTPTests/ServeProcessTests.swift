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

    /// The `loom` binary: $LOOM_BIN, else next to the test bundle (same build directory),
    /// else .build/debug/loom of this package.
    static func loomBinary() -> String? {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["LOOM_BIN"], !env.isEmpty { candidates.append(env) }
        for path in [Bundle.main.executablePath, CommandLine.arguments.first, Bundle.main.bundlePath].compactMap({ $0 }) {
            let url = URL(fileURLWithPath: path)
            candidates.append(url.deletingLastPathComponent().appendingPathComponent("loom").path)
            // macOS-style bundles: …/X.xctest/Contents/MacOS/X
            candidates.append(url.deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("loom").path)
        }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(package.appendingPathComponent(".build/debug/loom").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) && !$0.hasSuffix(".xctest") }
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

    func serve(_ extra: [String] = []) throws -> Served {
        guard let binary = Self.loomBinary() else {
            throw XCTSkip("the loom binary was not found (build it: swift build --product loom)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--host", "127.0.0.1", "--log-level", "info"] + extra
        var environment = ProcessInfo.processInfo.environment
        for key in ["PORT", "HOST", "LOOM_WORKERS", "LOOM_QUEUE_LIMIT", "LOOM_DRAIN_TIMEOUT"] { environment[key] = nil }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        try process.run()
        processes.append(process)
        let served = Served(process: process, pipe: pipe)
        guard let line = served.waitForLine(containing: "loom listening", timeout: 30) else {
            XCTFail("no 'loom listening' line; output:\n\(served.log)")
            throw XCTSkip("loom serve did not start")
        }
        guard let match = line.range(of: #"port="?[0-9]+"#, options: .regularExpression) else {
            XCTFail("no port in: \(line)")
            throw XCTSkip("no port")
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

}
