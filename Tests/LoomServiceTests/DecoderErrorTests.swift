import Foundation
import LoomLayout
import LoomService
import XCTest

/// One test per class of invalid input (docs/wire-format.md "Errors", semantics §14): status,
/// code and the exact JSON path of the offending field.
final class DecoderErrorTests: XCTestCase {
    let measurer = AttributeSensitiveTextMeasurer()

    private func request(_ root: String, _ extra: String = "") -> String {
        extra.isEmpty ? #"{"root": \#(root)}"# : #"{"root": \#(root), \#(extra)}"#
    }

    private func decodeError(_ body: String, withText: Bool = false, limits: DecodeLimits = DecodeLimits(),
                             file: StaticString = #filePath, line: UInt = #line) -> WireError? {
        let decoder = RequestDecoder(limits: limits, textMeasurer: withText ? measurer : nil)
        do {
            _ = try decoder.decode(body: Array(body.utf8))
            XCTFail("decoded, but expected an error: \(body.prefix(300))", file: file, line: line)
            return nil
        } catch let e as WireError {
            return e
        } catch {
            XCTFail("not a WireError: \(error)", file: file, line: line)
            return nil
        }
    }

    /// Asserts `invalid_spec` (or the given status/code) at exactly `path`.
    private func assertError(_ body: String, path: String?, status: Int = 400, code: String = "invalid_spec",
                             message fragment: String? = nil, withText: Bool = false,
                             limits: DecodeLimits = DecodeLimits(),
                             file: StaticString = #filePath, line: UInt = #line) {
        guard let e = decodeError(body, withText: withText, limits: limits, file: file, line: line) else { return }
        XCTAssertEqual(e.status, status, "status of \(e)", file: file, line: line)
        XCTAssertEqual(e.code, code, "code of \(e)", file: file, line: line)
        XCTAssertEqual(e.path, path, "path of \(e)", file: file, line: line)
        if let fragment {
            XCTAssertTrue(e.message.contains(fragment), "'\(e.message)' should contain '\(fragment)'", file: file, line: line)
        }
    }

