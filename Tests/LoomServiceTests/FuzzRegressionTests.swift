import Foundation
import LoomLayout
import LoomService
import LoomText
import XCTest

/// Inputs from fuzzing the request decoder (Sources/LoomFuzz) and the hand-made extremes
/// around them: decode + layout + encode must not crash, and must give either a 4xx error
/// or a layout whose response is valid JSON. Add every crashing input libFuzzer finds here
/// (scripts/run-system-tests.sh keeps them in .build-fuzz/artifacts/).
final class FuzzRegressionTests: XCTestCase {
    /// (name, request body). Bodies are raw bytes as the fuzzer saw them.
    static let inputs: [(String, String)] = [
        // Arithmetic at the edges of Double: nothing may trap, and no NaN / inf may reach
        // the JSON (the writer maps non-finite numbers to 0).
        ("scale-tiny", #"{"scale": 1e-300, "root": {"type": "node", "style": {"width": 10, "height": 10}}}"#),
        ("scale-denormal", #"{"scale": 5e-324, "root": {"type": "node", "style": {"width": 1}}}"#),
        ("size-huge", #"{"root": {"type": "node", "style": {"width": 1e308, "height": 1e308}}}"#),
        ("stack-sum-overflows", #"{"root": {"type": "stack", "children": [{"type": "node", "style": {"width": 1e308, "height": 1}}, {"type": "node", "style": {"width": 1e308, "height": 1}}, {"type": "node", "style": {"width": 1e308, "height": 1}}]}}"#),
        ("spacing-huge", #"{"root": {"type": "stack", "spacing": 1e308, "children": [{"type": "node"}, {"type": "node"}, {"type": "node"}]}}"#),
        ("spacing-negative-huge", #"{"root": {"type": "stack", "spacing": -1e308, "children": [{"type": "node", "style": {"width": 1}}, {"type": "node", "style": {"width": 1}}]}}"#),
        ("ratio-tiny", #"{"sizeRange": {"max": {"width": 100}}, "root": {"type": "ratio", "ratio": 1e-320, "child": {"type": "node"}}}"#),
        ("ratio-huge", #"{"sizeRange": {"max": {"width": 100}}, "root": {"type": "ratio", "ratio": 1e308, "child": {"type": "node"}}}"#),
        ("insets-inf", #"{"root": {"type": "inset", "insets": {"top": "inf", "left": "inf", "bottom": "inf", "right": "inf"}, "child": {"type": "node"}}}"#),
        ("insets-huge", #"{"root": {"type": "inset", "insets": {"top": 1e308, "left": -1e308, "bottom": 1e308, "right": 1e308}, "child": {"type": "node", "style": {"width": 5}}}}"#),
        ("flex-grow-huge", #"{"sizeRange": {"min": {"width": 100}, "max": {"width": 100}}, "root": {"type": "stack", "children": [{"type": "node", "style": {"flexGrow": 1e308}}, {"type": "node", "style": {"flexGrow": 1e308}}]}}"#),
        ("flex-shrink-extremes", #"{"sizeRange": {"max": {"width": 10}}, "root": {"type": "stack", "children": [{"type": "node", "style": {"width": 100, "flexShrink": 1e308}}, {"type": "node", "style": {"width": 100, "flexShrink": 1e-308}}]}}"#),
        ("wrap-huge-lines", #"{"sizeRange": {"max": {"width": 10}}, "root": {"type": "stack", "flexWrap": "wrap", "lineSpacing": 1e308, "alignContent": "spaceAround", "children": [{"type": "node", "style": {"width": 20, "height": 1e308}}, {"type": "node", "style": {"width": 20, "height": 1e308}}]}}"#),
        ("absolute-position-huge", #"{"root": {"type": "absolute", "children": [{"type": "node", "style": {"layoutPosition": {"x": 1e308, "y": -1e308}, "width": 1e308}}]}}"#),
        ("corner-offset-huge", #"{"root": {"type": "corner", "offset": {"x": 1e308, "y": 1e308}, "wrapsCorner": true, "child": {"type": "node", "style": {"width": 1e308}}, "corner": {"type": "node", "style": {"width": 1e308}}}}"#),
        ("baseline-huge", #"{"root": {"type": "stack", "alignItems": "baselineLast", "children": [{"type": "node", "style": {"ascender": 1e308, "descender": -1e308}}, {"type": "text", "text": "x"}]}}"#),
        ("min-over-max", #"{"root": {"type": "node", "style": {"minWidth": 100, "maxWidth": 10}}}"#),
        ("size-range-min-huge", #"{"sizeRange": {"min": {"width": 1e308, "height": 1e308}}, "root": {"type": "stack", "justifyContent": "spaceAround", "children": [{"type": "node"}, {"type": "node"}]}}"#),
        ("relative-huge", #"{"sizeRange": {"min": {"width": 1e308, "height": 1e308}}, "root": {"type": "relative", "horizontalPosition": "end", "verticalPosition": "center", "child": {"type": "node", "style": {"width": 3}}}}"#),
        ("center-huge", #"{"sizeRange": {"min": {"width": 1e308, "height": 1e308}}, "root": {"type": "center", "centeringOptions": "xy", "child": {"type": "node", "style": {"width": 3}}}}"#),
        ("button-huge", #"{"root": {"type": "button", "title": {"text": "OK"}, "contentSpacing": 1e308, "contentEdgeInsets": {"top": 1e308, "left": 1e308, "bottom": 1, "right": 1}, "image": {"intrinsicSize": {"width": 1e308, "height": 1e308}}}}"#),
        ("image-huge", #"{"root": {"type": "image", "intrinsicSize": {"width": 1e308, "height": 1e308}}}"#),
        // Text at the edges (real fonts in the service path).
        ("text-line-height-huge", #"{"root": {"type": "text", "text": "abc\nd", "lineHeight": 1e308, "lineSpacing": 1e308}}"#),
        ("text-letter-spacing-negative-huge", #"{"root": {"type": "text", "text": "abcdef", "letterSpacing": -1e308}}"#),
        ("text-inset-huge", #"{"root": {"type": "text", "text": "abc", "textContainerInset": {"top": 1e308, "left": 1e308, "bottom": 1e308, "right": 1e308}}}"#),
        ("text-nul", #"{"root": {"type": "text", "text": "a\u0000b"}}"#),
        ("text-max-lines-huge", #"{"root": {"type": "text", "text": "a", "maximumNumberOfLines": 99999999999999999999999999}}"#),
        ("text-empty-spans", #"{"root": {"type": "text", "spans": []}}"#),
        // Syntax.
        ("number-overflow", #"{"root": {"type": "node", "style": {"width": 1e99999}}}"#),
        ("negative-zero-scale", #"{"scale": -0.0, "root": {"type": "node"}}"#),
        ("lone-surrogate", #"{"root": {"type": "text", "id": "\ud800", "text": "\udc00x"}}"#),
        ("truncated", #"{"root": {"type": "stack", "children": [{"type": "node"#),
        ("empty", ""),
        ("deep-arrays", String(repeating: "[", count: 50_000)),
        ("deep-elements", String(repeating: #"{"type": "wrapper", "children": ["#, count: 600) + #"{"type": "node"}"#
            + String(repeating: "]}", count: 600)),
    ]

    /// The fuzz target's path: decoder without a measurer, layout with a stub one, encoder.
    func testDecodeLayoutEncodeNeverCrashes() throws {
        let decoder = RequestDecoder(limits: DecodeLimits(), textMeasurer: nil)
        let measurer = AttributeSensitiveTextMeasurer()
        for (name, body) in Self.inputs {
            let bytes = Array(body.utf8)
            let request: LayoutRequest
            do {
                request = try decoder.decode(body: bytes)
            } catch let e as WireError {
                XCTAssertTrue((400..<500).contains(e.status), "\(name): \(e)")
                continue
            }
            let context = LayoutContext(scale: request.scale, textMeasurer: measurer)
            let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
            for includeSpecs in [false, true] {
                for output in ResponseOutput.allCases {
                    let json = ResponseEncoder(scale: request.scale, includeSpecs: includeSpecs, output: output)
                        .encode(root: request.root, layout: layout)
                    XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(json)), "\(name) \(output): \(Svc.text(json).prefix(300))")
                }
            }
            XCTAssertFalse(SVGRenderer(scale: request.scale).render(root: request.root, layout: layout).isEmpty, name)
        }
    }

    /// The whole service with the real text measurer: 200 with a JSON layout or a 4xx error.
    func testServiceAnswersEveryInputWithALayoutOrAnError() throws {
        let service = LayoutService(textMeasurer: try PangoTextMeasurer())
        for (name, body) in Self.inputs {
            for format in [OutputFormat.json, .svg] {
                let outcome = service.layout(body: Array(body.utf8), format: format)
                XCTAssertTrue(outcome.status == 200 || (400..<500).contains(outcome.status), "\(name): \(outcome.status)")
                if outcome.status == 200 && format == .svg { continue }
                let o = try? JSONSerialization.jsonObject(with: Data(outcome.body)) as? [String: Any]
                XCTAssertNotNil(o, "\(name): \(Svc.text(outcome.body).prefix(300))")
                if outcome.status == 200 {
                    XCTAssertNotNil(o?["layout"], name)
                } else {
                    XCTAssertNotNil((o?["error"] as? [String: Any])?["code"], name)
                }
            }
        }
        // Every well-formed, shallow input as one batch: each gets its own slot.
        let items = Self.inputs.filter { !$0.0.hasPrefix("deep") }.map { $0.1 }.filter {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed])) != nil
        }
        let batch = service.batch(body: Array((#"{"items": ["# + items.joined(separator: ",") + "]}").utf8)) { n, body in
            for i in 0..<n { body(i) }
        }
        XCTAssertEqual(batch.status, 200)
        let results = (try? JSONSerialization.jsonObject(with: Data(batch.body)) as? [String: Any])?["results"] as? [Any]
        XCTAssertEqual(results?.count, items.count, Svc.text(batch.body).prefix(300).description)
    }
}
