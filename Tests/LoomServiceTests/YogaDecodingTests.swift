import Foundation
import LoomLayout
@testable import LoomService
import XCTest

/// The Yoga part of the wire format (docs/yoga.md §6, §7): `yogaChildren`,
/// the Yoga style fields, their errors with exact paths, their canonical hashing, and the
/// walks (paths, flattening) over Yoga children.
final class YogaDecodingTests: XCTestCase {
    let measurer = AttributeSensitiveTextMeasurer()

    private func decode(_ body: String, file: StaticString = #filePath, line: UInt = #line) throws -> LayoutRequest {
        try RequestDecoder(textMeasurer: measurer).decode(body: Array(body.utf8))
    }

    private func root(_ element: String) -> String { #"{"root": \#(element)}"# }

    private func assertError(_ body: String, path: String, message fragment: String? = nil,
                             file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try RequestDecoder(textMeasurer: measurer).decode(body: Array(body.utf8))
            XCTFail("decoded, but expected an error: \(body.prefix(300))", file: file, line: line)
        } catch let e as WireError {
            XCTAssertEqual(e.status, 400, "\(e)", file: file, line: line)
            XCTAssertEqual(e.code, "invalid_spec", "\(e)", file: file, line: line)
            XCTAssertEqual(e.path, path, "\(e.message)", file: file, line: line)
            if let fragment {
                XCTAssertTrue(e.message.contains(fragment), "'\(e.message)' should contain '\(fragment)'", file: file, line: line)
            }
        } catch {
            XCTFail("not a WireError: \(error)", file: file, line: line)
        }
    }

    // MARK: decoding

