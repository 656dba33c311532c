import Foundation

// The strings of `JSONScanner`: escapes, UTF-8 validation, and the tokens and `String`s the
// readers take from them.
extension JSONScanner {

    /// The high bit of each of the 8 bytes of a word (computed: a stored static is a lazy
    /// global, checked at every read).
    @inline(__always) static var highBits: UInt64 { 0x8080_8080_8080_8080 }

    /// The bytes of `w` (little-endian: the first byte lowest) that end a plain run inside a
    /// string, '"', '\\' or below 0x20, as their high bits; a byte above 0x7F is never
    /// flagged. Each test flags its true matches, and wrongly only bytes above one, so the
    /// lowest flagged byte is always a true one.
    @inline(__always) static func stoppingBytes(_ w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = w ^ 0x2222_2222_2222_2222, backslash = w ^ 0x5C5C_5C5C_5C5C_5C5C
        return (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((w &- 0x2020_2020_2020_2020) & ~w)) & highBits
    }

    /// Where a string's content is: `start..<end` of `bytes`, or `scratch` when it held
    /// escapes. Valid until the next string is read.
    struct StringToken {
        var start: Int
        var end: Int
        var escaped: Bool
        var ascii: Bool
        /// Offset of the opening quote (for messages).
        var open: Int
    }

    /// Reads a string at '"', checking escapes and UTF-8.
    @inline(__always) mutating func stringToken() throws -> StringToken {
        let open = i
        var k = i + 1
        // Fast path: ASCII without escapes or control characters, eight bytes at a time
        // while eight remain: the lowest byte that stops the string or is above 0x7F.
        if let base = bytes.baseAddress {
            while k + 8 <= bytes.count {
                let w = UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self))
                let flagged = Self.stoppingBytes(w) | (w & Self.highBits)
                if flagged != 0 {
                    let j = k + flagged.trailingZeroBitCount / 8
                    guard base[j] == UInt8(ascii: "\"") else { return try stringTokenSlow() }
                    i = j + 1
                    return StringToken(start: open + 1, end: j, escaped: false, ascii: true, open: open)
                }
                k += 8
            }
        }
        while k < bytes.count {
            let b = bytes[k]
            if b == UInt8(ascii: "\"") {
                i = k + 1
                return StringToken(start: open + 1, end: k, escaped: false, ascii: true, open: open)
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            k += 1
        }
        return try stringTokenSlow()
    }

    private mutating func stringTokenSlow() throws -> StringToken {
        let open = i
        i += 1
        let start = i
        var ascii = true
        // Eight bytes at a time while eight remain, as in `stringToken`, but passing over
        // bytes above 0x7F (only noted): the lowest byte that stops the string stops the scan.
        if let base = bytes.baseAddress {
            var high: UInt64 = 0
            while i + 8 <= bytes.count {
                let w = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
                let flagged = Self.stoppingBytes(w)
                if flagged != 0 {
                    let below = flagged.trailingZeroBitCount / 8
                    high |= w & Self.highBits & ((1 << UInt64(8 * below)) &- 1)
                    i += below
                    break
                }
                high |= w & Self.highBits
                i += 8
            }
            ascii = high == 0
        }
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                let token = StringToken(start: start, end: i, escaped: false, ascii: ascii, open: open)
                i += 1
                if !ascii {
                    guard let string = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<token.end]), as: UTF8.self)
                    else { throw error("invalid UTF-8 in a string", at: open) }
                    validated = (open, string)
                }
                return token
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
                scratch.append(contentsOf: String(Character(u)).utf8)
            default:
                throw error("invalid escape '\\\(Character(UnicodeScalar(e)))'", at: i - 2)
            }
        }
        guard let string = String(validating: scratch, as: UTF8.self) else { throw error("invalid UTF-8 in a string", at: open) }
        validated = (open, string)
        return StringToken(start: 0, end: scratch.count, escaped: true, ascii: false, open: open)
    }

    /// The content bytes of `token` (read just now).
    @inline(__always) func withBytes<T>(_ token: StringToken, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        if token.escaped { return try scratch.withUnsafeBufferPointer(body) }
        return try body(UnsafeBufferPointer(rebasing: bytes[token.start..<token.end]))
    }

    /// The position of the name `token` (read just now) in `table`. An unescaped name lies
    /// in the body, so what follows it there may be read too (a short name loads as one word).
    @inline(__always) func index<V>(of token: StringToken, in table: NameTable<V>) -> Int? {
        let readable = token.escaped ? 0 : bytes.count - token.start
        return withBytes(token) { table.index(of: $0, readable: readable) }
    }

    /// The string `token` (read just now).
    func string(_ token: StringToken) -> String {
        if !token.ascii, let validated, validated.open == token.open { return validated.string }
        return withBytes(token) { slice in
            if token.ascii {
                return String(unsafeUninitializedCapacity: slice.count) { out in
                    _ = out.initialize(from: slice)
                    return slice.count
                }
            }
            return String(decoding: slice, as: UTF8.self) // validated when read
        }
    }

    mutating func string() throws -> String {
        let token = try stringToken()  // first: `string(_:)` reads the scratch it fills
        return string(token)
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
