import Foundation
import LoomService
import XCTest

final class JSONParserTests: XCTestCase {
    private func parse(_ s: String, maxDepth: Int? = nil) throws -> JSONValue {
        if let maxDepth { return try JSONParser.parse(Array(s.utf8), maxDepth: maxDepth) }
        return try JSONParser.parse(Array(s.utf8))
    }

    private func parseError(_ b: [UInt8], maxDepth: Int? = nil,
                            file: StaticString = #filePath, line: UInt = #line) -> JSONParser.SyntaxError? {
        do {
            let v = try maxDepth.map { try JSONParser.parse(b, maxDepth: $0) } ?? JSONParser.parse(b)
            XCTFail("parsed \(v) but expected an error", file: file, line: line)
            return nil
        } catch let e as JSONParser.SyntaxError {
            return e
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    /// Asserts a syntax error at `line`:`column` (1-based, columns count characters).
    private func assertError(_ s: String, line l: Int, column c: Int, contains fragment: String? = nil,
                             file: StaticString = #filePath, line: UInt = #line) {
        assertError(Array(s.utf8), line: l, column: c, contains: fragment, file: file, line: line)
    }

    private func assertError(_ b: [UInt8], line l: Int, column c: Int, contains fragment: String? = nil,
                             file: StaticString = #filePath, line: UInt = #line) {
        guard let e = parseError(b, file: file, line: line) else { return }
        XCTAssertEqual(e.line, l, "line of \(e)", file: file, line: line)
        XCTAssertEqual(e.column, c, "column of \(e)", file: file, line: line)
        XCTAssertFalse(e.nestingLimit, file: file, line: line)
        if let fragment {
            XCTAssertTrue(e.message.contains(fragment), "'\(e.message)' should contain '\(fragment)'", file: file, line: line)
        }
    }

    private func number(_ s: String, file: StaticString = #filePath, line: UInt = #line) -> Double? {
        do {
            guard case .number(let d) = try parse(s) else { XCTFail("\(s) is not a number", file: file, line: line); return nil }
            return d
        } catch {
            XCTFail("\(s): \(error)", file: file, line: line)
            return nil
        }
    }

    // MARK: valid documents

    func testLiteralsAndContainers() throws {
        XCTAssertEqual(try parse("null"), .null)
        XCTAssertEqual(try parse("true"), .bool(true))
        XCTAssertEqual(try parse("false"), .bool(false))
        XCTAssertEqual(try parse("[]"), .array([]))
        XCTAssertEqual(try parse("{}"), .object([]))
        XCTAssertEqual(try parse(" \t\r\n[ 1 ,\n\t2 ]\r\n "), .array([.number(1), .number(2)]))
        XCTAssertEqual(try parse(#"{"a": [true, null, {"b": "c"}], "d": {}}"#),
                       .object([JSONMember("a", .array([.bool(true), .null, .object([JSONMember("b", .string("c"))])])),
                                JSONMember("d", .object([]))]))
        // A UTF-8 byte order mark is tolerated.
        XCTAssertEqual(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)), .array([.number(1)]))
    }

    func testMemberOrderIsKeptAndDuplicatesAreKept() throws {
        let v = try parse(#"{"zeta": 1, "alpha": 2, "mid": 3, "alpha": 4}"#)
        guard case .object(let members) = v else { return XCTFail("not an object") }
        XCTAssertEqual(members.map(\.key), ["zeta", "alpha", "mid", "alpha"])
        XCTAssertEqual(members.map(\.value), [.number(1), .number(2), .number(3), .number(4)])
    }

    func testNumbers() {
        XCTAssertEqual(number("0"), 0)
        XCTAssertEqual(number("42"), 42)
        XCTAssertEqual(number("-17"), -17)
        XCTAssertEqual(number("1.5"), 1.5)
        XCTAssertEqual(number("0.1"), 0.1)              // correctly rounded, same double as the literal
        XCTAssertEqual(number("1e3"), 1000)
        XCTAssertEqual(number("1E3"), 1000)
        XCTAssertEqual(number("1e+3"), 1000)
        XCTAssertEqual(number("25e-1"), 2.5)
        XCTAssertEqual(number("-12.5e+1"), -125)
        XCTAssertEqual(number("5e1"), 50)
        XCTAssertEqual(number("50.0"), 50)
        XCTAssertEqual(number("36.666666666666664"), 110.0 / 3.0)
        XCTAssertEqual(number("1.7976931348623157e308"), Double.greatestFiniteMagnitude)
        XCTAssertEqual(number("5e-324"), Double.leastNonzeroMagnitude)
        XCTAssertEqual(number("123456789012345"), 123_456_789_012_345)          // 15 digits
        XCTAssertEqual(number("1234567890123456789"), 1234567890123456789.0)     // 19 digits
        XCTAssertEqual(number("12345678901234567890123"), 12345678901234567890123.0)
        XCTAssertEqual(number("9007199254740993"), 9_007_199_254_740_992)       // 2^53 + 1 rounds to even
        // Out of range: +inf (the decoder rejects it as "not finite").
        XCTAssertEqual(number("1e400"), .infinity)
        XCTAssertEqual(number("-1e400"), -.infinity)
        XCTAssertEqual(number("1e-400"), 0)
    }

    func testNegativeZeroKeepsItsSign() {
        let z = number("-0")
        XCTAssertEqual(z, 0)
        XCTAssertEqual(z?.sign, .minus)
        XCTAssertEqual(number("-0.0")?.sign, .minus)
        XCTAssertEqual(number("-0e5")?.sign, .minus)
        XCTAssertEqual(number("0")?.sign, .plus)
    }

    func testStringEscapes() throws {
        XCTAssertEqual(try parse(#""\"\\\/\b\f\n\r\t""#), .string("\"\\/\u{8}\u{C}\n\r\t"))
        XCTAssertEqual(try parse(#""\u0041\u00e9\u00E9\u20AC""#), .string("Aéé€"))
        XCTAssertEqual(try parse(#""\u0000""#), .string("\u{0}"))
        XCTAssertEqual(try parse(#""plain ascii""#), .string("plain ascii"))
        XCTAssertEqual(try parse(#""mixed \n then é and 😀 raw""#), .string("mixed \n then é and 😀 raw"))
        XCTAssertEqual(try parse("\"é日本😀\""), .string("é日本😀"))
        XCTAssertEqual(try parse(#""""#), .string(""))
    }

    func testSurrogatePairs() throws {
        XCTAssertEqual(try parse(#""\ud83d\ude00""#), .string("😀"))
        XCTAssertEqual(try parse(#""\uD834\uDD1E""#), .string("𝄞"))
        XCTAssertEqual(try parse(#""a\ud83d\ude00b""#), .string("a😀b"))
        // Unpaired surrogates are errors.
        assertError(#""\ud83d""#, line: 1, column: 8, contains: "surrogate")
        assertError(#""\ude00""#, line: 1, column: 8, contains: "surrogate")
        assertError(#""\ud83d\u0041""#, line: 1, column: 14, contains: "surrogate")
        assertError(#""\ud83dx""#, line: 1, column: 8, contains: "surrogate")
    }

    // MARK: errors with positions

    func testMissingCommaOnLine3() {
        let doc = "{\n  \"a\": 1\n  \"b\": 2\n}"
        assertError(doc, line: 3, column: 3, contains: "','")
        let array = "[\n  1,\n  2\n  3\n]"
        assertError(array, line: 4, column: 3, contains: "','")
    }

    func testColumnsCountCharactersNotBytes() {
        // `{"é": 1 x}`: { " é " : space 1 space x → x is the 9th character (é is 2 bytes).
        assertError("{\"é\": 1 x}", line: 1, column: 9)
        assertError("[\"😀\" 2]", line: 1, column: 6)
        // CRLF line ends: the \r counts as a character of the line, the \n starts a new one.
        assertError("[1,\r\n 2 3]", line: 2, column: 4)
    }

    func testInvalidUTF8() {
        // Lone continuation byte, invalid lead byte, truncated sequence, overlong encoding,
        // encoded surrogate — all inside a string: the error points at its opening quote.
        for bad: [UInt8] in [[0x80], [0xFF], [0xE2, 0x82], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]] {
            let doc: [UInt8] = Array("[1, \"ab".utf8) + bad + Array("cd\"]".utf8)
            guard let e = parseError(doc) else { continue }
            XCTAssertEqual(e.line, 1)
            XCTAssertEqual(e.column, 5, "\(bad)")
            XCTAssertTrue(e.message.contains("UTF-8"), e.message)
        }
        // Invalid bytes in a member name and in an escaped string.
        let key: [UInt8] = Array("{\"a".utf8) + [0xFE] + Array("\": 1}".utf8)
        XCTAssertTrue(parseError(key)?.message.contains("UTF-8") ?? false)
        let escaped: [UInt8] = Array("[\"\\n".utf8) + [0xC3] + Array("\"]".utf8)
        XCTAssertTrue(parseError(escaped)?.message.contains("UTF-8") ?? false)
        // Outside a string.
        assertError([0xFF], line: 1, column: 1, contains: "0xff")
        assertError(Array("[1]".utf8) + [0xFF], line: 1, column: 4, contains: "after the JSON value")
    }

    func testControlCharactersInStrings() {
        assertError("[\"a\tb\"]", line: 1, column: 4, contains: "control character")
        assertError("[\"a\nb\"]", line: 1, column: 4, contains: "control character")
        assertError([UInt8(ascii: "\""), 0x01, UInt8(ascii: "\"")], line: 1, column: 2, contains: "control character")
        // After an escape (slow path) too.
        assertError("\"\\n\u{1F}\"", line: 1, column: 4, contains: "control character")
    }

    func testUnterminatedStrings() {
        assertError("\"abc", line: 1, column: 1, contains: "unterminated")
        assertError("[1,\n \"abc", line: 2, column: 2, contains: "unterminated")
        assertError("\"abc\\", line: 1, column: 1, contains: "unterminated")
        assertError("\"ab\\n", line: 1, column: 1, contains: "unterminated")
        assertError("{\"key", line: 1, column: 2, contains: "unterminated")
    }

    func testInvalidEscapes() {
        assertError(#""a\xb""#, line: 1, column: 3, contains: "escape")
        assertError(#""\u12G4""#, line: 1, column: 6, contains: "hex")
        assertError(#""\u12""#, line: 1, column: 4)
    }

    func testTrailingGarbage() {
        assertError("{} x", line: 1, column: 4, contains: "after the JSON value")
        assertError("[1] [2]", line: 1, column: 5, contains: "after the JSON value")
        assertError("1 2", line: 1, column: 3, contains: "after the JSON value")
        assertError("{\"a\":1}\n}", line: 2, column: 1, contains: "after the JSON value")
        assertError("0x10", line: 1, column: 2)
        assertError("nulll", line: 1, column: 5)
    }

    func testEmptyBody() {
        assertError("", line: 1, column: 1, contains: "empty")
        assertError("  \n\t ", line: 2, column: 3, contains: "empty")
        assertError([0xEF, 0xBB, 0xBF], line: 1, column: 2, contains: "empty")
    }

    func testInvalidTokens() {
        assertError("tru", line: 1, column: 1, contains: "literal")
        assertError("True", line: 1, column: 1)
        assertError("[nul]", line: 1, column: 2, contains: "literal")
        assertError("NaN", line: 1, column: 1)
        assertError("Infinity", line: 1, column: 1)
        assertError("[-Infinity]", line: 1, column: 2, contains: "number")
        assertError("01", line: 1, column: 1, contains: "leading zero")
        assertError("[-01]", line: 1, column: 2, contains: "leading zero")
        assertError("1.", line: 1, column: 1, contains: "number")
        assertError(".5", line: 1, column: 1)
        assertError("+1", line: 1, column: 1)
        assertError("-", line: 1, column: 1, contains: "number")
        assertError("1e", line: 1, column: 1, contains: "exponent")
        assertError("1e+", line: 1, column: 1, contains: "exponent")
        assertError("[1,]", line: 1, column: 4, contains: "expected a value")
        assertError("{\"a\":1,}", line: 1, column: 8, contains: "member name")
        assertError("{'a':1}", line: 1, column: 2, contains: "member name")
        assertError("{\"a\" 1}", line: 1, column: 6, contains: "':'")
        assertError("{\"a\":}", line: 1, column: 6, contains: "expected a value")
        assertError("// comment\n{}", line: 1, column: 1)
        assertError("[1", line: 1, column: 3, contains: "end of input")
        assertError("{\"a\":1", line: 1, column: 7, contains: "end of input")
        assertError("{\"a\"", line: 1, column: 5, contains: "end of input")
        assertError("[", line: 1, column: 2, contains: "end of input")
    }

    // MARK: nesting limit

    func testDeepArraysHitTheNestingLimitWithoutCrashing() {
        let open = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let e = parseError(open)
        XCTAssertEqual(e?.nestingLimit, true)
        XCTAssertEqual(e?.line, 1)
        // With the default limit (1,000 levels) the 1,001st bracket is the one over it.
        XCTAssertEqual(e?.column, 1_001)
        // Balanced, too.
        let balanced = open + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        XCTAssertEqual(parseError(balanced)?.nestingLimit, true)
    }

    func testDeepObjectsHitTheNestingLimitWithoutCrashing() {
        var doc: [UInt8] = []
        doc.reserveCapacity(500_000)
        for _ in 0..<100_000 { doc += Array("{\"a\":".utf8) }
        doc += Array("1".utf8)
        doc += [UInt8](repeating: UInt8(ascii: "}"), count: 100_000)
        let e = parseError(doc)
        XCTAssertEqual(e?.nestingLimit, true)
        XCTAssertTrue(e?.message.contains("1000") ?? false, e?.message ?? "")
    }

    func testNestingExactlyAtTheLimitParses() throws {
        let depth = 64
        let doc = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        XCTAssertNoThrow(try parse(doc, maxDepth: depth))
        let e = parseError(Array(("[" + doc + "]").utf8), maxDepth: depth)
        XCTAssertEqual(e?.nestingLimit, true)
        XCTAssertEqual(e?.column, depth + 1)
        // Siblings do not add depth.
        let wide = "[" + Array(repeating: "[[]]", count: 1000).joined(separator: ",") + "]"
        XCTAssertNoThrow(try parse(wide, maxDepth: 3))
    }

    func testSyntaxErrorsAreNotNestingErrors() {
        XCTAssertEqual(parseError(Array("[[[1,]]]".utf8))?.nestingLimit, false)
    }

    // MARK: through the decoder and the service

    func testDeepBodiesAre413AndMalformedBodiesAre400() {
        let service = LayoutService(textMeasurer: nil)
        let deep = service.layout(body: [UInt8](repeating: UInt8(ascii: "["), count: 100_000))
        XCTAssertEqual(deep.status, 413)
        XCTAssertEqual(Svc.error(deep.body)["code"] as? String, "too_large")

        var objects: [UInt8] = Array("{\"root\":".utf8)
        for _ in 0..<100_000 { objects += Array("{\"a\":".utf8) }
        let deepObjects = service.layout(body: objects)
        XCTAssertEqual(deepObjects.status, 413)

        let bad = service.layout(body: Array("{\n \"root\": {\"type\": \"node\"}\n \"scale\": 2}".utf8))
        XCTAssertEqual(bad.status, 400)
        let error = Svc.error(bad.body)
        XCTAssertEqual(error["code"] as? String, "malformed_json")
        let message = error["message"] as? String ?? ""
        XCTAssertTrue(message.contains("line 3"), message)
        XCTAssertTrue(message.contains("column 2"), message)
        XCTAssertNil(error["path"])
    }

    /// Strings are scanned eight bytes at a time: a quote, an escape, a control character
    /// or a non-ASCII byte at every position of the first words (and after them) must end
    /// the fast scan exactly there.
    func testStringsWithSpecialBytesAtEveryPosition() throws {
        let specials: [(json: String, value: String)] = [("\\\"", "\""), ("\\\\", "\\"), ("\\n", "\n"), ("\\u00e9", "é"),
                                                         ("é", "é"), ("😀", "😀"), ("\\/", "/")]
        for length in 0..<20 {
            for position in 0...length {
                for (json, value) in specials {
                    let plain = String(repeating: "a", count: length)
                    let raw = String(plain.prefix(position)) + json + String(plain.dropFirst(position))
                    let expected = String(plain.prefix(position)) + value + String(plain.dropFirst(position))
                    XCTAssertEqual(try parse("[\"\(raw)\", 1]"), .array([.string(expected), .number(1)]), raw)
                }
                // Plain strings of every length, closed right at each position.
                XCTAssertEqual(try parse("{\"\(String(repeating: "b", count: position))\": \"x\"}"),
                               .object([JSONMember(String(repeating: "b", count: position), .string("x"))]))
                // A raw control character is an error wherever it is.
                var bytes = Array("[\"\(String(repeating: "a", count: length))\"]".utf8)
                bytes.insert(0x01, at: 2 + position)
                XCTAssertNotNil(parseError(bytes), "control character at \(position) of \(length)")
            }
        }
    }

    /// A string with a byte above 0x7F is scanned again eight bytes at a time, passing over
    /// such bytes: after one (at the start or further on) a quote, an escape, a control
    /// character, another non-ASCII character or a byte of invalid UTF-8 at every position
    /// must still be found exactly there.
    func testNonASCIIStringsWithSpecialBytesAtEveryPosition() throws {
        let specials: [(json: String, value: String)] = [("\\\"", "\""), ("\\\\", "\\"), ("\\n", "\n"), ("\\u00e9", "é"),
                                                         ("é", "é"), ("😀", "😀"), ("ท", "ท"), ("", "")]
        for lead in ["é", "a😀", "abcdefgé", "ab"] {
            for length in 0..<20 {
                for position in 0...length {
                    let plain = String(repeating: "a", count: length)
                    for (json, value) in specials {
                        let raw = lead + String(plain.prefix(position)) + json + String(plain.dropFirst(position)) + "ü"
                        let expected = lead + String(plain.prefix(position)) + value + String(plain.dropFirst(position)) + "ü"
                        XCTAssertEqual(try parse("[\"\(raw)\", 1]"), .array([.string(expected), .number(1)]), raw)
                    }
                    var bytes = Array("[\"\(lead)\(plain)ü\"]".utf8)
                    let at = 2 + lead.utf8.count + position
                    bytes.insert(0x01, at: at)
                    XCTAssertTrue(parseError(bytes)?.message.contains("control character") ?? false, "control at \(position) of \(length)")
                    bytes[at] = 0xFF
                    XCTAssertTrue(parseError(bytes)?.message.contains("UTF-8") ?? false, "0xFF at \(position) of \(length)")
                }
            }
        }
    }
}
