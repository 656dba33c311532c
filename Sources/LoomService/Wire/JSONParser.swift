/// A strict RFC 8259 JSON parser over bytes into `JSONValue`: exact line/column errors,
/// UTF-8 validation, member order kept, and a nesting limit checked before recursing, so
/// no input can overflow the stack. Requests are decoded without it (`RequestDecoder`
/// reads the bytes in one pass, and `JSONScanner.validate` checks a body without building
/// anything); it parses tests' and tools' JSON. Tokens come from `JSONScanner`.
public struct JSONParser {
    public struct SyntaxError: Error, Equatable, Sendable {
        public var message: String
        public var line: Int
        public var column: Int
        /// True when the nesting limit was hit (a `too_large` error, not malformed JSON).
        public var nestingLimit: Bool
    }

    private var scanner: JSONScanner

    /// Parse a whole document. `maxDepth` bounds array/object nesting. The parser recurses
    /// once per level (about 2.5 KB of stack per level in a debug build), so the default
    /// stays well inside an 8 MB thread stack; 10,000 levels overflowed it.
    public static func parse(_ data: [UInt8], maxDepth: Int = 1_000) throws -> JSONValue {
        try data.withUnsafeBufferPointer { try parse($0, maxDepth: maxDepth) }
    }

    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int) throws -> JSONValue {
        var p = JSONParser(scanner: JSONScanner(bytes: bytes, maxDepth: maxDepth))
        try p.scanner.beginDocument()
        let v = try p.parseValue()
        try p.scanner.endDocument()
        return v
    }

    private init(scanner: JSONScanner) { self.scanner = scanner }

    private mutating func parseValue() throws -> JSONValue {
        switch try scanner.valueStart() {
        case UInt8(ascii: "{"):
            var members: [JSONMember] = []
            guard try scanner.beginObject() else { return .object(members) }
            repeat {
                let name = try scanner.memberName()
                let key = scanner.string(name)
                members.append(JSONMember(key, try parseValue()))
            } while try scanner.nextMember()
            return .object(members)
        case UInt8(ascii: "["):
            var items: [JSONValue] = []
            guard try scanner.beginArray() else { return .array(items) }
            repeat { items.append(try parseValue()) } while try scanner.nextItem()
            return .array(items)
        case UInt8(ascii: "\""): return .string(try scanner.string())
        case UInt8(ascii: "t"): try scanner.literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try scanner.literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try scanner.literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try scanner.number())
        case let b: throw scanner.error("unexpected \(scanner.describe(b)); expected a value")
        }
    }
}
