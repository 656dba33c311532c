import Logging
import Synchronization

/// The fields of an access line besides its text, as logger metadata: `remote` (the
/// client's address), `request_id` (when the server gives requests ids) and the handler's
/// `HTTPResponse.accessLogFields`, every value already escaped for a log line.
public struct HTTPAccessLogFields: Sendable {
    public let remote: String
    public let requestID: String?
    public let extra: [(String, String)]

    /// Every field, sorted by key (how a line format writing `key=value` in key order
    /// lists them).
    public var sorted: [(key: String, value: String)] {
        var all: [(key: String, value: String)] = [("remote", remote)]
        all.reserveCapacity(2 + extra.count)
        if let requestID { all.append(("request_id", requestID)) }
        for (k, v) in extra where k != "remote" && k != "request_id" { all.append((k, v)) }
        all.sort { $0.key < $1.key }
        return all
    }

    /// Calls `body` with every field in the order `sorted` lists them (insertion sort of
    /// their indices on the stack, stable as `sort` is): for writers of a line per request,
    /// without `sorted`'s array.
    public func forEachSorted(_ body: (_ key: String, _ value: String) -> Void) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 + extra.count) { order in
            // -2: remote, -1: request_id, k: extra[k].
            func key(_ i: Int) -> String { i == -2 ? "remote" : i == -1 ? "request_id" : extra[i].0 }
            var n = 0
            func insert(_ i: Int) {
                let k = key(i)
                var j = n
                while j > 0 && k < key(order[j - 1]) { order[j] = order[j - 1]; j -= 1 }
                order[j] = i
                n += 1
            }
            insert(-2)
            if requestID != nil { insert(-1) }
            for k in extra.indices where extra[k].0 != "remote" && extra[k].0 != "request_id" { insert(k) }
            for j in 0 ..< n {
                let i = order[j]
                body(key(i), i == -2 ? remote : i == -1 ? requestID! : extra[i].1)
            }
        }
    }

    /// UTF-8 bytes of every key and value (at least those `sorted` lists), plus 8 a field
    /// (room for a writer's separators).
    public var byteCount: Int {
        var n = 8 + 6 + remote.utf8.count + (requestID.map { 8 + 10 + $0.utf8.count } ?? 0)
        for (k, v) in extra { n += 8 + k.utf8.count + v.utf8.count }
        return n
    }

    /// The fields as swift-log metadata.
    public var metadata: Logger.Metadata {
        var m: Logger.Metadata = [:]
        for (k, v) in sorted { m[k] = .string(v) }
        return m
    }
}

/// Request ids the server makes up: a random prefix drawn once per server (so replicas
/// differ) and a counter, 24 lowercase hex digits.
final class RequestIDMaker: Sendable {
    private let prefix: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var g = SystemRandomNumberGenerator()
        prefix = g.next() & 0xFFFF_FFFF_FFFF
    }

    func next() -> String {
        let n = counter.add(1, ordering: .relaxed).newValue & 0xFFFF_FFFF_FFFF
        let prefix = self.prefix
        return String(unsafeUninitializedCapacity: 24) { out in
            for k in 0..<24 {
                let v = k < 12 ? prefix : n
                let nibble = UInt8(truncatingIfNeeded: v >> UInt64(44 - 4 * (k % 12))) & 0xF
                out[k] = nibble < 10 ? 48 + nibble : 87 + nibble
            }
            return 24
        }
    }

    /// Whether a client's id is kept: 1–128 bytes of `A-Z a-z 0-9 - _ . : + / = @` (what
    /// UUIDs, trace ids and base64 use; nothing a log line or a header would need to escape).
    static func accepts(_ id: String) -> Bool {
        var id = id
        return id.withUTF8 { u in
            guard (1...128).contains(u.count) else { return false }
            for b in u {
                switch b {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                     UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                     UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "@"):
                    continue
                default:
                    return false
                }
            }
            return true
        }
    }
}

/// The text of one access log line, written as bytes into a caller's buffer (string
/// interpolation costs several times more per request).
struct AccessLine {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0

    /// `buffer` must hold what will be appended (see `room(for:)`).
    init(_ buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// Bytes needed for the strings of a line (escaped, at worst) plus its numbers and
    /// separators.
    static func room(for strings: String...) -> Int {
        strings.reduce(96) { $0 + 4 * $1.utf8.count }
    }

    private mutating func put(_ p: UnsafeRawPointer, _ n: Int) {
        precondition(count + n <= capacity, "access line buffer too small")
        (base + count).copyMemory(from: p, byteCount: n)
        count += n
    }

    mutating func append(_ s: StaticString) {
        put(s.utf8Start, s.utf8CodeUnitCount)
    }

    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { if let p = $0.baseAddress { put(p, $0.count) } }
    }

