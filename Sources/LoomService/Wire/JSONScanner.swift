import Foundation

/// The tokens and structure of RFC 8259 JSON over a byte buffer: whitespace, literals,
/// numbers, strings (escapes, UTF-8 validation), object/array punctuation and nesting,
/// each with the exact error message and line/column of the first offending byte.
///
/// Two readers stand on it and so report the same syntax errors: `JSONParser` (builds a
/// `JSONValue`) and `RequestDecoder` (builds the element tree in one pass, no `JSONValue`).
struct JSONScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var i: Int
    var depth = 0
    let maxDepth: Int
    /// Unescaped string bytes when a string holds escapes.
    var scratch: [UInt8] = []
    /// The last string that was not plain ASCII, made once while it was validated, and the
    /// offset of its opening quote: `string(_:)` returns it rather than decoding it again
    /// (set only by the string readers, JSONScannerStrings.swift).
    var validated: (open: Int, string: String)?

    init(bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        // A UTF-8 byte order mark is tolerated, as most parsers do.
        i = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
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

    func error(_ message: String, at offset: Int? = nil, nesting: Bool = false) -> JSONParser.SyntaxError {
        let (line, col) = position(of: offset ?? i)
        return JSONParser.SyntaxError(message: message, line: line, column: col, nestingLimit: nesting)
    }

    func describe(_ b: UInt8) -> String {
        if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return "byte 0x\(String(b, radix: 16))"
    }

    // MARK: document

    /// The first byte of the next value, after whitespace (an error at the end of input).
    @inline(__always) mutating func valueStart() throws -> UInt8 {
        skipWhitespace()
        guard i < bytes.count else { throw error("unexpected end of input; expected a value") }
        return bytes[i]
    }

    mutating func beginDocument() throws {
        skipWhitespace()
        if i >= bytes.count { throw error("the body is empty; expected a JSON value") }
    }

    /// Checks that the whole of `bytes` is one JSON value, building nothing.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws {
        var s = JSONScanner(bytes: bytes, maxDepth: maxDepth)
        try s.beginDocument()
        try s.skipValue()
        try s.endDocument()
    }

    mutating func endDocument() throws {
        skipWhitespace()
        if i < bytes.count { throw error("unexpected \(describe(bytes[i])) after the JSON value") }
    }

    @inline(__always) mutating func skipWhitespace() {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { i += 1 } else { return }
        }
    }

    /// What a value starting with `b` is, for messages ("must be a number, not a string").
    static func kind(of b: UInt8) -> String {
        switch b {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        default: return "a number"
        }
    }

    // MARK: structure

    @inline(__always) private mutating func enter() throws {
        depth += 1
        if depth > maxDepth { throw nestingError() }
    }

    private func nestingError() -> JSONParser.SyntaxError {
        error("JSON nested deeper than \(maxDepth) levels", nesting: true)
    }

    /// At '{': enters the object; false when it is empty (and already closed).
    @inline(__always) mutating func beginObject() throws -> Bool {
        try enter()
        i += 1
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return false }
        return true
    }

    /// A member name and its ':'; returns where the name's bytes are (see `withKey`).
    @inline(__always) mutating func memberName() throws -> StringToken {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw memberNameError() }
        let token = try stringToken()
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw colonError() }
        i += 1
        return token
    }

    /// At a member name: when it is name `index` of `table`, written without escapes, passes
    /// over it and its ':' and returns true; else moves nothing (but whitespace) and returns false.
    @inline(__always) mutating func memberName<V>(_ index: Int, of table: NameTable<V>) -> Bool {
        skipWhitespace()
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let base = bytes.baseAddress else { return false }
        let n = table.quotedLength(of: index, at: base + i + 1, readable: bytes.count - i - 1)
        guard n != 0 else { return false }
        var k = i + 1 + n
        while k < bytes.count, bytes[k] == 0x20 || bytes[k] == 0x0A || bytes[k] == 0x0D || bytes[k] == 0x09 { k += 1 }
        guard k < bytes.count, bytes[k] == UInt8(ascii: ":") else { return false }
        i = k + 1
        return true
    }

    /// At a string value's '"': when it is name `index` of `table`, written without escapes,
    /// passes over it and returns true; else moves nothing and returns false.
    @inline(__always) mutating func stringValue<V>(_ index: Int, of table: NameTable<V>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let n = table.quotedLength(of: index, at: base + i + 1, readable: bytes.count - i - 1)
        i += n == 0 ? 0 : 1 + n
        return n != 0
    }

    private func memberNameError() -> JSONParser.SyntaxError {
        guard i < bytes.count else { return error("unexpected end of input in an object") }
        return error("expected a member name in double quotes, found \(describe(bytes[i]))")
    }

    private func colonError() -> JSONParser.SyntaxError {
        error(i < bytes.count ? "expected ':' after a member name, found \(describe(bytes[i]))" : "unexpected end of input in an object")
    }

    /// After a member's value: true when another member follows, false at '}'.
    @inline(__always) mutating func nextMember() throws -> Bool {
        skipWhitespace()
        if i < bytes.count {
            if bytes[i] == UInt8(ascii: ",") { i += 1; return true }
            if bytes[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return false }
        }
        throw nextMemberError()
    }

    private func nextMemberError() -> JSONParser.SyntaxError {
        guard i < bytes.count else { return error("unexpected end of input in an object") }
        return error("expected ',' or '}' in an object, found \(describe(bytes[i]))")
    }

    /// At '[': enters the array; false when it is empty (and already closed).
    mutating func beginArray() throws -> Bool {
        try enter()
        i += 1
        skipWhitespace()
        if i < bytes.count && bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return false }
        return true
    }

    /// After an item: true when another item follows, false at ']'.
    mutating func nextItem() throws -> Bool {
        skipWhitespace()
        guard i < bytes.count else { throw error("unexpected end of input in an array") }
        if bytes[i] == UInt8(ascii: ",") { i += 1; return true }
        if bytes[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return false }
        throw error("expected ',' or ']' in an array, found \(describe(bytes[i]))")
    }

    /// Checks and passes over one value of any kind.
    mutating func skipValue() throws {
        switch try valueStart() {
        case UInt8(ascii: "{"):
            guard try beginObject() else { return }
            repeat {
                _ = try memberName()
                try skipValue()
            } while try nextMember()
        case UInt8(ascii: "["):
            guard try beginArray() else { return }
            repeat { try skipValue() } while try nextItem()
        case UInt8(ascii: "\""): _ = try stringToken()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try number()
        default: throw error("unexpected \(describe(bytes[i])); expected a value")
        }
    }

    // MARK: scalars

    mutating func literal(_ word: StaticString) throws {
        let n = word.utf8CodeUnitCount
        let start = i
        guard i + n <= bytes.count else { throw error("invalid literal", at: start) }
        let p = word.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { throw error("invalid literal", at: start) }
        i += n
    }

    @inline(__always) private func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    /// A number; integers of up to 15 digits are read here, everything else by `numberSlow`.
    @inline(__always) mutating func number() throws -> Double {
        var k = i
        var negative = false
        if bytes[k] == UInt8(ascii: "-") { negative = true; k += 1 }
        // Up to 7 digits and the byte after them, from one 8-byte load, without a branch per digit.
        if k + 8 <= bytes.count, let base = bytes.baseAddress {
            let w = UInt64(littleEndian: UnsafeRawPointer(base + k).loadUnaligned(as: UInt64.self))
            let digits = Self.leadingDigits(w)
            if digits > 0 && digits < 8 {
                let next = UInt8(truncatingIfNeeded: w >> UInt64(8 * digits))
                guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
                      digits == 1 || UInt8(truncatingIfNeeded: w) != UInt8(ascii: "0") else { return try numberSlow() }
                i = k + digits
                let v = Double(Self.digitsValue(w, digits))
                return negative ? -v : v
            }
        }
        var integer: UInt64 = 0
        let first = k
        while k < bytes.count, isDigit(bytes[k]) {
            integer = integer &* 10 &+ UInt64(bytes[k] &- 48)
            k += 1
        }
        let digits = k - first
        if digits > 0 && digits <= 15 && (digits == 1 || bytes[first] != UInt8(ascii: "0")) {
            let next = k < bytes.count ? bytes[k] : 0
            if next != UInt8(ascii: ".") && next != UInt8(ascii: "e") && next != UInt8(ascii: "E") {
                i = k
                let v = Double(integer)
                return negative ? -v : v
            }
        }
        return try numberSlow()
    }

    /// How many of the 8 bytes of `w` (little-endian: the first byte lowest) are ASCII digits
    /// before the first that is not (8 when all are). A byte is a digit when its high nibble,
    /// and the high nibble of it plus 6, are both 3; a carry out of a byte reaches only later bytes.
    @inline(__always) static func leadingDigits(_ w: UInt64) -> Int {
        let nibbles: UInt64 = 0xF0F0_F0F0_F0F0_F0F0
        let x = (w & nibbles) | (((w &+ 0x0606_0606_0606_0606) & nibbles) >> 4)
        let d = x ^ 0x3333_3333_3333_3333  // a byte is 0 exactly for a digit
        let nonDigit = (((d & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | d) & 0x8080_8080_8080_8080
        return nonDigit.trailingZeroBitCount / 8
    }

    /// The value of the first `n` (1 to 7) bytes of `w`, all ASCII digits: moved to the top
    /// bytes (the bytes below are leading zeros), then pairs, fours and eights combined.
    @inline(__always) static func digitsValue(_ w: UInt64, _ n: Int) -> UInt64 {
        var v = (w &- 0x3030_3030_3030_3030) << UInt64(8 * (8 - n))
        v = (v &* 10) &+ (v >> 8)
        v = ((v & 0x00FF_00FF_00FF_00FF) &* (100 << 16 + 1)) >> 16
        v = ((v & 0x0000_FFFF_0000_FFFF) &* (10_000 << 32 + 1)) >> 32
        return v
    }

    private mutating func numberSlow() throws -> Double {
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
        // Correctly rounded conversion of the validated token (NUL-terminated copy; tokens
        // of ordinary length stay on the stack).
        let count = i - start
        let token = bytes.baseAddress! + start
        if count < 64 {
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { buffer in
                UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: token, byteCount: count)
                buffer[count] = 0
                return strtod(buffer.baseAddress!, nil)
            }
        }
        var copy = [CChar](repeating: 0, count: count + 1)
        copy.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: token, byteCount: count) }
        return strtod(copy, nil)
    }
}
