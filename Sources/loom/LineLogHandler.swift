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
    /// The lines not yet written, and the UTC second of the last line with its text
    /// ("YYYY-MM-DDTHH:MM:SSZ"), formatted once a second. One lock for both, so access lines
    /// go out in the order of their timestamps.
    private struct State {
        var buffer: [UInt8] = []
        var second = -1
        var text: [UInt8] = []

        mutating func stamp(_ now: time_t) -> [UInt8] {
            if second != now {
                text = Array(LineLogHandler.timestamp(now).utf8)
                second = now
            }
            return text
        }
    }
    private let state = Mutex<State>(State())
    private let timer: DispatchSourceTimer

    private init() {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "loom.log"))
        timer.schedule(deadline: .now() + .milliseconds(50), repeating: .milliseconds(50))
        timer.setEventHandler { LogOutput.shared.flush() }
        timer.resume()
    }

    /// The timestamp text of `now`.
    func stamp(_ now: time_t) -> [UInt8] {
        state.withLock { $0.stamp(now) }
    }

    func append(_ line: String, immediately: Bool) {
        let full = state.withLock { s -> Bool in
            s.buffer.append(contentsOf: line.utf8)
            return s.buffer.count >= 64 << 10
        }
        if immediately || full { flush() }
    }

    /// An access log line exactly as `LineLogHandler` (label `label`, no metadata of its own)
    /// writes `logger.info(message, metadata: fields.metadata)` from the LoomHTTP module:
    /// `HTTPServer.accessLogWriter` calls the function this returns for every request. The
    /// line but its timestamp is written on the stack, then copied in under the lock.
    func accessLineWriter(label: String, format: LogFormat = .text) -> @Sendable (_ message: UnsafeRawBufferPointer, _ fields: HTTPAccessLogFields) -> Void {
        if format == .json { return jsonAccessLineWriter(label: label) }
        let infix = Array(" info \(label):".utf8)
        let source = Array(" [LoomHTTP] ".utf8)
        return { message, fields in
            let now = time(nil)
            let room = infix.count + fields.byteCount + source.count + message.count + 1
            withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { buffer in
                var line = LineBytes(buffer)
                line.put(infix)
                fields.forEachSorted { k, v in
                    line.put(UInt8(ascii: " ")); line.put(k)
                    line.put(UInt8(ascii: "=")); line.put(v)
                }
                line.put(source)
                line.put(message)
                line.put(UInt8(ascii: "\n"))
                self.appendLine(at: now, line.bytes, jsonHead: nil)
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
        return { message, fields in
            let now = time(nil)
            // Escaping writes at most 6 bytes per byte (`\u00XX`).
            let room = infix.count + 6 * (fields.byteCount + message.count) + source.count + tail.count
            withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { buffer in
                var line = LineBytes(buffer)
                line.put(infix)
                fields.forEachSorted { k, v in
                    line.put(UInt8(ascii: ",")); line.put(UInt8(ascii: "\""))
                    if Self.isReserved(k) { line.put("metadata_") }
                    line.putEscaped(k)
                    line.put(UInt8(ascii: "\"")); line.put(UInt8(ascii: ":")); line.put(UInt8(ascii: "\""))
                    line.putEscaped(v)
                    line.put(UInt8(ascii: "\""))
                }
                line.put(source)
                line.putEscaped(message)
                line.put(tail)
                head.withUnsafeBytes { self.appendLine(at: now, line.bytes, jsonHead: $0) }
            }
        }
    }

    /// A JSON line's own fields, which a metadata key of the same name must not hide.
    private static func isReserved(_ k: String) -> Bool {
        switch k {
        case "time", "level", "label", "source", "message": return true
        default: return false
        }
    }

    /// Appends `head`, the timestamp of `now` and `line` under the lock; flushes when the
    /// buffer is full.
    @inline(__always)
    private func appendLine(at now: time_t, _ line: UnsafeRawBufferPointer, jsonHead head: UnsafeRawBufferPointer?) {
        let full = state.withLock { s -> Bool in
            let stamp = s.stamp(now)
            if let head { s.buffer.append(contentsOf: head) }
            s.buffer.append(contentsOf: stamp)
            s.buffer.append(contentsOf: line)
            return s.buffer.count >= 64 << 10
        }
        if full { flush() }
    }

    func flush() {
        let pending = state.withLock { s -> [UInt8] in
            let out = s.buffer
            s.buffer.removeAll(keepingCapacity: true)
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

/// Bytes of one log line written into a stack buffer the caller sized.
private struct LineBytes {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { base = buffer.baseAddress!; capacity = buffer.count }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    mutating func put(_ b: UInt8) {
        precondition(count < capacity, "log line buffer too small")
        base.storeBytes(of: b, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    mutating func put(_ p: UnsafeRawBufferPointer) {
        guard let from = p.baseAddress else { return }
        precondition(count + p.count <= capacity, "log line buffer too small")
        (base + count).copyMemory(from: from, byteCount: p.count)
        count += p.count
    }

    mutating func put(_ a: [UInt8]) { a.withUnsafeBytes { put($0) } }

    mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { put(UnsafeRawBufferPointer($0)) }
    }

    private static let hex: StaticString = "0123456789abcdef"

    /// As `JSONText.append(escaping:to:)` writes them.
    mutating func putEscaped(_ p: UnsafeRawBufferPointer) {
        for b in p {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                put(UInt8(ascii: "\\")); put(b)
            case 0..<0x20, 0x7F:
                put(UInt8(ascii: "\\")); put(UInt8(ascii: "u")); put(UInt8(ascii: "0")); put(UInt8(ascii: "0"))
                put(Self.hex.utf8Start[Int(b >> 4)]); put(Self.hex.utf8Start[Int(b & 15)])
            default:
                put(b)
            }
        }
    }

    mutating func putEscaped(_ s: String) {
        var s = s
        s.withUTF8 { putEscaped(UnsafeRawBufferPointer($0)) }
    }
}
