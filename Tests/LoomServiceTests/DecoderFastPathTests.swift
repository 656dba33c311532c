import Foundation
import LoomLayout
@testable import LoomService
import XCTest

/// The decoder's fast paths read the same values, and report the same errors, as the
/// general paths they skip: numbers read eight bytes at a time, member names checked
/// against the name that followed the previous one last time (`MemberOrder`), and `node`
/// elements read straight into their parts when `type` comes first.
final class DecoderFastPathTests: XCTestCase {
    /// `text` read as one number by the scanner, with `after` behind it.
    private func scanned(_ text: String, after: String) throws -> (value: Double, end: Int) {
        let bytes = Array((text + after).utf8)
        return try bytes.withUnsafeBufferPointer { buffer in
            var scanner = JSONScanner(bytes: buffer, maxDepth: 10)
            let v = try scanner.number()
            return (v, scanner.i)
        }
    }

    func testLeadingDigitsOfEveryByteAfterADigit() {
        for b in 0 ... 255 {
            let bytes: [UInt8] = [0x31, 0x32, UInt8(b), 0x35, 0x36, 0x37, 0x38, 0x39]
            let w = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let isDigit = b >= 0x30 && b <= 0x39
            XCTAssertEqual(JSONScanner.leadingDigits(UInt64(littleEndian: w)), isDigit ? 8 : 2, "byte \(b)")
            // A byte that carries into the next one must not hide a non-digit before it.
            let first: [UInt8] = [UInt8(b), 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30]
            let v = first.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            XCTAssertEqual(JSONScanner.leadingDigits(UInt64(littleEndian: v)), isDigit ? 8 : 0, "first byte \(b)")
        }
    }

    func testDigitsValueOfEveryLength() {
        for n in 1 ... 7 {
            for seed in 0 ..< 200 {
                var digits = (0 ..< n).map { k in UInt8(48 + (seed * 7 + k * 3 + seed / 10) % 10) }
                if n == 7 && seed == 0 { digits = Array("9999999".utf8) }
                let bytes = digits + Array(",\"x\":[]}".utf8).prefix(8 - n)
                let w = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                let expected = UInt64(String(decoding: digits, as: UTF8.self))!
                XCTAssertEqual(JSONScanner.digitsValue(UInt64(littleEndian: w), n), expected, "\(digits)")
            }
        }
    }

    /// Numbers of every length, with every kind of byte after them, read as `Double(_:)` reads
    /// them, and the scanner left just after them; far from the end and at it.
    func testNumbersMatchTheirValue() throws {
        var spellings = ["0", "-0", "7", "-7", "10", "99", "100", "375", "1080", "65535", "123456", "1234567", "9999999",
                         "12345678", "123456789012345", "1234567890123456789", "0.5", "-0.25", "12.5", "7.125", "1e3",
                         "2E-2", "-12.75e1", "0e0", "1.5E+2"]
        spellings += (0 ..< 3000).map { String($0 * 337 % 100_000) }
        for text in spellings {
            for after in [",\"width\":1}", "}", " ]", "\n}  ", ""] {
                let (v, end) = try scanned(text, after: after)
                XCTAssertEqual(v, Double(text)!, "\(text) then \(after.debugDescription)")
                XCTAssertEqual(v.sign, Double(text)!.sign, text)
                XCTAssertEqual(end, text.utf8.count, "\(text) then \(after.debugDescription)")
            }
        }
    }

    func testInvalidNumbersKeepTheirErrors() {
        for (text, message) in [("01", "leading zero"), ("-01234", "leading zero"), ("-", "invalid number"), ("-x", "invalid number"),
                                ("1.", "digits expected after '.'"), ("12e", "digits expected in the exponent")] {
            for after in [",\"width\":1}", ""] {
                XCTAssertThrowsError(try scanned(text, after: after), text) { error in
                    let e = error as? JSONParser.SyntaxError
                    XCTAssertTrue(e?.message.contains(message) ?? false, "\(text): \(error)")
                    XCTAssertEqual(e?.column, 1, text)
                }
            }
        }
    }

    private func digest(_ body: String) throws -> (tree: ElementDigest, ids: ElementDigest) {
        try RequestDecoder().decode(body: Array(body.utf8)).hashTree()
    }