    /// Decimal, as `String(n)` writes it.
    mutating func append(_ n: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: a sign and 20 digits fit
        let used = withUnsafeMutableBytes(of: &digits) { buf -> Int in
            var v = n.magnitude
            var k = 0
            repeat {
                buf[23 - k] = UInt8(truncatingIfNeeded: 48 &+ v % 10)
                v /= 10
                k += 1
            } while v != 0
            if n < 0 { buf[23 - k] = UInt8(ascii: "-"); k += 1 }
            return k
        }
        withUnsafeBytes(of: &digits) { put($0.baseAddress! + (24 - used), used) }
    }

    /// A client-controlled text (method, path), safe for a log line: control characters
    /// (C0, DEL, C1), space, backslash, the Unicode line and paragraph separators and bidi
    /// controls, and bytes that are not UTF-8 are written as \xNN (each byte), so that the
    /// text can neither end the line, nor hide or fake a field, nor reach the terminal as
    /// an escape sequence. `raw`: the bytes as received when `text` is their repaired
    /// decoding.
    mutating func appendEscaped(_ text: String, raw: [UInt8]? = nil) {
        if let raw {
            raw.withUnsafeBytes { appendEscaped(bytes: $0) }
        } else {
            var text = text
            text.withUTF8 { appendEscaped(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// `keepSpaces`: spaces are written as they are (free text, not a field).
    mutating func appendEscaped(bytes: UnsafeRawBufferPointer, keepSpaces: Bool = false) {
        let lowest: UInt8 = keepSpaces ? 0x1F : 0x20
        var clean = true
        for b in bytes where b <= lowest || b >= 0x7F || b == 0x5C {
            clean = false
            break
        }
        if clean {
            if let p = bytes.baseAddress { put(p, bytes.count) }
            return
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b > lowest && b < 0x7F && b != 0x5C {
                putByte(b)
                i += 1
                continue
            }
            let length = b < 0x80 ? 0 : Self.utf8SequenceLength(bytes, at: i)
            if length == 0 || Self.isUnsafeSequence(bytes, at: i, length: length) {
                for k in 0..<max(1, length) { putHex(bytes[i + k]) }
                i += max(1, length)
                continue
            }
            for k in 0..<length { putByte(bytes[i + k]) }
            i += length
        }
    }

    /// `text` escaped as `appendEscaped` does, for other log lines and metadata.
    static func escaped(_ text: String, keepSpaces: Bool = false) -> String {
        var text = text
        let lowest: UInt8 = keepSpaces ? 0x1F : 0x20
        let needs = text.withUTF8 { u in u.contains { $0 <= lowest || $0 >= 0x7F || $0 == 0x5C } }
        guard needs else { return text }
        return withUnsafeTemporaryAllocation(byteCount: 4 * text.utf8.count + 8, alignment: 1) { buffer in
            var line = AccessLine(buffer)
            text.withUTF8 { line.appendEscaped(bytes: UnsafeRawBufferPointer($0), keepSpaces: keepSpaces) }
            return String(decoding: line.bytes, as: UTF8.self)
        }
    }

    private mutating func putByte(_ b: UInt8) {
        precondition(count < capacity, "access line buffer too small")
        (base + count).storeBytes(of: b, as: UInt8.self)
        count += 1
    }

    private mutating func putHex(_ b: UInt8) {
        let digits: StaticString = "0123456789abcdef"
        putByte(UInt8(ascii: "\\"))
        putByte(UInt8(ascii: "x"))
        putByte(digits.utf8Start[Int(b >> 4)])
        putByte(digits.utf8Start[Int(b & 0xF)])
    }

    /// The length of the well-formed UTF-8 sequence starting at `i` (a byte >= 0x80), or 0.
    private static func utf8SequenceLength(_ u: UnsafeRawBufferPointer, at i: Int) -> Int {
        let b = u[i]
        func continuation(_ k: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            i + k < u.count && u[i + k] >= low && u[i + k] <= high
        }
        switch b {
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80, 0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }

    /// C1 controls (U+0080–U+009F), line and paragraph separators and bidi embeddings
    /// (U+2028–U+202E), bidi isolates (U+2066–U+2069).
    private static func isUnsafeSequence(_ u: UnsafeRawBufferPointer, at i: Int, length: Int) -> Bool {
        switch length {
        case 2: return u[i] == 0xC2 && u[i + 1] <= 0x9F
        case 3:
            guard u[i] == 0xE2 else { return false }
            return (u[i + 1] == 0x80 && (0xA8...0xAE).contains(u[i + 2]))
                || (u[i + 1] == 0x81 && (0xA6...0xA9).contains(u[i + 2]))
        default: return false
        }
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