    private func decode(_ body: String, withText: Bool = false,
                        file: StaticString = #filePath, line: UInt = #line) -> LayoutRequest? {
        do {
            return try RequestDecoder(textMeasurer: withText ? measurer : nil).decode(body: Array(body.utf8))
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    private let box = #"{"type": "node", "style": {"width": 10, "height": 10}}"#

    // MARK: types and fields

    func testUnknownType() {
        assertError(request(#"{"type": "stak"}"#), path: "root.type", message: "stak")
        assertError(request(#"{"type": "stack", "children": [{"type": "node"}, {"type": "ASDisplayNode"}]}"#),
                    path: "root.children[1].type")
        assertError(request(#"{"type": "inset", "child": {"type": "Node"}}"#), path: "root.child.type")
    }

    func testMissingType() {
        assertError(request(#"{"id": "x"}"#), path: "root", message: "type")
        assertError(request(#"{"type": "stack", "children": [{}]}"#), path: "root.children[0]", message: "type")
    }

    func testUnknownFieldsAnywhere() {
        // request level
        assertError(#"{"root": {"type": "node"}, "sizerange": {}}"#, path: "sizerange", message: "sizerange")
        // element (root and nested)
        assertError(request(#"{"type": "node", "colour": "red"}"#), path: "root.colour")
        assertError(request(#"{"type": "stack", "children": [{"type": "inset", "child": {"type": "node", "widht": 3}}]}"#),
                    path: "root.children[0].child.widht")
        // a field of another element type
        assertError(request(#"{"type": "node", "children": []}"#), path: "root.children")
        assertError(request(#"{"type": "stack", "ratio": 1}"#), path: "root.ratio")
        assertError(request(#"{"type": "spacer", "child": {"type": "node"}}"#), path: "root.child")
        // style
        assertError(request(#"{"type": "node", "style": {"width": 10, "widht": 10}}"#), path: "root.style.widht")
        assertError(request(#"{"type": "stack", "children": [{"type": "node", "style": {"flex": 1}}]}"#),
                    path: "root.children[0].style.flex")
        // nested objects
        assertError(request(#"{"type": "node", "style": {"preferredSize": {"width": 1, "height": 2, "depth": 3}}}"#),
                    path: "root.style.preferredSize.depth")
        assertError(request(#"{"type": "node", "style": {"layoutPosition": {"x": 1, "z": 2}}}"#),
                    path: "root.style.layoutPosition.z")
        assertError(request(#"{"type": "node", "style": {"sizeRange": {"min": {"width": 1, "w": 2}}}}"#),
                    path: "root.style.sizeRange.min.w")
        assertError(request(#"{"type": "node", "style": {"sizeRange": {"mid": {}}}}"#), path: "root.style.sizeRange.mid")
        assertError(request(#"{"type": "inset", "insets": {"top": 1, "start": 2}, "child": {"type": "node"}}"#),
                    path: "root.insets.start")
        assertError(request(#"{"type": "node", "intrinsicSize": {"width": 1, "height": 2, "scale": 2}}"#),
                    path: "root.intrinsicSize.scale")
        assertError(request(#"{"type": "corner", "child": {"type": "node"}, "corner": {"type": "node"}, "offset": {"x": 1, "dx": 2}}"#),
                    path: "root.offset.dx")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"min": {"width": 1}, "exact": {}}"#), path: "sizeRange.exact")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"max": {"width": 1, "depth": 2}}"#), path: "sizeRange.max.depth")
        assertError(request(#"{"type": "node"}"#, #""options": {"includeSpecs": true, "rtl": true}"#), path: "options.rtl")
        // text: font, span, textContainerInset; button title and image
        assertError(request(#"{"type": "text", "text": "a", "font": {"family": "Helvetica", "colour": "red"}}"#),
                    path: "root.font.colour", withText: true)
        assertError(request(#"{"type": "text", "spans": [{"text": "a"}, {"text": "b", "color": "red"}]}"#),
                    path: "root.spans[1].color", withText: true)
        assertError(request(#"{"type": "text", "spans": [{"text": "a", "font": {"size": 3, "kerning": 1}}]}"#),
                    path: "root.spans[0].font.kerning", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "textContainerInset": {"top": 1, "leading": 2}}"#),
                    path: "root.textContainerInset.leading", withText: true)
        assertError(request(#"{"type": "button", "title": {"text": "a", "color": "red"}}"#),
                    path: "root.title.color", withText: true)
        assertError(request(#"{"type": "button", "image": {"intrinsicSize": {"width": 1, "height": 1}, "tint": 1}}"#),
                    path: "root.image.tint")
    }

    // MARK: wrong field types

    func testWrongFieldTypes() {
        assertError(#"[]"#, path: nil, message: "object")
        assertError(#"{"root": []}"#, path: "root", message: "object")
        assertError(request(#"{"type": 5}"#), path: "root.type", message: "string")
        assertError(request(#"{"type": "node", "id": 5}"#), path: "root.id", message: "string")
        assertError(request(#"{"type": "node", "style": []}"#), path: "root.style", message: "object")
        assertError(request(#"{"type": "stack", "children": {}}"#), path: "root.children", message: "array")
        assertError(request(#"{"type": "stack", "children": [5]}"#), path: "root.children[0]", message: "object")
        assertError(request(#"{"type": "stack", "spacing": "10"}"#), path: "root.spacing", message: "number")
        assertError(request(#"{"type": "stack", "lineSpacing": null}"#), path: "root.lineSpacing", message: "number")
        assertError(request(#"{"type": "stack", "concurrent": 1}"#), path: "root.concurrent", message: "boolean")
        assertError(request(#"{"type": "stack", "direction": 1}"#), path: "root.direction", message: "string")
        assertError(request(#"{"type": "node", "style": {"flexGrow": "1"}}"#), path: "root.style.flexGrow")
        assertError(request(#"{"type": "node", "style": {"flexShrink": null}}"#), path: "root.style.flexShrink")
        assertError(request(#"{"type": "node", "style": {"spacingBefore": true}}"#), path: "root.style.spacingBefore")
        assertError(request(#"{"type": "node", "style": {"width": true}}"#), path: "root.style.width", message: "Dimension")
        assertError(request(#"{"type": "node", "style": {"width": null}}"#), path: "root.style.width")
        assertError(request(#"{"type": "node", "style": {"preferredSize": 5}}"#), path: "root.style.preferredSize")
        assertError(request(#"{"type": "node", "style": {"preferredSize": {"width": 1}}}"#), path: "root.style.preferredSize",
                    message: "height")
        assertError(request(#"{"type": "node", "style": {"preferredSize": {"width": "1", "height": 1}}}"#),
                    path: "root.style.preferredSize.width")
        assertError(request(#"{"type": "node", "style": {"layoutPosition": {"x": "1"}}}"#), path: "root.style.layoutPosition.x")
        assertError(request(#"{"type": "inset", "insets": {"top": "1"}, "child": {"type": "node"}}"#), path: "root.insets.top")
        assertError(request(#"{"type": "inset", "insets": [1, 2, 3, 4], "child": {"type": "node"}}"#), path: "root.insets")
        assertError(request(#"{"type": "ratio", "ratio": "1", "child": {"type": "node"}}"#), path: "root.ratio")
        assertError(request(#"{"type": "corner", "child": {"type": "node"}, "corner": {"type": "node"}, "wrapsCorner": "yes"}"#),
                    path: "root.wrapsCorner")
        assertError(request(#"{"type": "image", "url": 7}"#), path: "root.url")
        assertError(request(#"{"type": "node", "intrinsicSize": [1, 2]}"#), path: "root.intrinsicSize")
        assertError(request(#"{"type": "node", "layout": "stack"}"#), path: "root.layout", message: "object")
        assertError(request(#"{"type": "text", "text": 5}"#), path: "root.text", withText: true)
        assertError(request(#"{"type": "text", "spans": "a"}"#), path: "root.spans", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "maximumNumberOfLines": 1.5}"#),
                    path: "root.maximumNumberOfLines", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "font": {"italic": "yes"}}"#), path: "root.font.italic", withText: true)
        assertError(request(#"{"type": "button", "laysOutHorizontally": 0}"#), path: "root.laysOutHorizontally")
        assertError(request(#"{"type": "node"}"#, #""scale": "2""#), path: "scale")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": []"#), path: "sizeRange")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"max": {"width": "375"}}"#), path: "sizeRange.max.width")
        assertError(request(#"{"type": "node"}"#, #""options": {"includeSpecs": "yes"}"#), path: "options.includeSpecs")
        assertError(request(#"{"type": "node"}"#, #""options": true"#), path: "options")
    }

    func testMissingRoot() {
        guard let e = decodeError(#"{"scale": 2}"#) else { return }
        XCTAssertEqual(e.status, 400)
        XCTAssertEqual(e.code, "invalid_spec")
        XCTAssertTrue(e.message.contains("root"), e.message)
        // No empty path: either none or one naming the field.
        XCTAssertNotEqual(e.path, "")
    }

    // MARK: enums

    func testBadEnumValuesForEveryEnumField() {
        let stackFields = ["direction", "justifyContent", "alignItems", "flexWrap", "alignContent",
                           "horizontalAlignment", "verticalAlignment"]
        for f in stackFields {
            assertError(request(#"{"type": "stack", "\#(f)": "sideways"}"#), path: "root.\(f)", message: "sideways")
        }
        // Enum names are case-sensitive (Texture's names).
        assertError(request(#"{"type": "stack", "direction": "Vertical"}"#), path: "root.direction")
        assertError(request(#"{"type": "stack", "justifyContent": "space-between"}"#), path: "root.justifyContent")
        assertError(request(#"{"type": "stack", "children": [{"type": "node", "style": {"alignSelf": "baselineFirst"}}]}"#),
                    path: "root.children[0].style.alignSelf")
        assertError(request(#"{"type": "center", "centeringOptions": "z", "child": {"type": "node"}}"#), path: "root.centeringOptions")
        assertError(request(#"{"type": "center", "sizingOptions": "minimumZ", "child": {"type": "node"}}"#), path: "root.sizingOptions")
        assertError(request(#"{"type": "relative", "horizontalPosition": "left", "child": {"type": "node"}}"#),
                    path: "root.horizontalPosition")
        assertError(request(#"{"type": "relative", "verticalPosition": "top", "child": {"type": "node"}}"#),
                    path: "root.verticalPosition")
        assertError(request(#"{"type": "relative", "sizingOption": "minimumXY", "child": {"type": "node"}}"#),
                    path: "root.sizingOption")
        assertError(request(#"{"type": "absolute", "sizing": "fit"}"#), path: "root.sizing")
        assertError(request(#"{"type": "corner", "child": {"type": "node"}, "corner": {"type": "node"}, "cornerLocation": "top"}"#),
                    path: "root.cornerLocation")
        assertError(request(#"{"type": "text", "text": "a", "alignment": "start"}"#), path: "root.alignment", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "truncationMode": "end"}"#), path: "root.truncationMode", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "font": {"weight": "fat"}}"#), path: "root.font.weight", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "font": {"weight": 0}}"#), path: "root.font.weight", withText: true)
        assertError(request(#"{"type": "button", "contentHorizontalAlignment": "center"}"#), path: "root.contentHorizontalAlignment")
        assertError(request(#"{"type": "button", "contentVerticalAlignment": "middle"}"#), path: "root.contentVerticalAlignment")
        assertError(request(#"{"type": "button", "imageAlignment": "left"}"#), path: "root.imageAlignment")
    }

    // MARK: dimensions and numbers

    func testBadDimensions() {
        // A bare numeric string is not turned into `auto` as Texture's string parser would (§1.2).
        assertError(request(#"{"type": "node", "style": {"width": "100"}}"#), path: "root.style.width", message: "Dimension")
        // Fractions outside [0, 1] (§1.1).
        assertError(request(#"{"type": "node", "style": {"height": "150%"}}"#), path: "root.style.height")
        assertError(request(#"{"type": "node", "style": {"minWidth": "-5%"}}"#), path: "root.style.minWidth")
        // Negative points.
        assertError(request(#"{"type": "node", "style": {"maxHeight": -5}}"#), path: "root.style.maxHeight", message: ">= 0")
        assertError(request(#"{"type": "node", "style": {"flexBasis": "-10pt"}}"#), path: "root.style.flexBasis")
        // Not a dimension at all.
        for bad in ["abc", "", "50 %", "%", "auto ", "AUTO", "50px", "nan%", "inf%", "1e400%"] {
            assertError(request(#"{"type": "node", "style": {"maxWidth": "\#(bad)"}}"#), path: "root.style.maxWidth")
        }
        // In the 1.x sizeRange too.
        assertError(request(#"{"type": "node", "style": {"sizeRange": {"max": {"height": "200%"}}}}"#),
                    path: "root.style.sizeRange.max.height")
        // And the valid forms decode.
        let ok = decode(request(#"{"type": "node", "style": {"width": "50%", "height": "auto", "minWidth": 0, "maxWidth": "100%", "minHeight": "0%", "maxHeight": "12pt", "flexBasis": 3.5}}"#))
        XCTAssertEqual(ok?.root.style.width, .fraction(0.5))
        XCTAssertEqual(ok?.root.style.height, .auto)
        XCTAssertEqual(ok?.root.style.minWidth, .points(0))
        XCTAssertEqual(ok?.root.style.maxWidth, .fraction(1))
        XCTAssertEqual(ok?.root.style.minHeight, .fraction(0))
        XCTAssertEqual(ok?.root.style.maxHeight, .points(12))
        XCTAssertEqual(ok?.root.style.flexBasis, .points(3.5))
    }

    func testNegativeSizes() {
        assertError(request(#"{"type": "node", "style": {"width": -1}}"#), path: "root.style.width")
        assertError(request(#"{"type": "node", "style": {"preferredSize": {"width": 10, "height": -1}}}"#),
                    path: "root.style.preferredSize.height")
        assertError(request(#"{"type": "node", "style": {"minSize": {"width": -0.5, "height": 1}}}"#),
                    path: "root.style.minSize.width")
        assertError(request(#"{"type": "node", "style": {"maxSize": {"width": 1, "height": -1}}}"#),
                    path: "root.style.maxSize.height")
        assertError(request(#"{"type": "node", "intrinsicSize": {"width": -3, "height": 1}}"#), path: "root.intrinsicSize.width")
        assertError(request(#"{"type": "image", "intrinsicSize": {"width": 3, "height": -1}}"#), path: "root.intrinsicSize.height")
        assertError(request(#"{"type": "node", "style": {"flexGrow": -1}}"#), path: "root.style.flexGrow")
        assertError(request(#"{"type": "node", "style": {"flexShrink": -0.5}}"#), path: "root.style.flexShrink")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"min": {"width": -1}}"#), path: "sizeRange.min.width")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"max": {"height": -1}}"#), path: "sizeRange.max.height")
        assertError(request(#"{"type": "text", "text": "a", "lineSpacing": -1}"#), path: "root.lineSpacing", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "maximumNumberOfLines": -1}"#),
                    path: "root.maximumNumberOfLines", withText: true)
        // -0 is zero, not negative.
        XCTAssertEqual(decode(request(#"{"type": "node", "style": {"width": -0}}"#))?.root.style.width, .points(0))
    }

    func testHugeNumbersAreNotFinite() {
        assertError(request(#"{"type": "node", "style": {"width": 1e400}}"#), path: "root.style.width", message: "finite")
        assertError(request(#"{"type": "stack", "spacing": -1e400}"#), path: "root.spacing", message: "finite")
        assertError(request(#"{"type": "ratio", "ratio": 1e400, "child": {"type": "node"}}"#), path: "root.ratio", message: "finite")
        assertError(request(#"{"type": "node", "style": {"layoutPosition": {"x": 1e999}}}"#),
                    path: "root.style.layoutPosition.x", message: "finite")
        assertError(request(#"{"type": "inset", "insets": {"left": 1e400}, "child": {"type": "node"}}"#),
                    path: "root.insets.left", message: "finite")
        assertError(request(#"{"type": "node"}"#, #""scale": 1e400"#), path: "scale")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"max": {"width": 1e400}}"#), path: "sizeRange.max.width")
    }

    // MARK: ids and members

    func testDuplicateId() {
        assertError(request(#"{"type": "stack", "id": "a", "children": [{"type": "node", "id": "b"}, {"type": "node", "id": "a"}]}"#),
                    path: "root.children[1].id", message: "'a'")
        assertError(request(#"{"type": "node", "id": "n", "layout": {"type": "inset", "child": {"type": "node", "id": "n"}}}"#),
                    path: "root.layout.child.id")
    }

    func testDuplicateJSONMember() {
        assertError(request(#"{"type": "node", "type": "node"}"#), path: "root.type", message: "duplicate")
        assertError(request(#"{"type": "node", "style": {"width": 1, "height": 2, "width": 3}}"#), path: "root.style.width",
                    message: "duplicate")
        assertError(#"{"root": {"type": "node"}, "root": {"type": "node"}}"#, path: "root", message: "duplicate")
        assertError(request(#"{"type": "inset", "insets": {"top": 1, "top": 1}, "child": {"type": "node"}}"#), path: "root.insets.top")
    }

    // MARK: spec-specific rules

    func testRatioMustBePositive() {
        assertError(request(#"{"type": "ratio", "ratio": 0, "child": {"type": "node"}}"#), path: "root.ratio", message: "> 0")
        assertError(request(#"{"type": "ratio", "ratio": -0.5, "child": {"type": "node"}}"#), path: "root.ratio")
        assertError(request(#"{"type": "stack", "children": [{"type": "node"}, {"type": "ratio", "ratio": -0, "child": {"type": "node"}}]}"#),
                    path: "root.children[1].ratio")
        // A missing field's path names the field.
        assertError(request(#"{"type": "ratio", "child": {"type": "node"}}"#), path: "root.ratio", message: "ratio")
    }

    func testBaselineAlignmentInAVerticalStack() {
        for a in ["baselineFirst", "baselineLast"] {
            assertError(request(#"{"type": "stack", "direction": "vertical", "alignItems": "\#(a)"}"#),
                        path: "root.alignItems", message: "baseline")
            assertError(request(#"{"type": "stack", "children": [{"type": "stack", "alignItems": "\#(a)", "direction": "vertical"}]}"#),
                        path: "root.children[0].alignItems")
        }
        // Horizontal is fine.
        XCTAssertNotNil(decode(request(#"{"type": "stack", "alignItems": "baselineFirst"}"#)))
    }

    func testMissingChildren() {
        assertError(request(#"{"type": "inset"}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "center"}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "relative"}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "ratio", "ratio": 1}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "overlay", "overlay": {"type": "node"}}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "overlay", "child": {"type": "node"}}"#), path: "root.overlay", message: "'overlay'")
        assertError(request(#"{"type": "background", "child": {"type": "node"}}"#), path: "root.background", message: "'background'")
        assertError(request(#"{"type": "background", "background": {"type": "node"}}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "corner", "child": {"type": "node"}}"#), path: "root.corner", message: "'corner'")
        assertError(request(#"{"type": "corner", "corner": {"type": "node"}}"#), path: "root.child", message: "'child'")
        assertError(request(#"{"type": "stack", "children": [{"type": "inset", "insets": {}}]}"#), path: "root.children[0].child")
        assertError(request(#"{"type": "inset", "child": null}"#), path: "root.child", message: "object")
    }

    func testChildGivenAnArray() {
        assertError(request(#"{"type": "inset", "child": [{"type": "node"}]}"#), path: "root.child", message: "array")
        assertError(request(#"{"type": "overlay", "child": {"type": "node"}, "overlay": []}"#), path: "root.overlay")
        assertError(request(#"{"type": "corner", "child": {"type": "node"}, "corner": [{"type": "node"}]}"#), path: "root.corner")
        assertError(request(#"{"type": "node", "layout": [{"type": "stack"}]}"#), path: "root.layout")
    }

    func testNodeWithBothLayoutAndIntrinsicSize() {
        assertError(request(#"{"type": "node", "layout": {"type": "stack"}, "intrinsicSize": {"width": 1, "height": 1}}"#),
                    path: "root.intrinsicSize", message: "not both")
    }

    func testTextWithoutAMeasurer() {
        assertError(request(#"{"type": "text", "text": "hello"}"#), path: "root", message: "text measurer")
        assertError(request(#"{"type": "stack", "children": [\#(box), {"type": "text", "text": "hello"}]}"#),
                    path: "root.children[1]")
        assertError(request(#"{"type": "button", "title": {"text": "OK"}}"#), path: "root.title")
        // With one it decodes; text without text or spans does not.
        XCTAssertNotNil(decode(request(#"{"type": "text", "text": "hello"}"#), withText: true))
        assertError(request(#"{"type": "text"}"#), path: "root", message: "'text' or 'spans'", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "spans": []}"#), path: "root.spans", withText: true)
        assertError(request(#"{"type": "text", "spans": [{"font": {}}]}"#), path: "root.spans[0]", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "font": {"family": "MissingSans"}}"#), path: "root.font.family",
                    message: "MissingSans", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "font": {"size": 0}}"#), path: "root.font.size", withText: true)
        assertError(request(#"{"type": "text", "text": "a", "lineHeight": 0}"#), path: "root.lineHeight", withText: true)
    }

    func testFractionalMinOrMaxOnAStretchChild() {
        // alignItems defaults to stretch (§7.2.1) and the child's alignSelf is auto (§7.2.11).
        assertError(request(#"{"type": "stack", "children": [{"type": "node", "style": {"minWidth": "50%"}}]}"#),
                    path: "root.children[0].style.minWidth", message: "stretch")
        assertError(request(#"{"type": "stack", "direction": "vertical", "children": [\#(box), {"type": "node", "style": {"maxHeight": "10%"}}]}"#),
                    path: "root.children[1].style.maxHeight")
        // alignSelf stretch in a start-aligned stack counts too.
        assertError(request(#"{"type": "stack", "alignItems": "start", "children": [{"type": "node", "style": {"alignSelf": "stretch", "minHeight": "1%"}}]}"#),
                    path: "root.children[0].style.minHeight")
        // The 1.x sizeRange sets the same fields.
        assertError(request(#"{"type": "stack", "children": [{"type": "node", "style": {"sizeRange": {"max": {"width": "80%"}}}}]}"#),
                    path: "root.children[0].style.maxWidth")
        // Not stretch, or not min/max: accepted.
        XCTAssertNotNil(decode(request(#"{"type": "stack", "alignItems": "start", "children": [{"type": "node", "style": {"minWidth": "50%"}}]}"#)))
        XCTAssertNotNil(decode(request(#"{"type": "stack", "children": [{"type": "node", "style": {"alignSelf": "center", "minWidth": "50%"}}]}"#)))
        XCTAssertNotNil(decode(request(#"{"type": "stack", "children": [{"type": "node", "style": {"width": "50%"}}]}"#)))
        // horizontalAlignment on a vertical stack sets alignItems (§7.2.2): no longer stretch.
        XCTAssertNotNil(decode(request(#"{"type": "stack", "direction": "vertical", "horizontalAlignment": "left", "children": [{"type": "node", "style": {"minWidth": "50%"}}]}"#)))
    }

    func testSizeRangeMinAboveMax() {
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"min": {"width": 400}, "max": {"width": 300}}"#),
                    path: "sizeRange.min", message: "min.width")
        assertError(request(#"{"type": "node"}"#, #""sizeRange": {"min": {"height": 10.5}, "max": {"height": 10}}"#),
                    path: "sizeRange.min", message: "min.height")
        // Equal is fine, and a null max is unbounded.
        let r = decode(request(#"{"type": "node"}"#, #""sizeRange": {"min": {"width": 300, "height": 5}, "max": {"width": 300, "height": null}}"#))
        XCTAssertEqual(r?.sizeRange.min, Size(width: 300, height: 5))
        XCTAssertEqual(r?.sizeRange.max.width, 300)
        XCTAssertEqual(r?.sizeRange.max.height, .infinity)
    }

    func testScaleMustBePositive() {
        assertError(request(#"{"type": "node"}"#, #""scale": 0"#), path: "scale", message: "> 0")
        assertError(request(#"{"type": "node"}"#, #""scale": -2"#), path: "scale")
        XCTAssertEqual(decode(request(#"{"type": "node"}"#, #""scale": 2.625"#))?.scale, 2.625)
        XCTAssertEqual(decode(request(#"{"type": "node"}"#))?.scale, 2)
    }

    // MARK: limits

    func testDepthOverTheLimit() {
        let limits = DecodeLimits(maxDepth: 10, maxNodes: 1000)
        func insets(_ n: Int) -> String {
            var s = #"{"type": "node"}"#
            for _ in 1..<n { s = #"{"type": "inset", "child": \#(s)}"# }
            return request(s)
        }
        // 10 elements deep decodes, 11 does not; the path names the element over the limit.
        XCTAssertNoThrow(try RequestDecoder(limits: limits).decode(body: Array(insets(10).utf8)))
        assertError(insets(11), path: "root" + String(repeating: ".child", count: 10), status: 413, code: "too_large", limits: limits)
        // Stacks: two JSON levels per element.
        func stacks(_ n: Int) -> String {
            var s = #"{"type": "node"}"#
            for _ in 1..<n { s = #"{"type": "stack", "children": [\#(s)]}"# }
            return request(s)
        }
        XCTAssertNoThrow(try RequestDecoder(limits: limits).decode(body: Array(stacks(10).utf8)))
        assertError(stacks(11), path: "root" + String(repeating: ".children[0]", count: 10), status: 413, code: "too_large",
                    limits: limits)
        // Far over: the JSON nesting guard answers first, without a path.
        assertError(stacks(200), path: nil, status: 413, code: "too_large", limits: limits)
        // Default limit (512) through the service.
        let service = LayoutService(textMeasurer: nil)
        var deep = #"{"type": "node"}"#
        for _ in 0..<600 { deep = #"{"type": "inset", "child": \#(deep)}"# }
        let outcome = service.layout(body: Array(request(deep).utf8))
        XCTAssertEqual(outcome.status, 413)
        XCTAssertEqual(Svc.error(outcome.body)["code"] as? String, "too_large")
    }

    /// Dimensions and flex factors read their number straight after looking at its first
    /// byte: the same checks, in the same order, as every other number (finite first, then
    /// >= 0), with the member's path; and the values read are the values written.
    func testDimensionAndFlexNumbersAreCheckedAsOtherNumbers() {
        for field in ["width", "maxHeight", "flexBasis", "flexGrow", "flexShrink"] {
            let path = "root.style.\(field)"
            assertError(request(#"{"type": "node", "style": {"\#(field)": -1}}"#), path: path, message: "must be >= 0")
            assertError(request(#"{"type": "node", "style": {"\#(field)": -0.5}}"#), path: path, message: "must be >= 0")
            assertError(request(#"{"type": "node", "style": {"\#(field)": 1e400}}"#), path: path, message: "must be a finite number")
            assertError(request(#"{"type": "node", "style": {"\#(field)": -1e400}}"#), path: path, message: "must be a finite number")
            assertError(request(#"{"type": "node", "style": {"\#(field)": -}}"#), path: nil, code: "malformed_json")
            assertError(request(#"{"type": "node", "style": {"\#(field)": null}}"#), path: path, message: "not null")
        }
        let values: [(String, Double)] = [("0", 0), ("7", 7), ("1234567", 1_234_567), ("12345678", 12_345_678),
                                          ("2.5", 2.5), ("1e2", 100), ("0.125", 0.125), ("-0", 0)]
        for (text, value) in values {
            guard let r = decode(request(#"{"type": "node", "style": {"width": \#(text), "flexGrow": \#(text)}}"#)) else { continue }
            XCTAssertEqual(r.root.style.width, .points(value), text)
            XCTAssertEqual(r.root.style.flexGrow, value, text)
        }
    }

    func testPathOfAnErrorFarDown() {
        // 150 inset → stack levels: a path of 302 components, beyond what the path keeps
        // room for at first (it grows), each named exactly.
        var e = #"{"type": "node", "style": {"width": -1}}"#
        for _ in 0..<150 { e = #"{"type": "inset", "insets": {"top": 1}, "child": {"type": "stack", "children": [\#(e)]}}"# }
        assertError(request(e), path: "root" + String(repeating: ".child.children[0]", count: 150) + ".style.width",
                    message: "must be >= 0")
    }

    func testShortNamesAreMatchedWhole() {
        // Names shorter than 8 bytes are read as one 8-byte word when 8 bytes follow their
        // start, masked to their length: a prefix or an extension of a known name is unknown,
        // wherever it sits (the end of the body included).
        assertError(request(#"{"typ": 1, "type": "node"}"#), path: "root.typ", message: "unknown field 'typ'")
        assertError(request(#"{"type": "node", "styl": {}}"#), path: "root.styl", message: "unknown field 'styl'")
        assertError(request(#"{"type": "node", "styles": {}}"#), path: "root.styles")
        assertError(request(#"{"type": "stack", "alignItems": "star"}"#), path: "root.alignItems", message: "'star' is not one of")
        assertError(request(#"{"type": "stack", "alignItems": "starts"}"#), path: "root.alignItems")
        assertError(request(#"{"type": "nod"}"#), path: "root.type", message: "unknown element type 'nod'")
        XCTAssertNotNil(decode(#"{"root":{"type":"spacer"}}"#))
        XCTAssertNotNil(decode(#"{"root":{"type":"stack","alignItems":"end"}}"#))
        assertError(#"{"root":{"type":"stack","alignItems":"en"}}"#, path: "root.alignItems")
        assertError(#"{"root":{"type":"node","id":"a","x":1}}"#, path: "root.x")
    }

    func testNodeCountOverTheLimit() {
        let limits = DecodeLimits(maxDepth: 100, maxNodes: 100)
        func stack(_ n: Int) -> String {
            request(#"{"type": "stack", "children": [\#(Array(repeating: #"{"type": "node"}"#, count: n).joined(separator: ","))]}"#)
        }
        // The stack plus 99 nodes = 100 elements; one more is over.
        XCTAssertEqual(try? RequestDecoder(limits: limits).decode(body: Array(stack(99).utf8)).elementCount, 100)
        assertError(stack(100), path: "root.children[99]", status: 413, code: "too_large", message: "100", limits: limits)
        assertError(stack(5000), path: "root.children[99]", status: 413, code: "too_large", limits: limits)
    }

    func testMalformedJSON() {
        guard let e = decodeError("{\"root\": {\"type\": \"node\",}}") else { return }
        XCTAssertEqual(e.status, 400)
        XCTAssertEqual(e.code, "malformed_json")
        XCTAssertNil(e.path)
        XCTAssertTrue(e.message.contains("line 1"), e.message)
        XCTAssertTrue(e.message.contains("column 26"), e.message)
        let body = LayoutService(textMeasurer: nil).layout(body: Array("{\"root\":\n  nope}".utf8))
        XCTAssertEqual(body.status, 400)
        XCTAssertEqual(body.contentType, "application/json")
        let err = Svc.error(body.body)
        XCTAssertEqual(err["code"] as? String, "malformed_json")
        let message = err["message"] as? String ?? ""
        XCTAssertTrue(message.contains("line 2") && message.contains("column 3"), message)
    }

    func testErrorBodiesAreWellFormed() {
        let outcome = LayoutService(textMeasurer: nil).layout(body: Array(request(#"{"type": "stak\"\n"}"#).utf8))
        XCTAssertEqual(outcome.status, 400)
        XCTAssertNil(outcome.key)
        XCTAssertFalse(outcome.cacheHit)
        let e = Svc.error(outcome.body)
        XCTAssertEqual(e["code"] as? String, "invalid_spec")
        XCTAssertEqual(e["path"] as? String, "root.type")
        XCTAssertTrue((e["message"] as? String ?? "").contains("stak\"\n"))
    }

    // MARK: legacy forms and style order

    func testLegacyStaticSpec() {
        // §13: static = absolute with sizing sizeToFit. Range [0,0]–[300,300], child at (10,20)
        // with preferred size 30×40: child range resolves to exactly 30×40 (§7.9), and the
        // spec sizes to fit: MAX(min, max(pos + size)) = (40, 60).
        let body = request(#"{"type": "static", "id": "s", "children": [{"type": "node", "id": "n", "style": {"layoutPosition": {"x": 10, "y": 20}, "preferredFrameSize": {"width": 30, "height": 40}}}]}"#,
                           #""sizeRange": {"max": {"width": 300, "height": 300}}"#)
        let outcome = LayoutService(textMeasurer: nil).layout(body: Array(body.utf8))
        XCTAssertEqual(outcome.status, 200, Svc.text(outcome.body))
        let frames = Svc.frames(outcome.body)
        XCTAssertEqual(frames["s"], [0, 0, 40, 60])
        XCTAssertEqual(frames["n"], [10, 20, 30, 40])
        XCTAssertEqual((Svc.object(outcome.body)["layout"] as? [String: Any])?["type"] as? String, "static")
        // The same with absolute default sizing fills the finite max instead (§7.9).
        let absolute = body.replacingOccurrences(of: "\"static\"", with: "\"absolute\"")
        XCTAssertEqual(Svc.frames(LayoutService(textMeasurer: nil).layout(body: Array(absolute.utf8)).body)["s"], [0, 0, 300, 300])
    }

    func testLegacyPreferredFrameSizeAndSizeRange() {
        let r = decode(request(#"{"type": "node", "style": {"preferredFrameSize": {"width": 30, "height": 40}}}"#))
        XCTAssertEqual(r?.root.style.width, .points(30))
        XCTAssertEqual(r?.root.style.height, .points(40))

        // Child sizeRange: min → minWidth/minHeight, max → maxWidth/maxHeight, missing = auto.
        let s = decode(request(#"{"type": "node", "style": {"minHeight": 7, "sizeRange": {"min": {"width": 50}, "max": {"width": 80, "height": "50%"}}}}"#))
        XCTAssertEqual(s?.root.style.minWidth, .points(50))
        XCTAssertEqual(s?.root.style.minHeight, .auto)       // overwritten by the later sizeRange
        XCTAssertEqual(s?.root.style.maxWidth, .points(80))
        XCTAssertEqual(s?.root.style.maxHeight, .fraction(0.5))
        XCTAssertEqual(s?.root.style.width, .auto)

        // Laid out as root in [0,0]–[200,200]: style resolved against (200,200) (§5): width
        // [50,80], height [0,100]; a plain node takes the max: 80×100 (§4.2).
        let body = request(#"{"type": "node", "id": "n", "style": {"sizeRange": {"min": {"width": 50}, "max": {"width": 80, "height": "50%"}}}}"#,
                           #""sizeRange": {"max": {"width": 200, "height": 200}}"#)
        XCTAssertEqual(Svc.frames(LayoutService(textMeasurer: nil).layout(body: Array(body.utf8)).body)["n"], [0, 0, 80, 100])
    }

    func testLegacyBooleanFlexFactors() {
        let r = decode(request(#"{"type": "node", "style": {"flexGrow": true, "flexShrink": false}}"#))
        XCTAssertEqual(r?.root.style.flexGrow, 1)
        XCTAssertEqual(r?.root.style.flexShrink, 0)
        let r2 = decode(request(#"{"type": "node", "style": {"flexGrow": false, "flexShrink": true}}"#))
        XCTAssertEqual(r2?.root.style.flexGrow, 0)
        XCTAssertEqual(r2?.root.style.flexShrink, 1)

        // Horizontal stack, exact 300×100, alignItems start; a (100×10, grow true), b (50×10).
        // Violation 300 − 150 = 150, a grows by floor(150 × 1/1) = 150 → 250 (§7.2.5); b at 250.
        let body = request(#"{"type": "stack", "alignItems": "start", "children": [{"type": "node", "id": "a", "style": {"width": 100, "height": 10, "flexGrow": true}}, {"type": "node", "id": "b", "style": {"width": 50, "height": 10}}]}"#,
                           #""sizeRange": {"min": {"width": 300, "height": 100}, "max": {"width": 300, "height": 100}}"#)
        let frames = Svc.frames(LayoutService(textMeasurer: nil).layout(body: Array(body.utf8)).body)
        XCTAssertEqual(frames["a"], [0, 0, 250, 10])
        XCTAssertEqual(frames["b"], [250, 0, 50, 10])
    }

    func testStyleFieldsApplyInOrder() {
        let later = decode(request(#"{"type": "node", "style": {"preferredSize": {"width": 10, "height": 20}, "width": 30}}"#))
        XCTAssertEqual(later?.root.style.width, .points(30))
        XCTAssertEqual(later?.root.style.height, .points(20))
        let earlier = decode(request(#"{"type": "node", "style": {"width": 30, "preferredSize": {"width": 10, "height": 20}}}"#))
        XCTAssertEqual(earlier?.root.style.width, .points(10))
        XCTAssertEqual(earlier?.root.style.height, .points(20))
        let minThenMinSize = decode(request(#"{"type": "node", "style": {"minWidth": "10%", "minSize": {"width": 5, "height": 6}, "minHeight": 7}}"#))
        XCTAssertEqual(minThenMinSize?.root.style.minWidth, .points(5))
        XCTAssertEqual(minThenMinSize?.root.style.minHeight, .points(7))
        let maxSizeThenMax = decode(request(#"{"type": "node", "style": {"maxSize": {"width": 5, "height": 6}, "maxWidth": "auto"}}"#))
        XCTAssertEqual(maxSizeThenMax?.root.style.maxWidth, .auto)
        XCTAssertEqual(maxSizeThenMax?.root.style.maxHeight, .points(6))

        // Through a layout: a root node in [0,0]–[100,100] with an exact style size.
        func size(_ style: String) -> [Double]? {
            let body = request(#"{"type": "node", "id": "n", "style": \#(style)}"#, #""sizeRange": {"max": {"width": 100, "height": 100}}"#)
            return Svc.frames(LayoutService(textMeasurer: nil).layout(body: Array(body.utf8)).body)["n"]
        }
        XCTAssertEqual(size(#"{"preferredSize": {"width": 10, "height": 20}, "width": 30}"#), [0, 0, 30, 20])
        XCTAssertEqual(size(#"{"width": 30, "preferredSize": {"width": 10, "height": 20}}"#), [0, 0, 10, 20])
    }

    // MARK: one pass over the bytes

    /// Members may come in any order: `type` last decodes like `type` first (the decoder
    /// gathers an element's members before it knows its type).
    func testMemberOrderDoesNotMatter() {
        let first = request(#"{"type": "stack", "direction": "vertical", "spacing": 3, "children": [{"type": "ratio", "id": "r", "ratio": 0.5, "child": \#(box)}, {"type": "inset", "id": "i", "insets": {"top": 1}, "child": \#(box)}]}"#,
                            #""sizeRange": {"max": {"width": 100, "height": 500}}"#)
        let last = #"{"sizeRange": {"max": {"height": 500, "width": 100}}, "root": {"children": [{"child": \#(box), "ratio": 0.5, "id": "r", "type": "ratio"}, {"child": \#(box), "insets": {"top": 1}, "id": "i", "type": "inset"}], "spacing": 3, "direction": "vertical", "type": "stack"}}"#
        let service = LayoutService(textMeasurer: nil)
        let a = service.layout(body: Array(first.utf8)), b = service.layout(body: Array(last.utf8))
        XCTAssertEqual(a.status, 200)
        XCTAssertEqual(b.status, 200)
        XCTAssertEqual(a.key, b.key)
        // Vertical stack 100 wide, children stretched: the ratio spec 100 × (0.5 × 100); then
        // spacing 3; the inset holds the 10-tall box under a 1-point top inset.
        XCTAssertEqual(Svc.frames(b.body)["r"], [0, 0, 100, 50])
        XCTAssertEqual(Svc.frames(b.body)["i"], [0, 53, 100, 11])
    }

    /// A member name written with escapes is the same name.
    func testEscapedMemberNames() {
        let r = decode(request(#"{"t\u0079pe": "node", "style": {"wid\u0074h": 12, "\u0068eight": 7}}"#))
        XCTAssertEqual(r?.root.style.width, .points(12))
        XCTAssertEqual(r?.root.style.height, .points(7))
        assertError(request(#"{"type": "node", "style": {"width": 1, "wid\u0074h": 2}}"#), path: "root.style.width", message: "duplicate")
    }

    /// The first syntax error of the body wins over a wrong field before it: a body that is
    /// not JSON is reported as such, as a parser that reads the whole body first would.
    func testSyntaxErrorAfterAWrongFieldIsReportedAsMalformed() {
        let body = #"{"root": {"type": "stak", "children": [1, 2,]}}"#
        guard let e = decodeError(body) else { return }
        XCTAssertEqual(e.code, "malformed_json")
        XCTAssertTrue(e.message.contains("line 1") && e.message.contains("column 45"), e.message)
        // An unknown member whose value is broken is a syntax error too.
        XCTAssertEqual(decodeError(#"{"root": {"type": "node", "colour": [1 2]}}"#)?.code, "malformed_json")
    }

    /// An unknown member before `type` is still reported with the element's type.
    func testUnknownMemberBeforeType() {
        assertError(request(#"{"colour": {"deep": [1, {"x": null}]}, "type": "inset", "child": {"type": "node"}}"#),
                    path: "root.colour", message: "in a inset element")
    }

    /// preferredSize and its older name preferredFrameSize are two members (applied in order),
    /// not a duplicate.
    func testPreferredSizeAliasesApplyInOrder() {
        let r = decode(request(#"{"type": "node", "style": {"preferredSize": {"width": 1, "height": 2}, "preferredFrameSize": {"width": 3, "height": 4}}}"#))
        XCTAssertEqual(r?.root.style.width, .points(3))
        XCTAssertEqual(r?.root.style.height, .points(4))
    }

    /// A batch is split into item byte ranges; each item decodes on its own, with its errors
    /// under `items[k]`, and a syntax error anywhere fails the whole batch.
    func testBatchItemRanges() throws {
        let decoder = RequestDecoder()
        let body = Array(#"{"items": [ {"root": {"type": "node"}} , {"root": {"type": "nod"}}, {"root": {"type": "spacer"}}]}"#.utf8)
        let ranges = try decoder.batchItems(body: body, maxItems: 10)
        XCTAssertEqual(ranges.count, 3)
        XCTAssertEqual(String(decoding: body[ranges[0]], as: UTF8.self), #"{"root": {"type": "node"}}"#)
        // The third item is a spacer (a plain `LayoutSpec`).
        XCTAssertTrue(type(of: try decoder.decode(body: body, range: ranges[2]).root) == LayoutSpec.self)
        XCTAssertThrowsError(try decoder.decode(body: body, range: ranges[1])) { error in
            XCTAssertEqual((error as? WireError)?.path, "root.type")
        }
        XCTAssertThrowsError(try decoder.batchItems(body: Array(#"{"items": [{"root": {"type": "node"}}, {"root": }]}"#.utf8), maxItems: 10)) { error in
            XCTAssertEqual((error as? WireError)?.code, "malformed_json")
        }
        XCTAssertThrowsError(try decoder.batchItems(body: Array(#"{"items": [], "more": 1}"#.utf8), maxItems: 10)) { error in
            XCTAssertEqual((error as? WireError)?.path, "items")
        }
        XCTAssertThrowsError(try decoder.batchItems(body: Array(#"{"items": [{}, {}, {}]}"#.utf8), maxItems: 2)) { error in
            XCTAssertEqual((error as? WireError)?.status, 413)
        }
    }
}

// MARK: Messages that help (issue 21's CLI details)
extension DecoderErrorTests {
    /// An unknown `type` names the kind it is one edit (two for longer names) away from,
    /// case ignored; the code and path stay those of any unknown type.
    func testUnknownTypeSuggestsTheNearestKind() {
        for (typed, meant) in [("stak", "stack"), ("Stack", "stack"), ("nod", "node"), ("txt", "text"), ("overlya", "overlay"),
                               ("ratoi", "ratio"), ("backgrond", "background"), ("insett", "inset")] {
            assertError(request(#"{"type": "\#(typed)"}"#), path: "root.type",
                        message: "unknown element type '\(typed)'; did you mean '\(meant)'?")
        }
        // Nothing near: every type is listed instead.
        guard let e = decodeError(request(#"{"type": "paragraph"}"#)) else { return }
        XCTAssertEqual(e.path, "root.type")
        XCTAssertFalse(e.message.contains("did you mean"), e.message)
        for kind in ["stack", "inset", "overlay", "center", "ratio", "corner", "spacer", "node", "text"] {
            XCTAssertTrue(e.message.contains(kind), "\(kind) missing from \(e.message)")
        }
    }

    /// The weight message says what the decoder accepts: every name it lists decodes, and
    /// the numeric bounds it gives are the ones enforced.
    func testWeightMessageAgreesWithWhatIsAccepted() {
        guard let e = decodeError(request(#"{"type": "text", "text": "a", "font": {"weight": "fat"}}"#), withText: true) else { return }
        XCTAssertEqual(e.path, "root.font.weight")
        XCTAssertTrue(e.message.contains("1…1000"), e.message)
        let listed = e.message.components(separatedBy: "one of ").last!.components(separatedBy: ", ")
        XCTAssertEqual(Set(listed), ["thin", "ultralight", "extralight", "light", "normal", "regular", "medium", "semibold",
                                     "demibold", "bold", "extrabold", "heavy", "black"])
        for name in listed + ["BOLD"] {
            XCTAssertNotNil(decode(request(#"{"type": "text", "text": "a", "font": {"weight": "\#(name)"}}"#), withText: true), name)
        }
        for accepted in [1, 1000] {
            XCTAssertNotNil(decode(request(#"{"type": "text", "text": "a", "font": {"weight": \#(accepted)}}"#), withText: true))
        }
        for refused in ["0", "1001"] {
            assertError(request(#"{"type": "text", "text": "a", "font": {"weight": \#(refused)}}"#), path: "root.font.weight",
                        message: "between 1 and 1000", withText: true)
        }
    }
}