    func testEveryStyleFieldDecodes() throws {
        let r = try decode(root(#"""
        {"type": "node", "yogaChildren": [{"type": "node", "id": "c", "style": {
          "flexDirection": "horizontalReverse", "direction": "rtl", "justifyContent": "spaceAround",
          "alignItems": "baselineLast", "alignSelf": "center", "flexWrap": "wrapReverse", "positionType": "absolute",
          "position": {"top": 1, "left": "10%", "bottom": "auto", "right": 2, "start": 3, "end": "4pt",
                       "horizontal": 5, "vertical": 6, "all": 7},
          "margin": {"all": "50%"}, "padding": {"horizontal": 8, "vertical": "100%"}, "border": {"start": 1.5, "end": 0},
          "aspectRatio": 1.5, "width": "50%", "height": 20, "minWidth": 1, "maxWidth": 200, "minHeight": 2, "maxHeight": "90%",
          "flexGrow": 2, "flexShrink": 1, "flexBasis": "25%", "ascender": 12, "descender": -3}}]}
        """#))
        let container = try XCTUnwrap(r.root as? DisplayNode)
        XCTAssertEqual(container.yogaChildren.count, 1)
        XCTAssertNil(container.yogaStyle)
        let c = container.yogaChildren[0]
        XCTAssertEqual(c.id, "c")
        var want = YogaStyle()
        want.flexDirection = .horizontalReverse
        want.direction = .rtl
        want.justifyContent = .spaceAround
        want.alignItems = .baselineLast
        want.flexWrap = .wrapReverse
        want.positionType = .absolute
        want.position = YogaEdges(top: .points(1), left: .fraction(0.1), bottom: nil, right: .points(2), start: .points(3),
                                  end: .points(4), horizontal: .points(5), vertical: .points(6), all: .points(7))
        want.margin = YogaEdges(all: .fraction(0.5))
        want.padding = YogaEdges(horizontal: .points(8), vertical: .fraction(1))
        want.border = YogaEdges(start: .points(1.5), end: .points(0))
        want.aspectRatio = 1.5
        XCTAssertEqual(c.yogaStyle, want)
        let s = c.style
        XCTAssertEqual(s.alignSelf, .center)
        XCTAssertEqual(s.width, .fraction(0.5)); XCTAssertEqual(s.height, .points(20))
        XCTAssertEqual(s.minWidth, .points(1)); XCTAssertEqual(s.maxWidth, .points(200))
        XCTAssertEqual(s.minHeight, .points(2)); XCTAssertEqual(s.maxHeight, .fraction(0.9))
        XCTAssertEqual(s.flexGrow, 2); XCTAssertEqual(s.flexShrink, 1); XCTAssertEqual(s.flexBasis, .fraction(0.25))
        XCTAssertEqual(s.ascender, 12); XCTAssertEqual(s.descender, -3)
    }

    func testEveryEnumValueDecodes() throws {
        let fields: [(String, [String])] = [
            ("flexDirection", YogaFlexDirection.allCases.map(\.rawValue)), ("direction", YogaDirection.allCases.map(\.rawValue)),
            ("justifyContent", ["start", "center", "end", "spaceBetween", "spaceAround"]),
            ("alignItems", ["start", "end", "center", "stretch", "baselineFirst", "baselineLast"]),
            ("flexWrap", ["noWrap", "wrap", "wrapReverse"]), ("positionType", ["relative", "absolute"]),
        ]
        for (field, values) in fields {
            for value in values {
                let r = try decode(root(#"{"type": "node", "style": {"\#(field)": "\#(value)"}}"#))
                let y = try XCTUnwrap((r.root as? DisplayNode)?.yogaStyle, "\(field): \(value)")
                let got: String
                switch field {
                case "flexDirection": got = y.flexDirection.rawValue
                case "direction": got = y.direction.rawValue
                case "justifyContent": got = y.justifyContent.rawValue
                case "alignItems": got = y.alignItems.rawValue
                case "flexWrap": got = y.flexWrap.rawValue
                default: got = y.positionType.rawValue
                }
                XCTAssertEqual(got, value, field)
            }
        }
    }

    func testYogaChildrenOfEveryNodeKindAndNested() throws {
        let r = try decode(root(#"""
        {"type": "node", "id": "r", "yogaChildren": [
          {"type": "node", "id": "plain"},
          {"type": "node", "id": "sized", "intrinsicSize": {"width": 10, "height": 10}},
          {"type": "text", "id": "t", "text": "Hi"},
          {"type": "image", "id": "i", "intrinsicSize": {"width": 4, "height": 4}},
          {"type": "button", "id": "b", "title": {"text": "OK"}},
          {"type": "node", "id": "own", "layout": {"type": "stack", "children": [
             {"type": "node", "id": "innerRoot", "yogaChildren": [{"type": "node", "id": "deep"}]}]}},
          {"type": "node", "id": "nested", "yogaChildren": [{"type": "node", "id": "n1"}, {"type": "text", "text": "x"}]},
          {"type": "node", "id": "empty", "intrinsicSize": {"width": 1, "height": 1}, "yogaChildren": []}
        ]}
        """#))
        let container = try XCTUnwrap(r.root as? DisplayNode)
        XCTAssertEqual(container.yogaChildren.map { $0.id ?? "" }, ["plain", "sized", "t", "i", "b", "own", "nested", "empty"])
        XCTAssertTrue(container.yogaChildren[2] is TextNode)
        XCTAssertTrue(container.yogaChildren[3] is ImageNode)
        XCTAssertTrue(container.yogaChildren[4] is ButtonNode)
        XCTAssertEqual(container.yogaChildren[6].yogaChildren.count, 2)
        XCTAssertTrue(container.yogaChildren[7].yogaChildren.isEmpty)  // `[]` = left out
        XCTAssertNotNil(container.yogaChildren[7].intrinsicSize)
        let inner = try XCTUnwrap(container.yogaChildren[5].layoutSpec?.layoutChildren.first as? DisplayNode)
        XCTAssertEqual(inner.yogaChildren.map { $0.id ?? "" }, ["deep"])
        // A Yoga root anywhere a node can be, and the element count includes Yoga children.
        XCTAssertEqual(r.elementCount, 14)
        XCTAssertTrue(r.hasText)
    }

    func testYogaChildrenCountTowardTheLimits() {
        let body = root(#"{"type": "node", "yogaChildren": [{"type": "node"}, {"type": "node"}, {"type": "node"}]}"#)
        XCTAssertThrowsError(try RequestDecoder(limits: DecodeLimits(maxNodes: 3)).decode(body: Array(body.utf8))) { e in
            XCTAssertEqual((e as? WireError)?.code, "too_large")
            XCTAssertEqual((e as? WireError)?.path, "root.yogaChildren[2]")
        }
    }

    // MARK: errors (docs/yoga.md §7)

    func testYogaChildrenOnlyOnNodes() {
        assertError(root(#"{"type": "text", "text": "a", "yogaChildren": [{"type": "node"}]}"#), path: "root.yogaChildren",
                    message: "only for elements of type \"node\"")
        assertError(root(#"{"type": "image", "yogaChildren": []}"#), path: "root.yogaChildren", message: "not image")
        assertError(root(#"{"type": "button", "yogaChildren": []}"#), path: "root.yogaChildren")
        assertError(root(#"{"type": "stack", "children": [{"type": "wrapper", "yogaChildren": [{"type": "node"}]}]}"#),
                    path: "root.children[0].yogaChildren", message: "not wrapper")
    }

    func testYogaChildrenMustBeAnArray() {
        assertError(root(#"{"type": "node", "yogaChildren": {"type": "node"}}"#), path: "root.yogaChildren",
                    message: "must be an array of node elements")
        assertError(root(#"{"type": "node", "yogaChildren": null}"#), path: "root.yogaChildren")
        assertError(root(#"{"type": "node", "yogaChildren": 3}"#), path: "root.yogaChildren")
    }

    func testSpecInsideYogaChildren() {
        assertError(root(#"{"type": "node", "yogaChildren": [{"type": "node"}, {"type": "stack", "children": []}]}"#),
                    path: "root.yogaChildren[1].type", message: "not a stack spec")
        assertError(root(#"{"type": "node", "yogaChildren": [{"type": "node", "yogaChildren": [{"child": {"type": "node"}, "type": "inset"}]}]}"#),
                    path: "root.yogaChildren[0].yogaChildren[0].type", message: "node element")
        // Errors inside a Yoga child name it.
        assertError(root(#"{"type": "node", "yogaChildren": [{"type": "node", "style": {"width": -1}}]}"#),
                    path: "root.yogaChildren[0].style.width")
        assertError(root(#"{"type": "node", "yogaChildren": [{"type": "frobnicate"}]}"#), path: "root.yogaChildren[0].type",
                    message: "unknown element type")
    }

    func testYogaChildrenWithLayoutOrIntrinsicSize() {
        assertError(root(#"{"type": "node", "yogaChildren": [{"type": "node"}], "layout": {"type": "spacer"}}"#), path: "root.layout",
                    message: "laid out by Yoga alone")
        assertError(root(#"{"type": "node", "intrinsicSize": {"width": 1, "height": 2}, "yogaChildren": [{"type": "node"}]}"#),
                    path: "root.intrinsicSize", message: "sized by Yoga alone")
        assertError(root(#"{"type": "stack", "children": [{"type": "node", "yogaChildren": [{"type": "node"}], "layout": {"type": "spacer"}}]}"#),
                    path: "root.children[0].layout")
    }

    func testEmptyYogaChildrenIsLeftOut() throws {
        for extra in [#", "layout": {"type": "spacer"}"#, #", "intrinsicSize": {"width": 1, "height": 2}"#, ""] {
            let r = try decode(root(#"{"type": "node", "yogaChildren": []\#(extra)}"#))
            XCTAssertEqual((r.root as? DisplayNode)?.yogaChildren.count, 0)
        }
    }

    func testYogaStyleFieldOnASpec() {
        for field in [#""flexDirection": "horizontal""#, #""direction": "rtl""#, #""justifyContent": "center""#,
                      #""alignItems": "start""#, #""flexWrap": "wrap""#, #""positionType": "absolute""#, #""position": {"top": 1}"#,
                      #""margin": {}"#, #""padding": {"all": 1}"#, #""border": {"all": 1}"#, #""aspectRatio": 2"#] {
            let name = String(field.dropFirst().prefix { $0 != "\"" })
            assertError(root(#"{"type": "stack", "style": {"width": 10, \#(field)}}"#), path: "root.style.\(name)",
                        message: "Yoga style field")
        }
        // The first Yoga field written is named; the same on nested specs and with `type` last.
        assertError(root(#"{"style": {"aspectRatio": 2, "margin": {"top": 1}}, "child": {"type": "node"}, "type": "inset"}"#),
                    path: "root.style.aspectRatio", message: "not for a inset spec")
        assertError(root(#"{"type": "node", "yogaChildren": [{"type": "node", "layout": {"type": "wrapper", "style": {"flexWrap": "wrap"}}}]}"#),
                    path: "root.yogaChildren[0].layout.style.flexWrap")
        // The stack members of the same names are not style fields.
        XCTAssertNoThrow(try decode(root(#"{"type": "stack", "justifyContent": "center", "alignItems": "start", "flexWrap": "wrap", "direction": "vertical"}"#)))
    }

    func testBadEnumValues() {
        assertError(root(#"{"type": "node", "style": {"flexDirection": "row"}}"#), path: "root.style.flexDirection",
                    message: #""vertical", "horizontal", "verticalReverse", "horizontalReverse""#)
        assertError(root(#"{"type": "node", "style": {"direction": "LTR"}}"#), path: "root.style.direction")
        assertError(root(#"{"type": "node", "style": {"justifyContent": "spaceEvenly"}}"#), path: "root.style.justifyContent")
        assertError(root(#"{"type": "node", "style": {"alignItems": "baseline"}}"#), path: "root.style.alignItems")
        assertError(root(#"{"type": "node", "style": {"alignSelf": "baselineFirst"}}"#), path: "root.style.alignSelf")
        assertError(root(#"{"type": "node", "style": {"flexWrap": "nowrap"}}"#), path: "root.style.flexWrap",
                    message: #""noWrap", "wrap", "wrapReverse""#)
        assertError(root(#"{"type": "node", "style": {"positionType": "static"}}"#), path: "root.style.positionType")
        assertError(root(#"{"type": "text", "text": "a", "style": {"flexDirection": 1}}"#), path: "root.style.flexDirection",
                    message: "must be a string")
    }

    func testEdges() {
        assertError(root(#"{"type": "node", "style": {"margin": {"top": 1, "middle": 2}}}"#), path: "root.style.margin.middle",
                    message: "unknown edge 'middle' in margin")
        assertError(root(#"{"type": "node", "style": {"padding": {"Top": 1}}}"#), path: "root.style.padding.Top")
        assertError(root(#"{"type": "node", "style": {"margin": {"left": -4}}}"#), path: "root.style.margin.left", message: ">= 0")
        assertError(root(#"{"type": "node", "style": {"position": {"end": "-4pt"}}}"#), path: "root.style.position.end")
        assertError(root(#"{"type": "node", "style": {"padding": {"vertical": "101%"}}}"#), path: "root.style.padding.vertical",
                    message: "between 0% and 100%")
        assertError(root(#"{"type": "node", "style": {"border": {"all": "10%"}}}"#), path: "root.style.border.all",
                    message: "in points")
        assertError(root(#"{"type": "node", "style": {"margin": 8}}"#), path: "root.style.margin", message: "must be an object")
        assertError(root(#"{"type": "node", "style": {"margin": {"top": "wide"}}}"#), path: "root.style.margin.top")
        assertError(root(#"{"type": "node", "style": {"margin": {"top": 1, "top": 2}}}"#), path: "root.style.margin.top",
                    message: "duplicate")
        assertError(root(#"{"type": "node", "style": {"margin": {"top": 1}, "margin": {"top": 2}}}"#), path: "root.style.margin",
                    message: "duplicate")
    }

    func testAspectRatio() throws {
        assertError(root(#"{"type": "node", "style": {"aspectRatio": 0}}"#), path: "root.style.aspectRatio", message: "> 0")
        assertError(root(#"{"type": "node", "style": {"aspectRatio": -1.5}}"#), path: "root.style.aspectRatio")
        assertError(root(#"{"type": "node", "style": {"aspectRatio": "1:2"}}"#), path: "root.style.aspectRatio")
        let r = try decode(root(#"{"type": "node", "style": {"aspectRatio": 0.001}}"#))
        XCTAssertEqual((r.root as? DisplayNode)?.yogaStyle?.aspectRatio, 0.001)
    }

    func testUnknownStyleFieldsStillRejected() {
        assertError(root(#"{"type": "node", "style": {"flex": 1}}"#), path: "root.style.flex")
        assertError(root(#"{"type": "node", "style": {"alignContent": "center"}}"#), path: "root.style.alignContent")
        assertError(root(#"{"type": "node", "style": {"gap": 4}}"#), path: "root.style.gap")
    }

    /// Yoga's fatal assertion (a percentage margin against an undefined width): Texture
    /// crashes; Loom answers `invalid_spec` at the Yoga root, wherever the root is, and
    /// never caches it.
    func testYogaFatalAssertionIsInvalidSpecAtTheYogaRoot() {
        let failing = #"{"type": "node", "style": {"flexDirection": "horizontal"}, "yogaChildren": [{"type": "node", "intrinsicSize": {"width": 10, "height": 10}, "style": {"margin": {"all": "10%"}}}]}"#
        let service = LayoutService(textMeasurer: measurer)
        for (body, path) in [
            (root(failing), "root"),
            (root(#"{"type": "stack", "children": [{"type": "spacer"}, \#(failing)]}"#), "root.children[1]"),
            (root(#"{"type": "node", "yogaChildren": [{"type": "node", "layout": {"type": "inset", "child": \#(failing)}}]}"#),
             "root.yogaChildren[0].layout.child"),
        ] {
            for _ in 0..<2 {
                let o = service.layout(body: Array(body.utf8))
                XCTAssertEqual(o.status, 400, Svc.text(o.body))
                XCTAssertFalse(o.cacheHit)
                let error = (try? JSONSerialization.jsonObject(with: Data(o.body)) as? [String: Any])?["error"] as? [String: Any]
                XCTAssertEqual(error?["code"] as? String, "invalid_spec")
                XCTAssertEqual(error?["path"] as? String, path)
                XCTAssertTrue((error?["message"] as? String ?? "").contains("Yoga"), "\(String(describing: error))")
            }
        }
        // The same tree in a width Yoga can resolve the percentage against lays out.
        let fine = #"{"sizeRange": {"max": {"width": 200, "height": null}}, "root": \#(failing)}"#
        XCTAssertEqual(service.layout(body: Array(fine.utf8)).status, 200)
        // In a batch, the failing item is an error in its own slot.
        let batch = service.batch(body: Array(#"{"items": [\#(root(failing)), \#(fine)]}"#.utf8), maxItems: 10,
                                  forEachParallel: LayoutPool.forEachParallel)
        XCTAssertEqual(batch.status, 200)
        let results = (try? JSONSerialization.jsonObject(with: Data(batch.body)) as? [String: Any])?["results"] as? [[String: Any]]
        XCTAssertEqual((results?[0]["error"] as? [String: Any])?["path"] as? String, "items[0].root")
        XCTAssertEqual((results?[1]["size"] as? [String: Any])?["width"] as? Double, 200)
    }

    // MARK: hashing

    private func digests(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> (tree: ElementDigest, ids: ElementDigest)? {
        do { return try decode(body).hashTree() } catch {
            XCTFail("\(error) for \(body.prefix(200))", file: file, line: line)
            return nil
        }
    }

    /// A Yoga base tree with every field, for the edits below.
    private let base = #"""
    {"sizeRange": {"max": {"width": 300, "height": null}}, "root": {"type": "stack", "direction": "vertical", "children": [
      {"type": "node", "id": "card", "style": {"flexDirection": "horizontal", "alignItems": "center", "padding": {"all": 10}, "direction": "ltr", "justifyContent": "end", "flexWrap": "wrap"},
       "yogaChildren": [
         {"type": "node", "id": "avatar", "style": {"width": 40, "height": 40, "margin": {"right": 8, "top": "5%"}, "aspectRatio": 1}},
         {"type": "node", "id": "label", "intrinsicSize": {"width": 120.3, "height": 17}, "style": {"flexGrow": 1, "flexShrink": 1}},
         {"type": "image", "id": "badge", "intrinsicSize": {"width": 16, "height": 16}, "style": {"positionType": "absolute", "position": {"end": 4}}},
         {"type": "node", "id": "inner", "style": {"border": {"horizontal": 1}}, "yogaChildren": [{"type": "node", "style": {"height": 3}}]}]}]}}
    """#

    private let edits: [(String, String, String)] = [
        ("flexDirection", #""flexDirection": "horizontal""#, #""flexDirection": "horizontalReverse""#),
        ("alignItems", #""alignItems": "center""#, #""alignItems": "baselineFirst""#),
        ("padding value", #""padding": {"all": 10}"#, #""padding": {"all": 11}"#),
        ("padding side", #""padding": {"all": 10}"#, #""padding": {"horizontal": 10}"#),
        ("padding unit", #""padding": {"all": 10}"#, #""padding": {"all": "10%"}"#),
        ("padding to margin", #""padding": {"all": 10}"#, #""margin": {"all": 10}"#),
        ("direction", #""direction": "ltr""#, #""direction": "rtl""#),
        ("justifyContent", #""justifyContent": "end""#, #""justifyContent": "spaceBetween""#),
        ("flexWrap", #""flexWrap": "wrap""#, #""flexWrap": "wrapReverse""#),
        ("margin right to end", #""margin": {"right": 8"#, #""margin": {"end": 8"#),
        ("margin top", #""top": "5%""#, #""top": "6%""#),
        ("aspectRatio", #""aspectRatio": 1}"#, #""aspectRatio": 1.5}"#),
        ("positionType", #""positionType": "absolute""#, #""positionType": "relative""#),
        ("position side", #""position": {"end": 4}"#, #""position": {"start": 4}"#),
        ("border", #""border": {"horizontal": 1}"#, #""border": {"horizontal": 2}"#),
        ("yoga child removed", #"{"type": "node", "style": {"height": 3}}"#, ""),
        ("yoga child added", #"{"type": "node", "style": {"height": 3}}"#, #"{"type": "node", "style": {"height": 3}}, {"type": "node"}"#),
        ("yoga child style", #""style": {"height": 3}"#, #""style": {"height": 4}"#),
        ("yoga child kind", #"{"type": "image", "id": "badge", "intrinsicSize""#, #"{"type": "node", "id": "badge", "intrinsicSize""#),
        ("container to spec child", #""yogaChildren": [{"type": "node", "style": {"height": 3}}]"#,
         #""layout": {"type": "wrapper", "children": [{"type": "node", "style": {"height": 3}}]}"#),
        ("flexGrow", #""flexGrow": 1"#, #""flexGrow": 2"#),
        ("intrinsic size", #""width": 120.3"#, #""width": 120.4"#),
    ]

    func testEveryYogaEditChangesTheTreeDigest() throws {
        guard let b = digests(base) else { return }
        var seen: [ElementDigest: String] = [b.tree: "base"]
        for (name, from, to) in edits {
            XCTAssertEqual(base.components(separatedBy: from).count, 2, "'\(from)' must occur once")
            let edited = base.replacingOccurrences(of: from, with: to)
            guard let d = digests(edited) else { continue }
            if let clash = seen[d.tree] { XCTFail("\(name) has the tree digest of \(clash)") }
            seen[d.tree] = name
        }
    }

    func testYogaRespellingsHashAlike() throws {
        let groups: [[String]] = [
            // Key order, number spellings, points spelled "pt", "auto" sides and empty edges.
            [#"{"type": "node", "style": {"flexDirection": "horizontal", "margin": {"top": 8, "left": "50%"}}, "yogaChildren": [{"type": "node", "style": {"aspectRatio": 2}}]}"#,
             #"{"yogaChildren": [{"style": {"aspectRatio": 2.0}, "type": "node"}], "style": {"margin": {"left": "50.0%", "top": "8pt", "bottom": "auto"}, "flexDirection": "horizontal", "padding": {}}, "type": "node"}"#,
             #"{"type": "node", "style": {"margin": {"top": 0.8e1, "left": "50%", "all": "auto"}, "border": {"top": "auto"}, "flexDirection": "horizontal"}, "yogaChildren": [{"type": "node", "style": {"aspectRatio": 20e-1}}]}"#],
            // Defaults written out or left out.
            [#"{"type": "node", "yogaChildren": [{"type": "node"}]}"#,
             #"{"type": "node", "style": {"flexDirection": "vertical", "direction": "inherit", "justifyContent": "start", "alignItems": "stretch", "flexWrap": "noWrap", "positionType": "relative", "position": {}, "margin": {"all": "auto"}, "padding": {}, "border": {}}, "yogaChildren": [{"type": "node", "style": {"alignSelf": "auto", "flexGrow": 0}}]}"#],
            // `yogaChildren: []` is the same as leaving it out; a default Yoga style on a node outside a Yoga tree changes nothing.
            [#"{"type": "stack", "children": [{"type": "node", "layout": {"type": "spacer"}}, {"type": "text", "text": "a"}]}"#,
             #"{"type": "stack", "children": [{"type": "node", "yogaChildren": [], "layout": {"type": "spacer"}}, {"type": "text", "text": "a", "style": {"flexDirection": "vertical"}}]}"#],
        ]
        for group in groups {
            guard let first = digests(root(group[0])) else { continue }
            for (k, spelling) in group.enumerated().dropFirst() {
                XCTAssertEqual(digests(root(spelling))?.tree, first.tree, "spelling \(k): \(spelling)")
                XCTAssertEqual(digests(root(spelling))?.ids, first.ids, "spelling \(k): \(spelling)")
            }
        }
    }

    func testYogaStyleOnEveryNodeKindIsHashed() throws {
        for element in [#"{"type": "node""#, #"{"type": "image""#, #"{"type": "text", "text": "a""#,
                        #"{"type": "button", "title": {"text": "b"}"#, #"{"type": "node", "yogaChildren": [{"type": "node"}]"#] {
            let plain = digests(root(element + "}"))?.tree
            let styled = digests(root(element + #", "style": {"margin": {"top": 1}}}"#))?.tree
            let other = digests(root(element + #", "style": {"margin": {"top": 2}}}"#))?.tree
            XCTAssertNotEqual(plain, styled, element)
            XCTAssertNotEqual(styled, other, element)
        }
        // A Yoga child moved into a nested container, or its Yoga children turned into a spec's.
        let flat = digests(root(#"{"type": "node", "yogaChildren": [{"type": "node", "yogaChildren": [{"type": "node"}]}, {"type": "node"}]}"#))
        let nested = digests(root(#"{"type": "node", "yogaChildren": [{"type": "node", "yogaChildren": [{"type": "node"}, {"type": "node"}]}]}"#))
        XCTAssertNotEqual(flat?.tree, nested?.tree)
    }

    func testIdsOfYogaChildrenAreInTheIdsDigest() throws {
        let a = digests(root(#"{"type": "node", "yogaChildren": [{"type": "node", "id": "x"}, {"type": "image", "url": "u"}]}"#))
        let b = digests(root(#"{"type": "node", "yogaChildren": [{"type": "node", "id": "y"}, {"type": "image", "url": "u"}]}"#))
        let c = digests(root(#"{"type": "node", "yogaChildren": [{"type": "node", "id": "x"}, {"type": "image", "url": "v"}]}"#))
        let d = digests(root(#"{"type": "node", "yogaChildren": [{"type": "node"}, {"type": "image", "id": "x", "url": "u"}]}"#))
        XCTAssertEqual(a?.tree, b?.tree)
        XCTAssertEqual(a?.tree, c?.tree)
        XCTAssertNotEqual(a?.ids, b?.ids)
        XCTAssertNotEqual(a?.ids, c?.ids)
        XCTAssertNotEqual(a?.ids, d?.ids)
    }

    func testRepeatedYogaSubtreesShareASubtreeDigest() throws {
        let cell = #"{"type": "node", "style": {"flexDirection": "horizontal", "padding": {"all": 4}}, "yogaChildren": [{"type": "node", "style": {"width": 20, "height": 20}}, {"type": "text", "text": "hello"}, {"type": "node", "yogaChildren": [{"type": "node", "style": {"height": 5}}, {"type": "node", "style": {"height": 6}}]}]}"#
        let other = cell.replacingOccurrences(of: #""height": 6"#, with: #""height": 7"#)
        let r = try decode(root(#"{"type": "stack", "direction": "vertical", "children": [\#(cell), \#(cell), \#(other)]}"#))
        r.hashTree()
        let cells = r.root.layoutChildren
        XCTAssertNotNil(cells[0].digest)
        XCTAssertEqual(cells[0].digest, cells[1].digest)
        XCTAssertNotNil(cells[2].digest)
        XCTAssertNotEqual(cells[0].digest, cells[2].digest)
        // The text inside carries its record digest (the text measurer's key), alike in both cells.
        let texts = cells.map { (($0 as? DisplayNode)?.yogaChildren[1] as? TextNode)?.recordDigest }
        XCTAssertNotNil(texts[0])
        XCTAssertEqual(texts[0], texts[1])
    }

    /// Through the service: respellings are hits with the same body, edits are misses, and
    /// each answer equals a fresh service's.
    func testServiceRespellingsHitAndEditsMiss() throws {
        let service = LayoutService(textMeasurer: measurer)
        let first = service.layout(body: Array(base.utf8))
        XCTAssertEqual(first.status, 200, Svc.text(first.body))
        let respelled = base.replacingOccurrences(of: #""padding": {"all": 10}"#, with: #""padding": {"all": "10pt", "top": "auto"}"#)
            .replacingOccurrences(of: #""aspectRatio": 1}"#, with: #""aspectRatio": 1.0, "direction": "inherit"}"#)
        let again = service.layout(body: Array(respelled.utf8))
        XCTAssertEqual(again.key, first.key)
        XCTAssertTrue(again.cacheHit)
        XCTAssertEqual(again.body, first.body)
        for (name, from, to) in edits {
            let edited = service.layout(body: Array(base.replacingOccurrences(of: from, with: to).utf8))
            XCTAssertEqual(edited.status, 200, name)
            XCTAssertNotEqual(edited.key, first.key, name)
            XCTAssertFalse(edited.cacheHit, name)
            let fresh = LayoutService(textMeasurer: measurer).layout(body: Array(base.replacingOccurrences(of: from, with: to).utf8))
            XCTAssertEqual(edited.body, fresh.body, name)
        }
    }

    /// A Yoga cell repeated in a feed is laid out once (the subtree cache), and the answer
    /// equals an uncached layout's.
    func testRepeatedYogaCellsInAFeedAreLaidOutOnce() throws {
        func cell(_ i: Int) -> String {
            #"{"type": "node", "id": "c\#(i)", "style": {"flexDirection": "horizontal", "alignItems": "center", "padding": {"all": 8}}, "yogaChildren": [{"type": "node", "id": "a\#(i)", "style": {"width": 40, "height": 40, "margin": {"right": 8}}}, {"type": "node", "style": {"flexGrow": 1, "flexShrink": 1}, "yogaChildren": [{"type": "node", "intrinsicSize": {"width": 120.3, "height": 17}}, {"type": "node", "intrinsicSize": {"width": 80, "height": 12}}]}, {"type": "image", "id": "i\#(i)", "url": "u\#(i)", "intrinsicSize": {"width": 16, "height": 16}}]}"#
        }
        func feed(_ n: Int) -> String {
            #"{"sizeRange": {"min": {"width": 320, "height": 0}, "max": {"width": 320, "height": null}}, "root": {"type": "stack", "direction": "vertical", "children": [\#((0..<n).map(cell).joined(separator: ", "))]}}"#
        }
        func computed(_ body: String, cache: SubtreeLayoutCaching?) throws -> (count: Int, body: [UInt8]) {
            let request = try decode(body)
            request.hashTree()
            let context = LayoutContext(scale: request.scale, textMeasurer: nil, subtreeCache: cache)
            let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
            return (context.computedLayouts, ResponseEncoder(scale: request.scale, includeSpecs: false).encode(root: request.root, layout: layout))
        }
        let service = LayoutService(textMeasurer: nil)
        let one = try computed(feed(1), cache: nil)
        let cached = try computed(feed(30), cache: service.subtreeCache)
        let uncached = try computed(feed(30), cache: nil)
        XCTAssertLessThanOrEqual(cached.count, one.count + 1, "one cell: \(one.count), 30 cells: \(cached.count)")
        XCTAssertGreaterThanOrEqual(uncached.count, 30 * (one.count - 1))
        XCTAssertEqual(cached.body, uncached.body)
        let frames = Svc.frames(cached.body)
        XCTAssertEqual(frames["a0"]?[2], 40)
        XCTAssertEqual(frames["a29"]?[2], 40)
        XCTAssertEqual(frames["c29"]?[1], 29 * (frames["c0"]?[3] ?? 0))
    }

    /// SVG and `includeSpecs` over a Yoga tree: every id drawn; the spec inside a measured
    /// leaf kept as its own entry.
    func testSVGAndIncludeSpecs() throws {
        let file = ExamplesTests.examplesDirectory.appendingPathComponent("yoga-chip-absolute.json")
        let body = try Data(contentsOf: file)
        let service = LayoutService(textMeasurer: nil)
        let svg = service.layout(body: Array(body), format: .svg)
        XCTAssertEqual(svg.status, 200)
        let text = String(decoding: svg.body, as: UTF8.self)
        for id in ["root", "chip", "chipInset", "chipIcon", "dot", "bar"] { XCTAssertTrue(text.contains(">\(id)<"), id) }
        var request = try XCTUnwrap(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        request["options"] = ["includeSpecs": true]
        let withSpecs = service.layout(body: Array(try JSONSerialization.data(withJSONObject: request)))
        XCTAssertEqual(withSpecs.status, 200)
        let layout = try XCTUnwrap(Svc.object(withSpecs.body)["layout"] as? [String: Any])
        let children = try XCTUnwrap(layout["children"] as? [[String: Any]])
        XCTAssertEqual(children.map { $0["id"] as? String }, ["chip", "dot", "bar"])
        let chipChildren = try XCTUnwrap(children[0]["children"] as? [[String: Any]])
        XCTAssertEqual(chipChildren.map { $0["type"] as? String }, ["inset"])
        XCTAssertEqual(Svc.frames(withSpecs.body)["chipIcon"], [10, 46.333333333333336, 20.333333333333332, 20.333333333333332])
    }

    /// The deepest Yoga trees the default limits accept decode, hash, lay out and encode on
    /// Dispatch worker threads: 512 nested Yoga containers, and Yoga roots nested through
    /// measured leaves' own layouts, all on one service (its subtree cache warm for the
    /// later ones: a chain found there is charged as the cold one was, not once per level).
    func testYogaTreesAtTheDepthLimitOnPoolThreads() {
        var nest = #"{"type": "node", "id": "leaf", "style": {"width": 3, "height": 4}}"#
        for _ in 1..<512 { nest = #"{"type": "node", "style": {"padding": {"top": 1}}, "yogaChildren": [\#(nest)]}"# }
        var mixed = #"{"type": "node", "id": "leaf", "intrinsicSize": {"width": 3, "height": 4}}"#
        for k in 1..<512 {
            mixed = k % 2 == 1 ? #"{"type": "node", "yogaChildren": [\#(mixed)]}"# : #"{"type": "node", "layout": \#(mixed)}"#
        }
        let bodies = [#"{"root": \#(nest)}"#, #"{"root": \#(mixed)}"#, #"{"options": {"includeSpecs": true}, "root": \#(mixed)}"#]
        let shared = LayoutService(textMeasurer: nil)
        let pool = LayoutPool(workers: 2, queueLimit: 10)
        let lock = NSLock()
        var statuses: [Int] = []
        var nestBody: [UInt8] = []
        let done = DispatchGroup()
        for (k, body) in bodies.enumerated() {
            done.enter()
            XCTAssertTrue(pool.submit {
                let o = shared.layout(body: Array(body.utf8))
                let svg = shared.layout(body: Array(body.utf8), format: .svg)
                lock.lock(); statuses += [o.status, svg.status]; if k == 0 { nestBody = o.body }; lock.unlock()
                done.leave()
            })
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(statuses, Array(repeating: 200, count: 6))
        // 511 containers with a top padding of 1 around a 3×4 leaf (the body nests deeper
        // than Foundation parses: its frames are read as text).
        XCTAssertTrue(String(decoding: nestBody, as: UTF8.self)
            .contains(#""frames":{"leaf":{"x":0,"y":511,"width":3,"height":4}}"#))
    }

    // MARK: walks

    func testElementPathsThroughYogaChildren() throws {
        let r = try decode(root(#"""
        {"type": "stack", "children": [{"type": "node", "yogaChildren": [{"type": "node"},
          {"type": "node", "layout": {"type": "inset", "child": {"type": "node", "yogaChildren": [{"type": "text", "text": "a"}]}}}]}]}
        """#))
        let container = try XCTUnwrap(r.root.layoutChildren[0] as? DisplayNode)
        let leaf = container.yogaChildren[1]
        let innerRoot = try XCTUnwrap(leaf.layoutSpec?.layoutChildren[0] as? DisplayNode)
        let text = innerRoot.yogaChildren[0]
        XCTAssertEqual(ElementPath.of(ObjectIdentifier(container), in: r.root), "root.children[0]")
        XCTAssertEqual(ElementPath.of(ObjectIdentifier(container.yogaChildren[0]), in: r.root), "root.children[0].yogaChildren[0]")
        XCTAssertEqual(ElementPath.of(ObjectIdentifier(leaf), in: r.root), "root.children[0].yogaChildren[1]")
        XCTAssertEqual(ElementPath.of(ObjectIdentifier(text), in: r.root), "root.children[0].yogaChildren[1].layout.child.yogaChildren[0]")
    }

    /// The flattening walk takes a Yoga container's sublayouts as its Yoga children's (slot k
    /// = `yogaChildren[k]`), whatever engine made the layout: here one made by hand.
    func testFlatteningWalksYogaChildren() throws {
        let r = try decode(root(#"""
        {"type": "node", "id": "c", "yogaChildren": [{"type": "node", "id": "a"},
          {"type": "node", "id": "b", "layout": {"type": "inset", "id": "in", "insets": {"top": 1, "left": 1, "bottom": 1, "right": 1},
                                                   "child": {"type": "node", "id": "bc"}}}]}
        """#))
        let grid = PixelGrid(scale: 2)
        func layout(_ w: Double, _ h: Double, _ subs: [Sublayout] = []) -> Layout {
            Layout(size: Size(width: w, height: h), sublayouts: subs, ascender: 0, descender: 0, grid: grid)
        }
        let bLayout = layout(30, 20, [Sublayout(slot: 0, position: Point(x: 0, y: 0),
                                                layout: layout(30, 20, [Sublayout(slot: 0, position: Point(x: 1, y: 1), layout: layout(28, 18))]))])
        let rootLayout = layout(100, 50, [Sublayout(slot: 0, position: Point(x: 5, y: 6), layout: layout(10, 10)),
                                          Sublayout(slot: 1, position: Point(x: 20, y: 7.25), layout: bLayout)])
        let body = ResponseEncoder(scale: 2, includeSpecs: false).encode(root: r.root, layout: rootLayout)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        let frames = try XCTUnwrap(object["frames"] as? [String: [String: Double]])
        XCTAssertEqual(frames["a"], ["x": 5, "y": 6, "width": 10, "height": 10])
        XCTAssertEqual(frames["b"], ["x": 20, "y": 7.5, "width": 30, "height": 20])
        XCTAssertEqual(frames["bc"], ["x": 21, "y": 8.5, "width": 28, "height": 18])
        let layoutObject = try XCTUnwrap(object["layout"] as? [String: Any])
        let children = try XCTUnwrap(layoutObject["children"] as? [[String: Any]])
        XCTAssertEqual(children.map { $0["id"] as? String }, ["a", "b"])
        let svg = String(decoding: SVGRenderer(scale: 2).render(root: r.root, layout: rootLayout), as: UTF8.self)
        for id in ["a", "b", "bc"] { XCTAssertTrue(svg.contains(">\(id)<"), "\(id) in the SVG") }
    }
}
