import Foundation
import LoomHTTP
import Logging
import Synchronization

/// A swift-log handler writing one line per record to standard output, as text:
/// `2026-11-22T04:10:00Z info loom: remote=127.0.0.1 [LoomHTTP] POST /layout 200 1556B 0.1ms`,
/// or (`--log-format json`) as one JSON object with the same fields: `{"time":…,"level":…,
/// "label":…, the metadata…, "source":…,"message":…}` (and `"error"` when there is one).
/// It exists because the access log writes a line per request: swift-log's
/// StreamLogHandler formats a local-time timestamp with strftime and flushes for every
/// record, which halved cache-hit throughput (README, benchmarks). This one formats the UTC
/// second once per second and batches lines: info and below are written at least every
/// 50 ms (or at 64 KiB), warnings and errors at once; `flush()` before exiting.
struct LineLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    let format: LogFormat
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String, level: Logger.Level, format: LogFormat = .text) {
        self.label = label
        self.logLevel = level
        self.format = format
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
        let sorted = all.sorted(by: { $0.key < $1.key })
        var text: String
        switch format {
        case .text:
            text = Self.timestamp() + " " + event.level.rawValue + " " + label + ":"
            for (k, v) in sorted { text += " \(k)=\(v)" }
            text += " [\(event.source)] \(event.message)"
            if let error = event.error { text += " error=\(error)" }
        case .json:
            text = "{\"time\":\"" + Self.timestamp() + "\",\"level\":\"" + event.level.rawValue + "\",\"label\":" + JSONText.quoted(label)
            for (k, v) in sorted {
                // A metadata key never hides a fixed field.
                let key = LineLogHandler.fixedFields.contains(k) ? "metadata_" + k : k
                text += "," + JSONText.quoted(key) + ":" + JSONText.value(v)
            }
            text += ",\"source\":" + JSONText.quoted(event.source) + ",\"message\":" + JSONText.quoted("\(event.message)")
            if let error = event.error { text += ",\"error\":" + JSONText.quoted("\(error)") }
            text += "}"
        }
        LogOutput.shared.append(text + "\n", immediately: event.level >= .warning)
    }

    /// The fields every JSON line has.
    static let fixedFields: Set<String> = ["time", "level", "label", "source", "message", "error"]
}

/// `--log-format` / `LOOM_LOG_FORMAT`.
enum LogFormat: String, CaseIterable {
    case text, json
}

/// JSON text for log lines.
enum JSONText {
    /// `s` as a JSON string, quotes included.
    static func quoted(_ s: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(s.utf8.count + 2)
        out.append(UInt8(ascii: "\""))
        append(escaping: s.utf8, to: &out)
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    /// A metadata value: strings as strings, lists as arrays, dictionaries as objects.
    static func value(_ v: Logger.MetadataValue) -> String {
        switch v {
        case .string(let s): return quoted(s)
        case .stringConvertible(let c): return quoted(c.description)
        case .array(let a): return "[" + a.map(value).joined(separator: ",") + "]"
        case .dictionary(let d):
            return "{" + d.sorted(by: { $0.key < $1.key }).map { quoted($0.key) + ":" + value($0.value) }.joined(separator: ",") + "}"
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends `bytes` escaped for the inside of a JSON string: `"` and `\` get a
    /// backslash, control characters are written `\u00XX`.
    static func append<S: Sequence>(escaping bytes: S, to out: inout [UInt8]) where S.Element == UInt8 {
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\")); out.append(b)
            case 0..<0x20, 0x7F:
                out.append(UInt8(ascii: "\\")); out.append(UInt8(ascii: "u")); out.append(UInt8(ascii: "0")); out.append(UInt8(ascii: "0"))
                out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)])
            default:
                out.append(b)
            }
        }
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
    func accessLineWriter(label: String, format: LogFormat = .text) -> @Sendable (_ message: UnsafeRawBufferPointer, _ fields: HTTPAccessLogFields) -> Void {
        if format == .json { return jsonAccessLineWriter(label: label) }
        let infix = Array(" info \(label):".utf8)
        let source = Array(" [LoomHTTP] ".utf8)
        return { message, fields in
            let now = time(nil)
            var metadata: [UInt8] = []
            for (k, v) in fields.sorted {
                metadata.append(UInt8(ascii: " ")); metadata.append(contentsOf: k.utf8)
                metadata.append(UInt8(ascii: "=")); metadata.append(contentsOf: v.utf8)
            }
            self.appendLine(at: now) { b, stamp in
                b.append(contentsOf: stamp)
                b.append(contentsOf: infix)
                b.append(contentsOf: metadata)
                b.append(contentsOf: source)
                b.append(contentsOf: message)
                b.append(UInt8(ascii: "\n"))
            }
        }
    }

    /// The same line as `LineLogHandler` writes it in JSON: time, level, label, the fields
    /// (remote, request_id, cache, error, …, in key order), source and message.
    private func jsonAccessLineWriter(label: String) -> @Sendable (_ message: UnsafeRawBufferPointer, _ fields: HTTPAccessLogFields) -> Void {
        let head = Array("{\"time\":\"".utf8)
        let infix = Array("\",\"level\":\"info\",\"label\":\(JSONText.quoted(label))".utf8)
        let source = Array(",\"source\":\"LoomHTTP\",\"message\":\"".utf8)
        let tail = Array("\"}\n".utf8)
        let reserved: Set<String> = ["time", "level", "label", "source", "message"]
        return { message, fields in
            let now = time(nil)
            var members: [UInt8] = []
            for (k, v) in fields.sorted {
                members.append(contentsOf: ",\"".utf8)
                if reserved.contains(k) { members.append(contentsOf: "metadata_".utf8) }
                JSONText.append(escaping: k.utf8, to: &members)
                members.append(contentsOf: "\":\"".utf8)
                JSONText.append(escaping: v.utf8, to: &members)
                members.append(UInt8(ascii: "\""))
            }
            self.appendLine(at: now) { b, stamp in
                b.append(contentsOf: head)
                b.append(contentsOf: stamp)
                b.append(contentsOf: infix)
                b.append(contentsOf: members)
                b.append(contentsOf: source)
                JSONText.append(escaping: message, to: &b)
                b.append(contentsOf: tail)
            }
        }
    }

    /// Writes one line into the buffer with the timestamp of `now`, under the clock's lock
    /// then the buffer's (so lines go out in the order of their timestamps); flushes when the
    /// buffer is full.
    @inline(__always)
    private func appendLine(at now: time_t, _ write: (inout [UInt8], [UInt8]) -> Void) {
        let full = clock.withLock { c -> Bool in
            let stamp = current(now, &c)
            return buffer.withLock { b -> Bool in
                write(&b, stamp)
                return b.count >= 64 << 10
            }
        }
        if full { flush() }
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
