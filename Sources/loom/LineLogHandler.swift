import Foundation
import LoomHTTP
import Logging
import Synchronization

/// A swift-log handler writing one plain line per record to standard output:
/// `2026-11-22T04:10:00Z info loom: remote=127.0.0.1 [LoomHTTP] POST /layout 200 1556B 0.1ms`.
/// It exists because the access log writes a line per request: swift-log's
/// StreamLogHandler formats a local-time timestamp with strftime and flushes for every
/// record, which halved cache-hit throughput (README, benchmarks). This one formats the UTC
/// second once per second and batches lines: info and below are written at least every
/// 50 ms (or at 64 KiB), warnings and errors at once; `flush()` before exiting.
struct LineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// This second's timestamp (formatted once per second, shared with access lines).
    private static func timestamp() -> String {
        String(decoding: LogOutput.shared.stamp(time(nil)), as: UTF8.self)
    }

    /// `2026-11-22T04:10:00Z` for a time(2) value.
    static func timestamp(_ now: time_t) -> String {
        var t = tm()
        var seconds = now
        gmtime_r(&seconds, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))Z"
    }

    func log(event: LogEvent) {
        var all = metadata
        if let provided = metadataProvider?.get() { all.merge(provided) { $1 } }
        if let explicit = event.metadata { all.merge(explicit) { $1 } }
        var text = Self.timestamp() + " " + event.level.rawValue + " " + label + ":"
        for (k, v) in all.sorted(by: { $0.key < $1.key }) { text += " \(k)=\(v)" }
        text += " [\(event.source)] \(event.message)"
        if let error = event.error { text += " error=\(error)" }
        LogOutput.shared.append(text + "\n", immediately: event.level >= .warning)
    }
}

/// Standard output, batched: one write(2) per batch instead of one per line.
final class LogOutput: @unchecked Sendable {
    static let shared = LogOutput()
    private let buffer = Mutex<[UInt8]>([])
    /// The UTC second of the last line and its text ("YYYY-MM-DDTHH:MM:SSZ"), formatted once
    /// a second. Taken before `buffer` when both are, so access lines go out in the order of
    /// their timestamps.
    private let clock = Mutex<(second: Int, stamp: [UInt8])>((-1, []))
    private let timer: DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "loom.log"))
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { LogOutput.shared.flush() }
        timer.resume()
    }

    /// The timestamp text of `now`.
    func stamp(_ now: time_t) -> [UInt8] {
        clock.withLock { current(now, &$0) }
    }

    private func current(_ now: time_t, _ c: inout (second: Int, stamp: [UInt8])) -> [UInt8] {
        if c.second != now {
            c.stamp = Array(LineLogHandler.timestamp(now).utf8)
            c.second = now
        }
        return c.stamp
    }

    func append(_ line: String, immediately: Bool) {
        let full = buffer.withLock { b -> Bool in
            b.append(contentsOf: line.utf8)
            return b.count >= 64 << 10
        }
        if immediately || full { flush() }
    }

    /// An access log line exactly as `LineLogHandler` (label `label`, no metadata of its own)
    /// writes `logger.info(message, metadata: fields.metadata)` from the LoomHTTP module,
    /// built as bytes under one lock: `HTTPServer.accessLogWriter` calls the function this
    /// returns for every request.
    func accessLineWriter(label: String) -> @Sendable (_ message: UnsafeRawBufferPointer, _ fields: HTTPAccessLogFields) -> Void {
        let infix = Array(" info \(label):".utf8)
        let source = Array(" [LoomHTTP] ".utf8)
        return { message, fields in
            let now = time(nil)
            var metadata: [UInt8] = []
            for (k, v) in fields.sorted {
                metadata.append(UInt8(ascii: " ")); metadata.append(contentsOf: k.utf8)
                metadata.append(UInt8(ascii: "=")); metadata.append(contentsOf: v.utf8)
            }
            let full = self.clock.withLock { c -> Bool in
                let stamp = self.current(now, &c)
                return self.buffer.withLock { b -> Bool in
                    b.append(contentsOf: stamp)
                    b.append(contentsOf: infix)
                    b.append(contentsOf: metadata)
                    b.append(contentsOf: source)
                    b.append(contentsOf: message)
                    b.append(UInt8(ascii: "\n"))
                    return b.count >= 64 << 10
                }
            }
            if full { self.flush() }
        }
    }

    func flush() {
        let pending = buffer.withLock { b -> [UInt8] in
            let out = b
            b.removeAll(keepingCapacity: true)
            return out
        }
        guard !pending.isEmpty else { return }
        pending.withUnsafeBytes { buf in
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(1, buf.baseAddress! + offset, buf.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
    }
}
