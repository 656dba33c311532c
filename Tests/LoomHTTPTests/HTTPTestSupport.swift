import Foundation
import Logging
@_exported import LoomTestSupport
#if canImport(Glibc)
import Glibc
#endif

// Helpers of the HTTP tests that need swift-log or the system gzip; the raw client, the JSON
// helpers and polling live in LoomTestSupport (re-exported here for every file of the target).

/// Collects log lines for assertions.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(Logger.Level, String)] = []

    /// LOOM_HTTP_TEST_LOG=1 prints every captured line to stderr.
    private static let echo = ProcessInfo.processInfo.environment["LOOM_HTTP_TEST_LOG"] == "1"

    func append(_ level: Logger.Level, _ message: String) {
        if Self.echo { FileHandle.standardError.write(Data("[\(level)] \(message)\n".utf8)) }
        lock.lock()
        entries.append((level, message))
        lock.unlock()
    }

    var lines: [(Logger.Level, String)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "loom.http.test") { _ in CapturingLogHandler(sink: self) }
        logger.logLevel = level
        return logger
    }
}

struct CapturingLogHandler: LogHandler {
    let sink: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        sink.append(event.level, event.message.description)
    }
}

/// Runs `gzip -dc` on the bytes: an independent check of our gzip output.
func gunzipWithSystemTool(_ data: [UInt8]) throws -> [UInt8] {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loomhttp-\(UUID().uuidString).gz")
    try Data(data).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = ["-dc", url.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw RawHTTPClient.ClientError.malformed("gzip -dc exited \(process.terminationStatus)")
    }
    return [UInt8](output)
}
