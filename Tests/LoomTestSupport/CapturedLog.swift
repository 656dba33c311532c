import Foundation
import Logging

// Helpers of the HTTP tests: log capture, and gzip checked by the system tool.

/// Collects log lines for assertions.
public final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(Logger.Level, String)] = []

    /// LOOM_HTTP_TEST_LOG=1 prints every captured line to stderr.
    private static let echo = ProcessInfo.processInfo.environment["LOOM_HTTP_TEST_LOG"] == "1"

    public init() {}

    public func append(_ level: Logger.Level, _ message: String) {
        if Self.echo { FileHandle.standardError.write(Data("[\(level)] \(message)\n".utf8)) }
        lock.lock()
        entries.append((level, message))
        lock.unlock()
    }

    public var lines: [(Logger.Level, String)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }

    public func logger(level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "loom.http.test") { _ in CapturingLogHandler(sink: self) }
        logger.logLevel = level
        return logger
    }
}

public struct CapturingLogHandler: LogHandler {
    public let sink: CapturedLog
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    public init(sink: CapturedLog) { self.sink = sink }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        sink.append(event.level, event.message.description)
    }
}

/// Runs `gzip -dc` on the bytes: an independent check of our gzip output.
public func gunzipWithSystemTool(_ data: [UInt8]) throws -> [UInt8] {
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
