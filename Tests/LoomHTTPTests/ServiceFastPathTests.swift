import Foundation
import LoomLayout
import XCTest
@testable import LoomService
@testable import LoomServer

/// The service's per-request shortcuts give what the straightforward code gave: the
/// in-place Content-Type check, metrics by route number, the response encoder's raw
/// buffer and number fast paths.
final class ServiceFastPathTests: XCTestCase {
    // MARK: Content-Type

    func testContentTypeCheck() {
        let accepted = ["application/json", "Application/JSON", " application/json\t", "application/json; charset=utf-8",
                        "application/json;charset=UTF-8", "application/vnd.api+json", "APPLICATION/X+JSON ; q=1",
                        "application/+json", "application/problem+json; ä=1"]
        let refused = ["", "text/json", "application/jsonx", "application/json+x", "application", "application/",
                       "+json", "application+json", "application/ json", "app/json", "application/jsön",
                       "applicatiön/x+json", ";application/json", "application/json\u{301}"]
        for s in accepted { XCTAssertTrue(Router.isJSON(s), s) }
        for s in refused { XCTAssertFalse(Router.isJSON(s), s) }
        XCTAssertFalse(Router.isJSON(nil))
        // Generated variants agree with the reference.
        let mimes = ["application/json", "APPLICATION/Json", "application/ld+json", "application/+json", "text/plain",
                     "application/jsonp", "x/y+json", "application/\u{212A}+json", "ap\u{130}lication/json", ""]
        let before = ["", " ", "\t", " \t "]
        let after = ["", " ", "\t", ";", "; charset=utf-8", " ;x", ";\u{301}", "\u{301}", "é"]
        for m in mimes {
            for b in before {
                for a in after {
                    let s = b + m + a
                    XCTAssertEqual(Router.isJSON(s), Router.isJSONUnicode(s), s.debugDescription)
                }
            }
        }
    }

    // MARK: metrics

