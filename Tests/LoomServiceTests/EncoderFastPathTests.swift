import Foundation
import LoomLayout
import XCTest
@testable import LoomService

/// The response encoder's shortcuts (a raw buffer, number fast paths) write what the wire
/// format says, checked by reading the output back with Foundation.
final class EncoderFastPathTests: XCTestCase {
    private func written(_ v: Double) -> String {
        var w = JSONWriter()
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    /// Numbers as the wire format writes them: not finite and zero as 0; whole numbers
    /// below 9e15 as integers; the rest as the shortest decimal that reads back exactly.
    func testNumbersPrintAsBefore() {
        let known: [(Double, String)] = [(0, "0"), (-0.0, "0"), (.infinity, "0"), (-.infinity, "0"), (.nan, "0"),
                                         (0.5, "0.5"), (12.5, "12.5"), (7.125, "7.125"), (-7.125, "-7.125"),
                                         (0.0009765625, "0.0009765625"), (262_144, "262144"), (-262_144, "-262144"),
                                         (262_144.5, "262144.5"), (0.1, "0.1"), (1.0 / 3, "0.3333333333333333"),
                                         (9e15 - 1, "8999999999999999"), (1e16, "1e+16"), (1e-5, "1e-05"),
                                         (9, "9"), (10, "10"), (99.5, "99.5"), (100, "100"), (999, "999"), (1000, "1000"),
                                         (9999.25, "9999.25"), (10_000, "10000"), (99_999, "99999"), (100_000, "100000"),
                                         (-100_000.75, "-100000.75"), (262_143, "262143")]
        for (v, expected) in known { XCTAssertEqual(written(v), expected, "\(v)") }
        var values: [Double] = [1e-4, 9e15, 8_999_999_999_999_999, 4_503_599_627_370_495.5, .leastNonzeroMagnitude,
                                .greatestFiniteMagnitude, 262_143.999_023_437_5, 0.00048828125]
        for k in stride(from: 0, to: 1 << 20, by: 37) { values.append(Double(k) / 1024) }
        for k in 0..<3000 { values.append(Double(k) / 3); values.append(Double(k) / 1.5); values.append(Double(k) / 10) }
        var rng = SeededGenerator(seed: 0x5EED_0F_4E_0B_E2)
        for _ in 0..<5000 {
            values.append(Double(Int.random(in: 0..<(1 << 28), using: &rng)) / 1024)
            values.append(Double.random(in: -1e6...1e6, using: &rng))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        }
        for v in values.flatMap({ [$0, -$0] }) {
            let s = written(v)
            guard v.isFinite, v != 0 else { XCTAssertEqual(s, "0", "\(v)"); continue }
            if v == v.rounded(.towardZero) && abs(v) < 9.0e15 {
                XCTAssertEqual(Int(s), Int(v), "\(v) as \(s)")
            } else {
                // Reads back exactly, is a JSON number, and no shorter decimal would do.
                XCTAssertEqual(Double(s), v, "\(v) as \(s)")
                XCTAssertEqual(s, "\(v)", "\(v)")
            }
            XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(s.utf8), options: [.fragmentsAllowed]), s)
        }
    }

    /// The frame objects of every entry are written after one capacity check for all four
    /// numbers: they read as what `JSONWriter` writes for the same numbers, whatever the
    /// numbers' lengths (one to six digits, fractions, exponents, `description`'s long
    /// forms) and wherever the buffer has to grow (before the frame, or after a number
    /// written the long way, which moves the buffer).
    func testFrameObjectsReadAsTheWriterWritesThem() {
        var numbers: [Double] = [0, -0.0, .nan, .infinity, 1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 99_999, 100_000,
                                 262_143, 262_143.5, 262_144, 999_999, 1_000_000, 0.5, 12.25, 7.125, -3, -10_000.5,
                                 1.0 / 3, 1e-5, 1e16, 123_456_789.123, .greatestFiniteMagnitude, -.leastNonzeroMagnitude]
        var rng = SeededGenerator(seed: 0xF7A3_E5)
        for _ in 0..<300 { numbers.append(Double(Int.random(in: 0..<(1 << 28), using: &rng)) / 1024) }
        var expected = JSONWriter()
        expected.beginArray()
        var sink = ByteSink(capacity: 1)  // the smallest buffer: it grows again and again
        defer { sink.release() }
        sink.append(UInt8(ascii: "["))
        var k = 0
        for x in numbers {
            let y = numbers[(k * 7) % numbers.count], w = numbers[(k * 13 + 1) % numbers.count]
            let h = numbers[(k * 29 + 2) % numbers.count]
            if k > 0 { sink.append(UInt8(ascii: ",")) }
            sink.frame(x: x, y: y, width: w, height: h)
            expected.beginObject()
            expected.key("x"); expected.number(x)
            expected.key("y"); expected.number(y)
            expected.key("width"); expected.number(w)
            expected.key("height"); expected.number(h)
            expected.endObject()
            k += 1
        }
        sink.append(UInt8(ascii: "]"))
        expected.endArray()
        let got = sink.makeArray(), want = expected.bytes
        if got != want {
            // Where they part, with a little of each around it (the whole is 60 KB).
            let common = min(got.count, want.count)
            let at = (0..<common).first { got[$0] != want[$0] } ?? common
            func near(_ b: [UInt8]) -> String { String(decoding: b[max(0, at - 40) ..< min(b.count, at + 40)], as: UTF8.self) }
            XCTFail("the frames differ at byte \(at): \(near(got)) instead of \(near(want))")
        }
        XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(got)))
    }

    // MARK: the encoder

    /// Odd advances, so that text sizes are off the pixel grid.
    private final class OddMeasurer: TextMeasuring, @unchecked Sendable {
        func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
            let chars = text.string.count
            let advance = text.font.size * 0.537
            let perLine = max(1, containerSize.width.isFinite ? Int(containerSize.width / advance) : chars)
            var lines = (chars + perLine - 1) / perLine
            var truncated = false
            if text.maximumNumberOfLines > 0 && lines > text.maximumNumberOfLines {
                lines = text.maximumNumberOfLines
                truncated = true
            }
            return TextMeasurement(size: Size(width: Double(min(chars, perLine)) * advance,
                                              height: Double(lines) * text.font.size * 1.173),
                                   lineCount: lines, truncated: truncated, ascender: 8, descender: -2)
        }
        func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
    }

    /// Every kind's entry names its kind (the `type` member is copied from a table built per
    /// kind): one element of each kind, with an id, specs included; each entry read back has
    /// the `type` its element was sent with, and each kind of the wire format is there.
    func testEveryKindsEntryNamesItsKind() throws {
        let leaf = #"{"type": "node", "style": {"width": 10, "height": 10}}"#
        let elements: [(String, String)] = [
            ("stack", #"{"type": "stack", "id": "e-stack", "children": [\#(leaf)]}"#),
            ("inset", #"{"type": "inset", "id": "e-inset", "insets": {"top": 1}, "child": \#(leaf)}"#),
            ("overlay", #"{"type": "overlay", "id": "e-overlay", "child": \#(leaf), "overlay": \#(leaf)}"#),
            ("background", #"{"type": "background", "id": "e-background", "child": \#(leaf), "background": \#(leaf)}"#),
            ("center", #"{"type": "center", "id": "e-center", "child": \#(leaf)}"#),
            ("relative", #"{"type": "relative", "id": "e-relative", "child": \#(leaf)}"#),
            ("ratio", #"{"type": "ratio", "id": "e-ratio", "ratio": 0.5, "child": \#(leaf)}"#),
            ("absolute", #"{"type": "absolute", "id": "e-absolute", "children": [\#(leaf)]}"#),
            ("static", #"{"type": "static", "id": "e-static", "children": [\#(leaf)]}"#),
            ("corner", #"{"type": "corner", "id": "e-corner", "child": \#(leaf), "corner": \#(leaf)}"#),
            ("wrapper", #"{"type": "wrapper", "id": "e-wrapper", "children": [\#(leaf)]}"#),
            ("spacer", #"{"type": "spacer", "id": "e-spacer"}"#),
            ("node", #"{"type": "node", "id": "e-node", "style": {"width": 3, "height": 4}}"#),
            ("image", #"{"type": "image", "id": "e-image", "intrinsicSize": {"width": 5, "height": 6}}"#),
            ("text", #"{"type": "text", "id": "e-text", "text": "words", "font": {"size": 12}}"#),
            ("button", #"{"type": "button", "id": "e-button", "title": {"text": "Go", "font": {"size": 12}}}"#),
        ]
        XCTAssertEqual(Set(elements.map(\.0)), Set(ElementKinds.all.map { "\($0.name)" }), "one element of every kind")
        for ids in [true, false] {
            let children = elements.map { ids ? $0.1 : $0.1.replacingOccurrences(of: #""id": "e-\#($0.0)", "#, with: "") }
            let body = #"{"options": {"includeSpecs": true}, "root": {"type": "stack", "children": [\#(children.joined(separator: ","))]}}"#
            let request = try RequestDecoder(textMeasurer: OddMeasurer()).decode(body: Array(body.utf8))
            let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange,
                                             context: LayoutContext(scale: request.scale, textMeasurer: OddMeasurer()))
            let object = TestJSON.object(ResponseEncoder(scale: request.scale, includeSpecs: true).encode(root: request.root, layout: layout))
            let root = try XCTUnwrap(object["layout"] as? [String: Any])
            XCTAssertEqual(root["type"] as? String, "stack")
            let entries = try XCTUnwrap(root["children"] as? [[String: Any]])
            XCTAssertEqual(entries.map { $0["type"] as? String }, elements.map(\.0), "ids: \(ids)")
            if ids { XCTAssertEqual(entries.map { $0["id"] as? String }, elements.map { "e-\($0.0)" }) }
            for entry in entries { XCTAssertNotNil(TestJSON.frame(entry["frame"]), "\(entry)") }
        }
    }

    /// The response read back by Foundation: every id and URL decodes to what was sent,
    /// every element of the nested `layout` is placed where `frames` says once its parents'
    /// offsets are added up, and with specs included `frames` names exactly the tree's ids.
    func testEncoderWritesWhatTheStraightforwardEncoderWrote() throws {
        var cells: [String] = []
        for k in 0..<12 {
            cells.append(#"""
            {"type": "inset", "id": "cell-\#(k)", "insets": {"top": \#(k % 3 * 5 + 1), "left": 16.25, "bottom": 12, "right": 7}, "child":
              {"type": "stack", "direction": "\#(k % 2 == 0 ? "vertical" : "horizontal")", "spacing": \#(Double(k) / 3), "alignItems": "stretch", "children": [
                {"type": "image", "id": "img-\#(k)", "intrinsicSize": {"width": \#(40 + k), "height": 40.5}, "url": "https://x.example/\#(k).png?a=1&b=\"q\"\\\\"},
                {"type": "text", "id": "text \"\#(k)\"\tü", "text": "\#(String(repeating: "word ", count: k + 1))", "font": {"size": \#(12 + k)}, "maximumNumberOfLines": \#(k % 3)},
                {"type": "ratio", "ratio": 0.\#(k + 3), "child": {"type": "node", "style": {"flexGrow": 1}}},
                {"type": "stack", "children": [{"type": "spacer", "id": "sp\#(k)", "style": {"flexGrow": 1}}, {"type": "node", "id": "n\#(k)", "style": {"width": 0.3, "height": \#(k)}}]}]}}
            """#)
        }
        let base = #"{"sizeRange": {"max": {"width": 375.5, "height": null}}, %OPTIONS% "root": {"type": "stack", "id": "list", "direction": "vertical", "children": [\#(cells.joined(separator: ","))]}}"#
        let decoder = RequestDecoder(limits: DecodeLimits(), textMeasurer: OddMeasurer())
        for scale in ["", #""scale": 1,"#, #""scale": 3,"#, #""scale": 1.5,"#] {
            for specs in ["", #""options": {"includeSpecs": true},"#] {
                let body = base.replacingOccurrences(of: "%OPTIONS%", with: scale + specs)
                let request = try decoder.decode(body: Array(body.utf8))
                let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange,
                                                 context: LayoutContext(scale: request.scale, textMeasurer: OddMeasurer()))
                let encoded = ResponseEncoder(scale: request.scale, includeSpecs: request.includeSpecs)
                    .encode(root: request.root, layout: layout)
                let object = TestJSON.object(encoded)
                let frames = TestJSON.frames(of: object["frames"])
                var ids: [String] = [], urls: [String] = []
                func check(_ entry: [String: Any], _ x: Double, _ y: Double) {
                    guard let f = TestJSON.frame(entry["frame"]) else { return XCTFail("no frame: \(entry)") }
                    let absolute = [x + f[0], y + f[1], f[2], f[3]]
                    if let id = entry["id"] as? String {
                        ids.append(id)
                        guard let expected = frames[id] else { return XCTFail("\(id) not in frames \(scale) \(specs)") }
                        for k in 0..<4 { XCTAssertEqual(absolute[k], expected[k], accuracy: 1e-9, "\(id) \(scale) \(specs)") }
                    }
                    if let url = entry["url"] as? String { urls.append(url) }
                    if entry["type"] as? String == "text" {
                        XCTAssertNotNil(entry["lines"] as? Int)
                        XCTAssertNotNil(entry["truncated"] as? Bool)
                    }
                    for child in entry["children"] as? [[String: Any]] ?? [] { check(child, absolute[0], absolute[1]) }
                }
                check(try XCTUnwrap(object["layout"] as? [String: Any]), 0, 0)
                XCTAssertTrue(ids.contains("text \"5\"\tü"), "\(ids)")
                XCTAssertTrue(urls.contains("https://x.example/5.png?a=1&b=\"q\"\\\\"), "\(urls)")
                if specs.isEmpty {
                    XCTAssertTrue(Set(ids).isSubset(of: frames.keys), "\(scale)")
                } else {
                    XCTAssertEqual(Set(ids), Set(frames.keys), "\(scale)")
                    XCTAssertTrue(ids.contains("cell-5") && ids.contains("sp5"), "\(ids)")
                }
            }
        }
    }
}

/// Bodies answered from the cache skip SHA-256 the next time, by an exact comparison.
final class RecentBodiesTests: XCTestCase {
    func testOnlyTheSameBytesGetTheRememberedKey() {
        let recent = RecentBodies()
        var body = Array(repeating: UInt8(ascii: "a"), count: 100)
        let key = LayoutService.RawKey(firstHalf: ElementDigest(high: 1, low: 2), secondHalf: ElementDigest(high: 3, low: 4))
        XCTAssertNil(recent.key(for: body, format: .json))
        recent.remember(body, format: .json, key: key)
        XCTAssertEqual(recent.key(for: Array(body), format: .json), key)
        XCTAssertNil(recent.key(for: body, format: .svg))
        // Same length and same sampled words (start, middle, end): the same slot, but not
        // the same bytes.
        body[20] = UInt8(ascii: "b")
        XCTAssertNil(recent.key(for: body, format: .json))
        XCTAssertNil(recent.key(for: Array(body.prefix(99)), format: .json))
        // Too long to be kept.
        let long = [UInt8](repeating: 1, count: RecentBodies.maxBodyBytes + 1)
        recent.remember(long, format: .json, key: key)
        XCTAssertNil(recent.key(for: long, format: .json))
        // Short bodies too.
        recent.remember([1, 2, 3], format: .svg, key: key)
        XCTAssertEqual(recent.key(for: [1, 2, 3], format: .svg), key)
        XCTAssertNil(recent.key(for: [1, 2, 4], format: .svg))
        recent.remember([], format: .json, key: key)
        XCTAssertEqual(recent.key(for: [], format: .json), key)
    }

    func testServiceHitsGiveTheSameAnswerWithAndWithoutTheShortcut() {
        let service = LayoutService(textMeasurer: nil)
        let body = Array(#"{"sizeRange": {"max": {"width": 100, "height": 100}}, "root": {"type": "node", "id": "n", "style": {"width": 10.5, "height": 3}}}"#.utf8)
        guard case .layoutNeeded(let pending) = service.answer(body: body) else { return XCTFail("first lookup hit") }
        let raw = pending.rawKey
        XCTAssertNil(service.recentBodies.key(for: body, format: .json), "misses are not remembered")
        let computed = pending.run()
        guard case .ready(let first) = service.answer(body: body) else { return XCTFail("second lookup missed") }
        XCTAssertEqual(service.recentBodies.key(for: body, format: .json), raw)
        guard case .ready(let second) = service.answer(body: Array(body)) else { return XCTFail("third lookup missed") }
        XCTAssertEqual(first.body, computed.body)
        XCTAssertEqual(second.body, computed.body)
        XCTAssertEqual(second.key, computed.key)
        XCTAssertTrue(first.cacheEntry === second.cacheEntry)
        // Another body is still hashed: a miss.
        var other = body
        other[other.count - 3] = UInt8(ascii: " ")
        guard case .layoutNeeded(let otherPending) = service.answer(body: other) else { return XCTFail("changed body hit") }
        XCTAssertNotEqual(otherPending.rawKey, raw)
        XCTAssertNil(service.answer(body: body, format: .svg).hitOutcome)
    }
}

private extension LayoutService.Answer {
    var hitOutcome: LayoutOutcome? {
        if case .ready(let o) = self { return o }
        return nil
    }
}
