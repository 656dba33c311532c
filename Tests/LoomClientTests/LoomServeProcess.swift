import Foundation
import XCTest

/// A real `loom serve` on a free loopback port: $LOOM_BIN (what `make test` just built),
/// else the debug build beside the tests.
final class LoomServeProcess {
    let process = Process()
    let baseURL: URL
    private let log: URL

    init() throws {
        let env = ProcessInfo.processInfo.environment["LOOM_BIN"] ?? ""
        let bin = env.isEmpty ? URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/loom").standardized.path : env
        guard FileManager.default.isExecutableFile(atPath: bin) else {
            throw XCTSkip("no loom binary at \(bin): build it (swift build --product loom) or set LOOM_BIN")
        }
        process.executableURL = URL(fileURLWithPath: bin)
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"]
        // The log goes to a file, so a long run never blocks on a full pipe.
        log = FileManager.default.temporaryDirectory.appendingPathComponent("loom-client-tests-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        var seen = ""
        let deadline = Date().addingTimeInterval(30)
        var port: Int?
        while port == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            seen = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            for line in seen.split(separator: "\n") where line.contains("loom listening") {
                if let r = line.range(of: #"\bport="?(\d+)"#, options: .regularExpression) {
                    port = Int(line[r].filter(\.isNumber))
                }
            }
        }
        guard let port else {
            process.terminate()
            throw NSError(domain: "loom", code: 1, userInfo: [NSLocalizedDescriptionKey: "loom serve did not start: \(seen)"])
        }
        baseURL = URL(string: "http://127.0.0.1:\(port)")!
    }

    func stop() {
        if process.isRunning { process.terminate(); process.waitUntilExit() }
        try? FileManager.default.removeItem(at: log)
    }
}