    /// Members whose order changes from element to element, names that begin like the guessed
    /// one, escaped names and spaces before ':' decode as the same tree written plainly.
    func testMembersInChangingOrderDecodeAsWrittenPlainly() throws {
        let plain = #"{"type": "node", "id": "a", "style": {"width": 10, "height": 20, "flexGrow": 1}}"#
        let spellings = [
            #"{"type": "node", "id": "a", "style": {"width": 10, "height": 20, "flexGrow": 1}}"#,
            #"{"style": {"flexGrow": 1, "height": 20, "width": 10}, "id": "a", "type": "node"}"#,
            "{\"type\" : \"node\", \"id\"  :\"a\", \"style\"\t:{\"width\" : 10, \"height\"\n : 20, \"flexGrow\":1}}",
            #"{"typ\u0065": "node", "\u0069d": "a", "style": {"w\u0069dth": 10, "height": 20, "flexGrow": true}}"#,
            #"{"type": "node", "id": "a", "style": {"width": 10, "heightX": 5, "height": 20, "flexGrow": 1}}"#,
        ]
        func numbered(_ children: [String]) -> String {
            let items = children.enumerated().map { n, s in s.replacingOccurrences(of: #""a""#, with: "\"a\(n)\"") }
            return #"{"root": {"type": "stack", "children": [\#(items.joined(separator: ", "))]}}"#
        }
        let expected = try digest(numbered(Array(repeating: plain, count: 4)))
        for (k, spelling) in spellings.enumerated() where k != 4 {
            // The same element after each other spelling: each guess is met by a different name.
            for other in spellings.indices where other != 4 {
                let got = try digest(numbered([spellings[other], spelling, spellings[other], spelling]))
                XCTAssertEqual(got.tree, expected.tree, "\(spelling) after \(spellings[other])")
                XCTAssertEqual(got.ids, expected.ids, "\(spelling) after \(spellings[other])")
            }
        }
        // A name that only begins like the guessed one is not taken for it.
        XCTAssertThrowsError(try digest(numbered([plain, spellings[4]]))) { error in
            XCTAssertEqual((error as? WireError)?.path, "root.children[1].style.heightX")
        }
    }

    /// A member met again on the guessed path is still a duplicate, with the same path.
    func testDuplicatesOnTheGuessedPath() {
        let body = #"{"root": {"type": "stack", "children": [{"type": "node", "style": {"width": 1, "height": 2}}, {"type": "node", "style": {"width": 1, "height": 2, "height": 3}}]}}"#
        XCTAssertThrowsError(try digest(body)) { error in
            let e = error as? WireError
            XCTAssertEqual(e?.path, "root.children[1].style.height")
            XCTAssertTrue(e?.message.contains("duplicate field 'height'") ?? false, "\(error)")
        }
        // After styles in other orders (`width` followed by `height`, then by `flexGrow`), a
        // `height` met again where neither is guessed.
        let second = #"{"root": {"type": "stack", "children": [{"type": "node", "style": {"width": 1, "height": 2}}, {"type": "node", "style": {"width": 1, "flexGrow": 1}}, {"type": "node", "style": {"height": 5, "width": 1, "height": 2}}]}}"#
        XCTAssertThrowsError(try digest(second)) { error in
            let e = error as? WireError
            XCTAssertEqual(e?.path, "root.children[2].style.height")
            XCTAssertTrue(e?.message.contains("duplicate field 'height'") ?? false, "\(error)")
        }
        let twice = #"{"root": {"type": "stack", "children": [{"type": "node", "id": "x"}, {"type": "node", "type": "node"}]}}"#
        XCTAssertThrowsError(try digest(twice)) { error in
            XCTAssertEqual((error as? WireError)?.path, "root.children[1].type")
        }
    }

    /// A guessed name cut off by the end of the body, or not followed by ':', is a syntax
    /// error at the same place as without a guess.
    func testGuessedNameThenBrokenJSON() {
        let first = #"{"root": {"type": "stack", "children": [{"type": "node", "style": {"width": 1}}, {"type": "node", "style": {"width""#
        for (body, column) in [(first, first.utf8.count + 1), (first + " 2}}]}}", first.utf8.count + 2)] {
            XCTAssertThrowsError(try digest(body)) { error in
                let e = error as? WireError
                XCTAssertEqual(e?.code, "malformed_json", "\(error)")
                XCTAssertTrue(e?.message.hasSuffix("column \(column)") ?? false, "\(error)")
            }
        }
    }

    /// Each `type` is checked first against the previous element's kind: kinds that change,
    /// an escaped kind name, and a name that begins like the previous kind.
    func testTypesAfterOtherTypes() throws {
        let body = #"{"root": {"type": "stack", "children": [{"type": "node"}, {"type": "no\u0064e"}, {"type": "spacer"}, {"type": "node"}, {"type": "node", "style": {"width": 3}}, {"type": "inset", "child": {"type": "node"}}]}}"#
        let r = try RequestDecoder().decode(body: Array(body.utf8))
        let kinds = r.root.layoutChildren.map { ElementKinds.shared[of: $0].id }
        XCTAssertEqual(kinds, [.node, .node, .spacer, .node, .node, .inset])
        XCTAssertEqual(r.root.layoutChildren[4].style.width, .points(3))
        XCTAssertEqual(r.elementCount, 8)
        let unknown = #"{"root": {"type": "stack", "children": [{"type": "node"}, {"type": "nodes"}]}}"#
        XCTAssertThrowsError(try RequestDecoder().decode(body: Array(unknown.utf8))) { error in
            let e = error as? WireError
            XCTAssertEqual(e?.path, "root.children[1].type")
            XCTAssertTrue(e?.message.contains("unknown element type 'nodes'") ?? false, "\(error)")
        }
        let cut = #"{"root": {"type": "stack", "children": [{"type": "node"}, {"type": "node"#
        XCTAssertThrowsError(try RequestDecoder().decode(body: Array(cut.utf8))) { error in
            XCTAssertEqual((error as? WireError)?.code, "malformed_json")
        }
    }

    /// A `node` whose `type` comes first is read into its parts for as long as its members are
    /// `id` and `style`, then by the general way: it decodes, or fails with the same error at
    /// the same path, as the same members with `type` last (read the general way throughout).
    func testNodeWithTypeFirstAsWithTypeLast() throws {
        let cases: [[String]] = [
            [],
            [#""id": "n""#, #""style": {"width": 4, "height": 5}"#],
            [#""style": {"width": 4, "flexDirection": "horizontal", "margin": {"all": 2}}"#, #""id": "n""#],
            [#""style": {"width": 4}"#, #""intrinsicSize": {"width": 7, "height": 8}"#],
            [#""id": "n""#, #""layout": {"type": "inset", "insets": {"top": 1}, "child": {"type": "node", "style": {"width": 3}}}"#,
             #""style": {"height": 9}"#],
            [#""style": {"width": 4}"#, #""yogaChildren": [{"type": "node", "style": {"width": 2}}, {"type": "image", "intrinsicSize": {"width": 5, "height": 6}}]"#],
            [#""style": {"width": 4}"#, #""yogaChildren": []"#, #""id": "n""#],
            // Errors: a member of another kind, an unknown one (read past, reported after the
            // object), an unknown one beside a build error (the build's error first), twice the
            // same member, a Yoga child that is a spec, a fractional min on a stretched child.
            [#""id": "n""#, #""url": "x""#],
            [#""style": {"width": 4}"#, #""colour": 1"#, #""id": "n""#],
            [#""colour": 1"#, #""layout": {"type": "node"}"#, #""intrinsicSize": {"width": 1, "height": 1}"#],
            [#""id": "n""#, #""style": {"width": 4}"#, #""style": {"width": 5}"#],
            [#""id": "n""#, #""id": "m""#],
            [#""yogaChildren": [{"type": "stack"}]"#],
            [#""style": {"minWidth": "50%"}"#],
            [#""style": {"width": "wide"}"#],
            [#""id": 7"#],
        ]
        func outcome(_ members: [String]) -> String {
            let node = "{" + members.joined(separator: ", ") + "}"
            let body = #"{"root": {"type": "stack", "children": [{"type": "node", "id": "first"}, \#(node)]}}"#
            do {
                let d = try digest(body)
                return "tree \(d.tree) ids \(d.ids)"
            } catch let e as WireError {
                return "\(e.code) at \(e.path ?? "-"): \(e.message)"
            } catch {
                return "other error \(error)"
            }
        }
        var errors = 0
        for members in cases {
            let first = outcome([#""type": "node""#] + members)
            XCTAssertEqual(first, outcome(members + [#""type": "node""#]), "\(members)")
            if first.hasPrefix("invalid_spec") { errors += 1 }
        }
        // The error cases fail, and no other case does.
        XCTAssertEqual(errors, 9)
    }
}
