import Foundation
import LoomService
import XCTest

/// `options.output` (docs/wire-format.md): `both` (the default) answers the `layout` tree and
/// the `frames` map, `layout` and `frames` only the one named, each exactly as `both` writes
/// it; each output has its own cache key; a bad value is `invalid_spec` at `options.output`.
final class ResponseOutputTests: XCTestCase {
    /// A stack with ids on a node, a spec and a text-free leaf; the inset makes the flattened
    /// tree (nodes only) differ from the one with specs.
    private func body(_ options: String) -> [UInt8] {
        let opts = options.isEmpty ? "" : #""options": {\#(options)}, "#
        return Array(#"""
        {\#(opts)"sizeRange": {"max": {"width": 200, "height": null}}, "root": {"type": "stack", "id": "s", "direction": "vertical",
         "alignItems": "start", "children": [
          {"type": "node", "id": "a", "style": {"width": 30, "height": 10}},
          {"type": "inset", "id": "pad", "insets": {"top": 5, "left": 7, "bottom": 0, "right": 0},
           "child": {"type": "node", "id": "b", "style": {"width": 20, "height": 4}}}]}}
        """#.utf8)
    }

    private func layout(_ service: LayoutService, _ options: String,
                        file: StaticString = #filePath, line: UInt = #line) -> LayoutOutcome {
        let o = service.layout(body: body(options))
        XCTAssertEqual(o.status, 200, Svc.text(o.body), file: file, line: line)
        return o
    }

    func testEachOutputHoldsItsPartsExactlyAsBothWritesThem() {
        let service = LayoutService(textMeasurer: nil)
        for specs in ["", #""includeSpecs": true, "#] {
            let both = Svc.object(layout(service, specs + #""output": "both""#).body)
            let treeOnly = Svc.object(layout(service, specs + #""output": "layout""#).body)
            let framesOnly = Svc.object(layout(service, specs + #""output": "frames""#).body)
            XCTAssertEqual(Set(both.keys), ["size", "layout", "frames"])
            XCTAssertEqual(Set(treeOnly.keys), ["size", "layout"])
            XCTAssertEqual(Set(framesOnly.keys), ["size", "frames"])
            for part in [treeOnly, framesOnly] {
                XCTAssertEqual(part["size"] as? NSDictionary, both["size"] as? NSDictionary)
            }
            XCTAssertEqual(treeOnly["layout"] as? NSDictionary, both["layout"] as? NSDictionary)
            XCTAssertEqual(Svc.frames(of: framesOnly["frames"]), Svc.frames(of: both["frames"]))
            // b: inset left 7 and top 5 below a (height 10): (7, 15) in root coordinates.
            XCTAssertEqual(Svc.frames(of: framesOnly["frames"])["b"], [7, 15, 20, 4])
        }
    }

    /// The parts are whole JSON documents byte for byte: `both` is the layout-only body with
    /// the frames member added before its final brace.
    func testBytesOfThePartsAddUpToBoth() {
        let service = LayoutService(textMeasurer: nil)
        let both = Svc.text(layout(service, "").body)
        let treeOnly = Svc.text(layout(service, #""output": "layout""#).body)
        let framesOnly = Svc.text(layout(service, #""output": "frames""#).body)
        XCTAssertTrue(both.hasPrefix(String(treeOnly.dropLast())), both)
        let sizeEnd = framesOnly.range(of: #"},"frames":"#)!.lowerBound
        XCTAssertTrue(both.hasPrefix(String(framesOnly[..<sizeEnd])))
        XCTAssertTrue(both.hasSuffix(String(framesOnly[framesOnly.index(after: sizeEnd)...])), framesOnly)
    }

    func testEachOutputHasItsOwnKeyAndTheDefaultIsBoth() {
        let service = LayoutService(textMeasurer: nil)
        let none = layout(service, "")
        let both = layout(service, #""output": "both""#)
        XCTAssertEqual(both.key, none.key)
        XCTAssertTrue(both.cacheHit)
        var keys = Set([none.key])
        for options in [#""output": "layout""#, #""output": "frames""#, #""output": "layout", "includeSpecs": true"#] {
            let o = layout(service, options)
            XCTAssertFalse(o.cacheHit, options)
            XCTAssertTrue(keys.insert(o.key).inserted, "\(options) shares a key")
            // Asked again: the same answer, from the cache.
            let again = layout(service, options)
            XCTAssertTrue(again.cacheHit, options)
            XCTAssertEqual(again.body, o.body, options)
        }
        // Frames alone do not depend on includeSpecs: one answer either way.
        let frames = layout(service, #""output": "frames""#)
        let framesSpecs = layout(service, #""output": "frames", "includeSpecs": true"#)
        XCTAssertEqual(frames.key, framesSpecs.key)
        XCTAssertTrue(framesSpecs.cacheHit)
    }

    func testBadOutputIsInvalidSpecAtOptionsOutput() {
        let decoder = RequestDecoder()
        for (value, fragment) in [(#""both ""#, "is not one of"), (#""Frames""#, "is not one of"), ("1", "must be a string"),
                                  ("null", "must be a string"), (#"["frames"]"#, "must be a string")] {
            do {
                _ = try decoder.decode(body: body(#""output": \#(value)"#))
                XCTFail("decoded output \(value)")
            } catch let e as WireError {
                XCTAssertEqual(e.status, 400, value)
                XCTAssertEqual(e.code, "invalid_spec", value)
                XCTAssertEqual(e.path, "options.output", value)
                XCTAssertTrue(e.message.contains(fragment), "\(value): \(e.message)")
            } catch {
                XCTFail("not a WireError: \(error)")
            }
        }
        do {
            _ = try decoder.decode(body: body(#""output": "frames", "output": "layout""#))
            XCTFail("decoded a duplicate output")
        } catch let e as WireError {
            XCTAssertEqual(e.path, "options.output")
        } catch {
            XCTFail("not a WireError: \(error)")
        }
    }

    func testDecodedOutput() throws {
        let decoder = RequestDecoder()
        XCTAssertEqual(try decoder.decode(body: body("")).output, .both)
        for output in ResponseOutput.allCases {
            XCTAssertEqual(try decoder.decode(body: body(#""output": "\#(output.rawValue)""#)).output, output)
        }
    }
}
