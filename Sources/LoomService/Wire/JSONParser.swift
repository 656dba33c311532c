import Foundation

/// A strict RFC 8259 JSON parser over bytes: exact line/column errors, UTF-8 validation,
/// member order kept, and a nesting limit checked before recursing, so no input can
/// overflow the stack. Written for the wire format because Foundation's parser loses member
/// order, refuses nesting over 512 and costs more than the layout itself (see README).
public struct JSONParser {
    public struct SyntaxError: Error, Equatable, Sendable {
        public var message: String
        public var line: Int
        public var column: Int
        /// True when the nesting limit was hit (a `too_large` error, not malformed JSON).
        public var nestingLimit: Bool
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private var i = 0
    private var depth = 0
    private let maxDepth: Int
    private var scratch: [UInt8] = []

    /// Parse a whole document. `maxDepth` bounds array/object nesting. The parser recurses
    /// once per level (about 2.5 KB of stack per level in a debug build), so the default
    /// stays well inside an 8 MB thread stack; 10,000 levels overflowed it.
    public static func parse(_ data: [UInt8], maxDepth: Int = 1_000) throws -> JSONValue {
        try data.withUnsafeBufferPointer { buf in
            var p = JSONParser(bytes: buf, maxDepth: maxDepth)
            return try p.parseDocument()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    private mutating func parseDocument() throws -> JSONValue {
        // A UTF-8 byte order mark is tolerated, as most parsers do.
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { i = 3 }
        skipWhitespace()
        if i >= bytes.count { throw error("the body is empty; expected a JSON value") }
        let v = try parseValue()
        skipWhitespace()
        if i < bytes.count { throw error("unexpected \(describe(bytes[i])) after the JSON value") }
        return v
    }

    // MARK: errors

    private func position(of offset: Int) -> (Int, Int) {
        var line = 1, col = 1
        var k = 0
        let end = Swift.min(offset, bytes.count)
        while k < end {
            let b = bytes[k]
            if b == 0x0A { line += 1; col = 1 } else if b & 0xC0 != 0x80 { col += 1 }
            k += 1
        }
        return (line, col)
    }

    private func error(_ message: String, at offset: Int? = nil, nesting: Bool = false) -> SyntaxError {
        let (line, col) = position(of: offset ?? i)
        return SyntaxError(message: message, line: line, column: col, nestingLimit: nesting)
    }

    private func describe(_ b: UInt8) -> String {
        if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    // MARK: values

    @inline(__always) private mutating func skipWhitespace() {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { return }
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        guard i < bytes.count else { throw error("unexpected end of input; expected a value") }
        switch bytes[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("unexpected \(describe(bytes[i])); expected a value")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        let start = i
        guard i + n <= bytes.count else { throw error("invalid literal", at: start) }
        let p = word.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { throw error("invalid literal", at: start) }
        i += n
    }

    private mutating func enter() throws {
        depth += 1
        if depth > maxDepth { throw error("JSON nested deeper than \(maxDepth) levels", nesting: true) }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        i += 1
        var members: [JSONMember] = []
        members.reserveCapacity(8)
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(members) }
        while true {
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input in an object") }
            guard bytes[i] == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes, found \(describe(bytes[i]))") }
            let key = try parseString()
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                throw error(i < bytes.count ? "expected ':' after a member name, found \(describe(bytes[i]))" : "unexpected end of input in an object")
            }
            i += 1
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONMember(key, value))
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input in an object") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "}") { i += 1; break }
            throw error("expected ',' or '}' in an object, found \(describe(bytes[i]))")
        }
        depth -= 1
        return .object(members)
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        i += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(items) }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard i < bytes.count else { throw error("unexpected end of input in an array") }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            if bytes[i] == UInt8(ascii: "]") { i += 1; break }
            throw error("expected ',' or ']' in an array, found \(describe(bytes[i]))")
        }
        depth -= 1
        return .array(items)
    }

    private mutating func parseNumber() throws -> Double {
        let start = i
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        guard i < bytes.count, isDigit(bytes[i]) else { throw error("invalid number", at: start) }
        var integer: UInt64 = 0
        var digits = 0
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if i < bytes.count && isDigit(bytes[i]) { throw error("invalid number: leading zero", at: start) }
        } else {
            while i < bytes.count && isDigit(bytes[i]) {
                if digits < 18 { integer = integer &* 10 &+ UInt64(bytes[i] &- 48) }
                digits += 1
                i += 1
            }
        }
        var simple = digits <= 15
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            simple = false
            i += 1
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("invalid number: digits expected after '.'", at: start) }
            while i < bytes.count && isDigit(bytes[i]) { i += 1 }
        }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            simple = false
            i += 1
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            guard i < bytes.count, isDigit(bytes[i]) else { throw error("invalid number: digits expected in the exponent", at: start) }
            while i < bytes.count && isDigit(bytes[i]) { i += 1 }
        }
        if simple {
            let v = Double(integer)
            return negative ? -v : v
        }
        // Correctly rounded conversion of the validated token.
        let token = UnsafeBufferPointer(rebasing: bytes[start..<i])
        return token.withMemoryRebound(to: CChar.self) { chars in
            var buffer = [CChar](repeating: 0, count: chars.count + 1)
            for k in 0..<chars.count { buffer[k] = chars[k] }
            return strtod(buffer, nil)
        }
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    private mutating func parseString() throws -> String {
        let open = i
        i += 1
        let start = i
        // Fast path: no escapes, no control characters; ASCII needs no validation.
        var ascii = true
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
                i += 1
                if ascii {
                    return String(unsafeUninitializedCapacity: slice.count) { out in
                        _ = out.initialize(from: slice)
                        return slice.count
                    }
                }
                guard let s = String(validating: slice, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string", at: open)
                }
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            if b >= 0x80 { ascii = false }
            i += 1
        }
        // Slow path: escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
        while true {
            guard i < bytes.count else { throw error("unterminated string", at: open) }
            let b = bytes[i]
            if b == UInt8(ascii: "\"") { i += 1; break }
            if b < 0x20 { throw error("control character in a string (escape it)") }
            if b != UInt8(ascii: "\\") { scratch.append(b); i += 1; continue }
            i += 1
            guard i < bytes.count else { throw error("unterminated string", at: open) }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): scratch.append(0x22)
            case UInt8(ascii: "\\"): scratch.append(0x5C)
            case UInt8(ascii: "/"): scratch.append(0x2F)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                        throw error("unpaired surrogate in a \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw error("unpaired surrogate in a \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw error("unpaired surrogate in a \\u escape")
                }
                guard let u = UnicodeScalar(scalar) else { throw error("invalid \\u escape") }
                scratch.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'", at: i - 2)
            }
        }
        guard let s = String(validating: scratch, as: UTF8.self) else { throw error("invalid UTF-8 in a string", at: open) }
        return s
    }

    private mutating func hex4() throws -> UInt32 {
        guard i + 4 <= bytes.count else { throw error("truncated \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt32
            switch b {
            case 48...57: d = UInt32(b - 48)
            case 65...70: d = UInt32(b - 55)
            case 97...102: d = UInt32(b - 87)
            default: throw error("invalid hex digit in a \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }
}