    func testMetricsByRouteNumberAreTheSameSeries() {
        let service = ServiceMetrics()
        let metrics = HTTPMetrics(factory: service.factory)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "POST", status: 200, nanoseconds: 300_000)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "POST", status: 200, nanoseconds: 2_000_000)
        metrics.request(route: "/layout", method: "POST", status: 200, seconds: 0.000_1)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "POST", status: 415, nanoseconds: 1)
        metrics.request(route: Router.Route.layout.rawValue, label: "/layout", method: "PUT", status: 405, nanoseconds: 1)
        metrics.request(route: Router.Route.other.rawValue, label: "other", method: "GET", status: 404, nanoseconds: 1)
        let text = String(decoding: service.render(cache: .init(), subtree: .init(), text: nil), as: UTF8.self)
        func value(_ series: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.map { String($0.dropFirst(series.count + 1)) }
        }
        XCTAssertEqual(value(#"loom_http_requests_total{route="/layout",method="POST",status="200"}"#), "3", text)
        XCTAssertEqual(value(#"loom_http_requests_total{route="/layout",method="POST",status="415"}"#), "1", text)
        XCTAssertEqual(value(#"loom_http_requests_total{route="/layout",method="PUT",status="405"}"#), "1", text)
        XCTAssertEqual(value(#"loom_http_requests_total{route="other",method="GET",status="404"}"#), "1", text)
        XCTAssertEqual(value(#"loom_http_request_duration_seconds_count{route="/layout"}"#), "5", text)
        // 100 µs, 300 µs, 2 ms (and two 1 ns): 3 at or below 250 µs... 4 below 500 µs.
        XCTAssertEqual(value(#"loom_http_request_duration_seconds_bucket{route="/layout",le="0.0005"}"#), "4", text)
        XCTAssertEqual(value(#"loom_http_request_duration_seconds_bucket{route="/layout",le="0.00025"}"#), "3", text)
    }

    // MARK: numbers

    /// What JSONWriter printed before its fast paths.
    private func referenceNumber(_ v: Double) -> String {
        if !v.isFinite || v == 0 { return "0" }
        if v == v.rounded(.towardZero) && abs(v) < 9.0e15 { return String(Int(v)) }
        return v.description
    }

    private func written(_ v: Double) -> String {
        var w = JSONWriter()
        w.number(v)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func testNumbersPrintAsBefore() {
        var values: [Double] = [0, -0.0, .infinity, -.infinity, .nan, 0.5, 12.5, 7.125, 0.0009765625, 0.00048828125,
                                262_143.999_023_437_5, 262_144, 262_144.5, 1e-4, 1e-5, 0.1, 1.0 / 3, 9e15, 9e15 - 1, 1e16,
                                8_999_999_999_999_999, 4_503_599_627_370_495.5, .leastNonzeroMagnitude, .greatestFiniteMagnitude]
        for k in stride(from: 0, to: 1 << 20, by: 37) { values.append(Double(k) / 1024) }
        for k in 0..<3000 { values.append(Double(k) / 3); values.append(Double(k) / 1.5); values.append(Double(k) / 10) }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            values.append(Double(Int.random(in: 0..<(1 << 28), using: &rng)) / 1024)
            values.append(Double.random(in: -1e6...1e6, using: &rng))
            values.append(Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &rng)))
        }
        for v in values {
            XCTAssertEqual(written(v), referenceNumber(v), "\(v)")
            XCTAssertEqual(written(-v), referenceNumber(-v), "\(-v)")
        }
    }

    // MARK: the encoder

    /// The response as the encoder wrote it before the raw buffer (straightforward strings).
    private func referenceEncode(_ root: LayoutElement, _ layout: Layout, scale: Double, includeSpecs: Bool) -> String {
        let grid = PixelGrid(scale: scale)
        func bytesString(_ s: String) -> String {
            // Byte by byte, as the writer escapes.
            var bytes: [UInt8] = [0x22]
            for b in s.utf8 {
                switch b {
                case 0x22: bytes += [0x5C, 0x22]
                case 0x5C: bytes += [0x5C, 0x5C]
                case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
                case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
                case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
                case 0..<0x20: bytes += Array(String(format: "\\u%04x", b).utf8)
                default: bytes.append(b)
                }
            }
            bytes.append(0x22)
            return String(decoding: bytes, as: UTF8.self)
        }
        func n(_ v: Double) -> String { referenceNumber(v) }
        func frame(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> String {
            #"{"x":\#(n(x)),"y":\#(n(y)),"width":\#(n(w)),"height":\#(n(h))}"#
        }
        func fin(_ v: Double) -> Double { v.isFinite ? v : 0 }
        var frames: [String] = []
        func entry(_ e: LayoutElement, _ l: Layout, _ f: String, _ absolute: Point) -> String {
            var s = "{"
            if let id = e.id { s += #""id":\#(bytesString(id)),"# }
            s += #""type":\#(bytesString(ElementKinds.shared[of: e].name.description)),"frame":\#(f)"#
            if let t = l.text { s += #","lines":\#(t.lineCount),"truncated":\#(t.truncated)"# }
            if let image = e as? ImageNode, let url = image.url { s += #","url":\#(bytesString(url))"# }
            s += #","children":["#
            s += walk(e, l, .zero, .zero, absolute).joined(separator: ",")
            return s + "]}"
        }
        func walk(_ parent: LayoutElement, _ l: Layout, _ acc: Point, _ origin: Point, _ nodeAbs: Point) -> [String] {
            var out: [String] = []
            for sub in l.sublayouts {
                let child = parent.layoutChildren[sub.slot]
                let raw = Point(x: acc.x + sub.position.x, y: acc.y + sub.position.y)
                let c = Point(x: fin(grid.ceil(raw.x)), y: fin(grid.ceil(raw.y)))
                let size = sub.layout.size
                if child.isDisplayNode {
                    let abs = Point(x: nodeAbs.x + c.x, y: nodeAbs.y + c.y)
                    if let id = child.id { frames.append(bytesString(id) + ":" + frame(abs.x, abs.y, size.width, size.height)) }
                    out.append(entry(child, sub.layout, frame(c.x - origin.x, c.y - origin.y, size.width, size.height), abs))
                } else {
                    if let id = child.id {
                        frames.append(bytesString(id) + ":" + frame(nodeAbs.x + c.x, nodeAbs.y + c.y, size.width, size.height))
                    }
                    if includeSpecs {
                        var s = "{"
                        if let id = child.id { s += #""id":\#(bytesString(id)),"# }
                        s += #""type":\#(bytesString(ElementKinds.shared[of: child].name.description)),"frame":\#(frame(c.x - origin.x, c.y - origin.y, size.width, size.height))"#
                        s += #","children":["# + walk(child, sub.layout, raw, c, nodeAbs).joined(separator: ",") + "]}"
                        out.append(s)
                    } else {
                        out += walk(child, sub.layout, raw, origin, nodeAbs)
                    }
                }
            }
            return out
        }
        let w = layout.size.width, h = layout.size.height
        if let id = root.id { frames.append(bytesString(id) + ":" + frame(0, 0, w, h)) }
        let tree = entry(root, layout, frame(0, 0, w, h), .zero)
        return #"{"size":{"width":\#(n(w)),"height":\#(n(h))},"layout":\#(tree),"frames":{"# + frames.joined(separator: ",") + "}}"
    }

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
                let expected = referenceEncode(request.root, layout, scale: request.scale, includeSpecs: request.includeSpecs)
                XCTAssertEqual(String(decoding: encoded, as: UTF8.self), expected, "\(scale) \(specs)")
                XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(encoded)), "\(scale) \(specs)")
            }
        }
    }
}

/// Bodies answered from the cache skip SHA-256 the next time, by an exact comparison.
final class RecentBodiesTests: XCTestCase {
    func testOnlyTheSameBytesGetTheRememberedKey() {
        let recent = RecentBodies()
        var body = Array(repeating: UInt8(ascii: "a"), count: 100)
        let key = LayoutService.RawKey(a: ElementDigest(high: 1, low: 2), b: ElementDigest(high: 3, low: 4))
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
        guard case .miss(let raw) = service.lookup(body: body) else { return XCTFail("first lookup hit") }
        XCTAssertNil(service.recentBodies.key(for: body, format: .json), "misses are not remembered")
        let computed = service.layout(body: body, format: .json, miss: raw)
        guard case .hit(let first) = service.lookup(body: body) else { return XCTFail("second lookup missed") }
        XCTAssertEqual(service.recentBodies.key(for: body, format: .json), raw)
        guard case .hit(let second) = service.lookup(body: Array(body)) else { return XCTFail("third lookup missed") }
        XCTAssertEqual(first.body, computed.body)
        XCTAssertEqual(second.body, computed.body)
        XCTAssertEqual(second.key, computed.key)
        XCTAssertTrue(first.cacheEntry === second.cacheEntry)
        // Another body is still hashed: a miss.
        var other = body
        other[other.count - 3] = UInt8(ascii: " ")
        guard case .miss(let otherRaw) = service.lookup(body: other) else { return XCTFail("changed body hit") }
        XCTAssertNotEqual(otherRaw, raw)
        XCTAssertNil(service.lookup(body: body, format: .svg).hitOutcome)
    }
}

private extension LayoutService.CacheLookup {
    var hitOutcome: LayoutOutcome? {
        if case .hit(let o) = self { return o }
        return nil
    }
}
