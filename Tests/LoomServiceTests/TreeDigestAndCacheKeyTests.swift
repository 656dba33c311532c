import Foundation
import LoomLayout
import LoomService
import XCTest

/// The cache key (`X-Layout-Key` = `outcome.key`): the same tree spelled differently has the
/// same key and is a hit; every edit that can change a frame (or the response) changes it;
/// a hit never answers with another tree's layout.
final class TreeDigestAndCacheKeyTests: XCTestCase {
    let measurer = AttributeSensitiveTextMeasurer()

    private func newService() -> LayoutService { LayoutService(textMeasurer: measurer) }

    private func run(_ body: String, _ service: LayoutService,
                     file: StaticString = #filePath, line: UInt = #line) -> LayoutOutcome {
        let outcome = service.layout(body: Array(body.utf8))
        XCTAssertEqual(outcome.status, 200, "\(Svc.text(outcome.body)) for \(body.prefix(200))", file: file, line: line)
        XCTAssertNotNil(outcome.key, file: file, line: line)
        return outcome
    }

    /// Every spelling in `group` has the first one's key, is a hit and gets its bytes.
    private func assertSameKey(_ group: [String], file: StaticString = #filePath, line: UInt = #line) {
        let service = newService()
        let first = run(group[0], service, file: file, line: line)
        XCTAssertFalse(first.cacheHit, file: file, line: line)
        for (k, spelling) in group.enumerated().dropFirst() {
            let o = run(spelling, service, file: file, line: line)
            XCTAssertEqual(o.key, first.key, "spelling \(k): \(spelling)", file: file, line: line)
            XCTAssertTrue(o.cacheHit, "spelling \(k) should be a hit", file: file, line: line)
            XCTAssertEqual(o.body, first.body, "spelling \(k)", file: file, line: line)
            // And a fresh service agrees it is the same layout.
            XCTAssertEqual(run(spelling, newService(), file: file, line: line).body, first.body, file: file, line: line)
        }
    }

    // MARK: respellings

    func testKeyOrderWhitespaceAndNumberSpellings() {
        assertSameKey([
            #"{"sizeRange":{"min":{"width":0,"height":0},"max":{"width":320,"height":480}},"root":{"type":"stack","id":"s","direction":"vertical","spacing":8,"children":[{"type":"node","id":"a","style":{"width":50,"height":25.5}},{"type":"inset","insets":{"top":4,"left":4,"bottom":4,"right":4},"child":{"type":"node","style":{"height":10}}}]}}"#,
            """
            {
              "root": {
                "children": [
                  {"style": {"height": 25.5, "width": 50}, "id": "a", "type": "node"},
                  {"child": {"style": {"height": 10}, "type": "node"}, "insets": {"right": 4, "bottom": 4, "left": 4, "top": 4}, "type": "inset"}
                ],
                "spacing": 8, "direction": "vertical", "id": "s", "type": "stack"
              },
              "sizeRange": {"max": {"height": 480, "width": 320}, "min": {"height": 0, "width": 0}}
            }
            """,
            "{\"sizeRange\":{\"min\":{\"width\":0.0,\"height\":-0},\"max\":{\"width\":3.2e2,\"height\":4800E-1}},\r\n\t\"root\":{\"type\":\"stack\",\"id\":\"s\",\"direction\":\"vertical\",\"spacing\":0.8e1,\"children\":[{\"type\":\"node\",\"id\":\"a\",\"style\":{\"width\":5e1,\"height\":255e-1}},{\"type\":\"inset\",\"insets\":{\"top\":4.0,\"left\":40e-1,\"bottom\":4.000,\"right\":0.04e2},\"child\":{\"type\":\"node\",\"style\":{\"height\":10.0}}}]}}",
            #"{"sizeRange":{"min":{"width":0,"height":0},"max":{"width":320.000,"height":480}},"root":{"type":"stack","id":"s","direction":"vertical","spacing":8,"children":[{"type":"node","id":"a","style":{"width":"50pt","height":"25.5pt"}},{"type":"inset","insets":{"top":4,"left":4,"bottom":4,"right":4},"child":{"type":"node","style":{"height":10}}}]}}"#,
        ])
    }

    func testDefaultsWrittenOutOrLeftOut() {
        assertSameKey([
            #"{"root": {"type": "stack", "children": [{"type": "node", "style": {"height": 10}}, {"type": "spacer"}]}}"#,
            #"""
            {"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": null, "height": null}}, "scale": 2,
             "options": {"includeSpecs": false},
             "root": {"type": "stack", "direction": "horizontal", "spacing": 0, "justifyContent": "start", "alignItems": "stretch",
                      "flexWrap": "noWrap", "alignContent": "start", "lineSpacing": 0, "horizontalAlignment": "none",
                      "verticalAlignment": "none", "concurrent": false,
                      "style": {"width": "auto", "height": "auto", "minWidth": "auto", "maxWidth": "auto", "minHeight": "auto",
                                "maxHeight": "auto", "flexGrow": 0, "flexShrink": 0, "flexBasis": "auto", "alignSelf": "auto",
                                "spacingBefore": 0, "spacingAfter": 0, "ascender": 0, "descender": 0, "layoutPosition": {"x": 0, "y": 0}},
                      "children": [{"type": "node", "style": {"height": 10, "flexGrow": 0, "alignSelf": "auto"}},
                                   {"type": "spacer", "style": {}}]}}
            """#,
            #"{"sizeRange": {}, "options": {}, "root": {"type": "stack", "children": [{"type": "node", "style": {"height": 10}}, {"type": "spacer"}]}}"#,
            #"{"options": {"output": "both"}, "root": {"type": "stack", "children": [{"type": "node", "style": {"height": 10}}, {"type": "spacer"}]}}"#,
            #"{"sizeRange": {"max": {}}, "root": {"type": "stack", "children": [{"type": "node", "style": {"height": 10}}, {"type": "spacer"}]}}"#,
        ])
    }

    func testSpecAndNodeDefaultsWrittenOutOrLeftOut() {
        let bare = #"""
        {"sizeRange": {"max": {"width": 300, "height": 300}}, "root": {"type": "stack", "direction": "vertical", "children": [
          {"type": "inset", "child": {"type": "node", "style": {"width": 10, "height": 10}}},
          {"type": "center", "child": {"type": "node", "style": {"width": 10, "height": 10}}},
          {"type": "relative", "child": {"type": "node", "style": {"width": 10, "height": 10}}},
          {"type": "absolute", "children": [{"type": "node", "style": {"width": 10, "height": 10}}]},
          {"type": "corner", "child": {"type": "node", "style": {"width": 20, "height": 20}}, "corner": {"type": "node", "style": {"width": 4, "height": 4}}},
          {"type": "button", "image": {"intrinsicSize": {"width": 10, "height": 10}}},
          {"type": "text", "text": "Hello"},
          {"type": "image", "intrinsicSize": {"width": 3, "height": 3}}]}}
        """#
        let full = #"""
        {"sizeRange": {"max": {"width": 300, "height": 300}}, "root": {"type": "stack", "direction": "vertical", "children": [
          {"type": "inset", "insets": {"top": 0, "left": 0, "bottom": 0, "right": 0}, "child": {"type": "node", "style": {"width": 10, "height": 10}}},
          {"type": "center", "centeringOptions": "none", "sizingOptions": "default", "child": {"type": "node", "style": {"width": 10, "height": 10}}},
          {"type": "relative", "horizontalPosition": "none", "verticalPosition": "none", "sizingOption": "default", "child": {"type": "node", "style": {"width": 10, "height": 10}}},
          {"type": "absolute", "sizing": "default", "children": [{"type": "node", "style": {"width": 10, "height": 10, "layoutPosition": {"x": 0, "y": 0}}}]},
          {"type": "corner", "cornerLocation": "topLeft", "offset": {"x": 0, "y": 0}, "wrapsCorner": false, "child": {"type": "node", "style": {"width": 20, "height": 20}}, "corner": {"type": "node", "style": {"width": 4, "height": 4}}},
          {"type": "button", "contentSpacing": 8, "laysOutHorizontally": true, "contentHorizontalAlignment": "middle", "contentVerticalAlignment": "center",
           "contentEdgeInsets": {"top": 0, "left": 0, "bottom": 0, "right": 0}, "imageAlignment": "beginning", "image": {"intrinsicSize": {"width": 10, "height": 10}}},
          {"type": "text", "text": "Hello", "font": {"family": "Helvetica", "size": 12, "weight": 400, "italic": false}, "lineSpacing": 0, "letterSpacing": 0,
           "alignment": "natural", "maximumNumberOfLines": 0, "truncationMode": "wordWrap", "truncationText": "\u2026", "textContainerInset": {}},
          {"type": "image", "intrinsicSize": {"width": 3, "height": 3}}]}}
        """#
        let spelled = full.replacingOccurrences(of: #""weight": 400"#, with: #""weight": "regular""#)
            .replacingOccurrences(of: #""offset": {"x": 0, "y": 0}"#, with: #""offset": {}"#)
        assertSameKey([bare, full, spelled])
    }

    func testFamilyNamesMatchWhateverTheirCase() {
        // Families match case-insensitively, so the key does not see the case (ASCII names
        // lowercased byte by byte, others by Unicode rules).
        func tree(_ family: String) -> String {
            #"{"sizeRange": {"max": {"width": 300, "height": null}}, "root": {"type": "text", "text": "Hi", "font": {"family": "\#(family)"}}}"#
        }
        assertSameKey([tree("Helvetica"), tree("helvetica"), tree("HELVETICA"), tree("hElVeTiCa")])
        let service = newService()
        XCTAssertNotEqual(run(tree("Helvetica"), service).key, run(tree("Courier"), service).key)
    }

    func testBooleanFlexFactorsAndSizeAliases() {
        let stack = #"{"sizeRange": {"min": {"width": 300, "height": 100}, "max": {"width": 300, "height": 100}}, "root": {"type": "stack", "alignItems": "start", "children": [%A%, %B%]}}"#
        func tree(_ a: String, _ b: String) -> String {
            stack.replacingOccurrences(of: "%A%", with: a).replacingOccurrences(of: "%B%", with: b)
        }
        assertSameKey([
            tree(#"{"type": "node", "id": "a", "style": {"width": 100, "height": 10, "flexGrow": 1, "flexShrink": 0}}"#,
                 #"{"type": "node", "style": {"minSize": {"width": 5, "height": 6}, "maxSize": {"width": 50, "height": 60}}}"#),
            tree(#"{"type": "node", "id": "a", "style": {"preferredSize": {"width": 100, "height": 10}, "flexGrow": true, "flexShrink": false}}"#,
                 #"{"type": "node", "style": {"minWidth": 5, "minHeight": 6, "maxWidth": 50, "maxHeight": 60}}"#),
            tree(#"{"type": "node", "id": "a", "style": {"preferredFrameSize": {"width": 100, "height": 10}, "flexGrow": 1.0}}"#,
                 #"{"type": "node", "style": {"sizeRange": {"min": {"width": 5, "height": 6}, "max": {"width": 50, "height": 60}}}}"#),
            tree(#"{"type": "node", "id": "a", "style": {"width": 7, "preferredSize": {"width": 100, "height": 10}, "flexGrow": true}}"#,
                 #"{"type": "node", "style": {"maxSize": {"width": 50, "height": 60}, "minSize": {"width": 5, "height": 6}}}"#),
        ])
    }

    func testEquivalentSugarAndIrrelevantFlags() {
        // §7.2.2: horizontalAlignment on a horizontal stack sets justifyContent; on a vertical
        // one, verticalAlignment does. `concurrent` never changes a frame; "inf" = "infinity".
        let kids = #"[{"type": "node", "style": {"width": 10, "height": 10}}, {"type": "inset", "insets": {"left": "inf"}, "child": {"type": "node", "style": {"width": 5, "height": 5}}}]"#
        let range = #""sizeRange": {"min": {"width": 200, "height": 200}, "max": {"width": 200, "height": 200}}"#
        assertSameKey([
            #"{\#(range), "root": {"type": "stack", "justifyContent": "center", "alignItems": "end", "children": \#(kids)}}"#,
            #"{\#(range), "root": {"type": "stack", "horizontalAlignment": "middle", "verticalAlignment": "bottom", "children": \#(kids)}}"#,
            #"{\#(range), "root": {"type": "stack", "justifyContent": "center", "verticalAlignment": "bottom", "concurrent": true, "children": \#(kids.replacingOccurrences(of: "\"inf\"", with: "\"infinity\""))}}"#,
        ])
        assertSameKey([
            #"{\#(range), "root": {"type": "stack", "direction": "vertical", "justifyContent": "end", "alignItems": "center", "children": \#(kids)}}"#,
            #"{\#(range), "root": {"type": "stack", "direction": "vertical", "verticalAlignment": "bottom", "horizontalAlignment": "middle", "children": \#(kids)}}"#,
        ])
    }

    // MARK: edits

    /// A tree that uses every element type and most fields; each edit below changes one thing.
    private let base = #"""
    {"sizeRange": {"min": {"width": 0, "height": 0}, "max": {"width": 320, "height": 900}},
     "root": {"type": "stack", "id": "root", "direction": "vertical", "spacing": 2, "justifyContent": "start", "alignItems": "start", "flexWrap": "noWrap", "alignContent": "start", "lineSpacing": 0, "children": [
       {"type": "node", "id": "styled", "style": {"width": 50, "height": 20}},
       {"type": "inset", "insets": {"top": 1, "left": 2, "bottom": 3, "right": 4}, "child": {"type": "node", "style": {"width": 10, "height": 10}}},
       {"type": "overlay", "child": {"type": "node", "style": {"width": 21, "height": 21}}, "overlay": {"type": "node", "style": {"width": 3, "height": 3}}},
       {"type": "background", "child": {"type": "node", "style": {"width": 22, "height": 22}}, "background": {"type": "node", "intrinsicSize": {"width": 4, "height": 4}}},
       {"type": "center", "centeringOptions": "xy", "sizingOptions": "minimumX", "style": {"width": 100, "height": 50}, "child": {"type": "node", "style": {"width": 11, "height": 11}}},
       {"type": "relative", "horizontalPosition": "end", "verticalPosition": "center", "sizingOption": "minimumHeight", "style": {"width": 100, "height": 50}, "child": {"type": "node", "style": {"width": 12, "height": 12}}},
       {"type": "ratio", "ratio": 0.5, "child": {"type": "node", "style": {"width": 40}}},
       {"type": "absolute", "sizing": "sizeToFit", "children": [{"type": "node", "style": {"layoutPosition": {"x": 5, "y": 6}, "width": 13, "height": 13}}]},
       {"type": "corner", "cornerLocation": "topRight", "offset": {"x": 1, "y": 2}, "wrapsCorner": true, "child": {"type": "node", "style": {"width": 30, "height": 30}}, "corner": {"type": "node", "style": {"width": 6, "height": 6}}},
       {"type": "wrapper", "children": [{"type": "node", "style": {"width": 14, "height": 14}}]},
       {"type": "stack", "style": {"width": 100}, "children": [{"type": "node", "style": {"width": 5, "height": 5}}, {"type": "spacer", "style": {"flexGrow": 1}}, {"type": "node", "style": {"width": 15, "height": 15}}]},
       {"type": "node", "intrinsicSize": {"width": 7, "height": 8}},
       {"type": "image", "id": "img", "url": "u1", "intrinsicSize": {"width": 9, "height": 9}},
       {"type": "button", "image": {"intrinsicSize": {"width": 10, "height": 10}}, "contentSpacing": 4, "laysOutHorizontally": true, "contentHorizontalAlignment": "left", "contentVerticalAlignment": "top", "contentEdgeInsets": {"top": 1}, "imageAlignment": "beginning"},
       {"type": "node", "layout": {"type": "inset", "insets": {"top": 1}, "child": {"type": "node", "style": {"width": 3, "height": 16}}}}
     ]}}
    """#

    /// (name, from, to): `from` occurs exactly once in `base`.
    private let edits: [(String, String, String)] = [
        // request
        ("sizeRange.min.width", #""min": {"width": 0, "height": 0}"#, #""min": {"width": 10, "height": 0}"#),
        ("sizeRange.min.height", #""min": {"width": 0, "height": 0}"#, #""min": {"width": 0, "height": 700}"#),
        ("sizeRange.max.width", #""max": {"width": 320, "height": 900}"#, #""max": {"width": 321, "height": 900}"#),
        ("sizeRange.max.height", #""max": {"width": 320, "height": 900}"#, #""max": {"width": 320, "height": null}"#),
        ("scale 3", #"{"sizeRange""#, #"{"scale": 3, "sizeRange""#),
        ("scale 2.625", #"{"sizeRange""#, #"{"scale": 2.625, "sizeRange""#),
        ("includeSpecs", #"{"sizeRange""#, #"{"options": {"includeSpecs": true}, "sizeRange""#),
        ("output layout", #"{"sizeRange""#, #"{"options": {"output": "layout"}, "sizeRange""#),
        ("output layout with specs", #"{"sizeRange""#, #"{"options": {"output": "layout", "includeSpecs": true}, "sizeRange""#),
        ("output frames", #"{"sizeRange""#, #"{"options": {"output": "frames"}, "sizeRange""#),
        // style fields
        ("width", #""width": 50, "height": 20}"#, #""width": 51, "height": 20}"#),
        ("width %", #""width": 50, "height": 20}"#, #""width": "50%", "height": 20}"#),
        ("width auto", #""width": 50, "height": 20}"#, #""width": "auto", "height": 20}"#),
        ("height", #""width": 50, "height": 20}"#, #""width": 50, "height": 21}"#),
        ("minWidth", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "minWidth": 60}"#),
        ("maxWidth", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "maxWidth": 40}"#),
        ("minHeight", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "minHeight": 25}"#),
        ("maxHeight", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "maxHeight": 10}"#),
        ("preferredSize", #""width": 50, "height": 20}"#, #""preferredSize": {"width": 50, "height": 19}}"#),
        ("minSize", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "minSize": {"width": 55, "height": 0}}"#),
        ("maxSize", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "maxSize": {"width": 45, "height": 100}}"#),
        ("sizeRange (style)", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "sizeRange": {"max": {"width": 30}}}"#),
        ("flexGrow", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "flexGrow": 1}"#),
        ("flexShrink", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "flexShrink": 1}"#),
        ("flexBasis", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "flexBasis": 30}"#),
        ("alignSelf", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "alignSelf": "end"}"#),
        ("spacingBefore", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "spacingBefore": 3}"#),
        ("spacingAfter", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "spacingAfter": 3}"#),
        ("ascender", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "ascender": 2}"#),
        ("descender", #""width": 50, "height": 20}"#, #""width": 50, "height": 20, "descender": -2}"#),
        ("layoutPosition", #""layoutPosition": {"x": 5, "y": 6}"#, #""layoutPosition": {"x": 5, "y": 7}"#),
        ("style on a spec", #"{"type": "wrapper", "children""#, #"{"type": "wrapper", "style": {"minHeight": 20}, "children""#),
        // stack
        ("direction", #""direction": "vertical", "spacing": 2"#, #""direction": "horizontal", "spacing": 2"#),
        ("spacing", #""direction": "vertical", "spacing": 2"#, #""direction": "vertical", "spacing": 2.5"#),
        ("justifyContent", #""justifyContent": "start", "alignItems": "start""#, #""justifyContent": "end", "alignItems": "start""#),
        ("alignItems", #""justifyContent": "start", "alignItems": "start""#, #""justifyContent": "start", "alignItems": "center""#),
        ("flexWrap", #""flexWrap": "noWrap""#, #""flexWrap": "wrap""#),
        ("alignContent", #""alignContent": "start""#, #""alignContent": "center""#),
        ("lineSpacing", #""lineSpacing": 0"#, #""lineSpacing": 4"#),
        ("horizontalAlignment", #""lineSpacing": 0"#, #""lineSpacing": 0, "horizontalAlignment": "right""#),
        ("verticalAlignment", #""lineSpacing": 0"#, #""lineSpacing": 0, "verticalAlignment": "center""#),
        ("children order", #"{"type": "node", "style": {"width": 5, "height": 5}}, {"type": "spacer", "style": {"flexGrow": 1}}"#,
         #"{"type": "spacer", "style": {"flexGrow": 1}}, {"type": "node", "style": {"width": 5, "height": 5}}"#),
        ("child removed", #", {"type": "node", "style": {"width": 15, "height": 15}}]"#, "]"),
        ("spacer → node", #"{"type": "spacer", "style": {"flexGrow": 1}}"#, #"{"type": "node", "style": {"flexGrow": 1}}"#),
        // inset
        ("inset top", #""top": 1, "left": 2"#, #""top": 5, "left": 2"#),
        ("inset left", #""top": 1, "left": 2"#, #""top": 1, "left": 5"#),
        ("inset bottom", #""bottom": 3, "right": 4"#, #""bottom": 5, "right": 4"#),
        ("inset right", #""bottom": 3, "right": 4"#, #""bottom": 3, "right": 5"#),
        ("inset inf", #""bottom": 3, "right": 4"#, #""bottom": 3, "right": "inf""#),
        // overlay / background: roles swapped
        ("overlay roles", #""child": {"type": "node", "style": {"width": 21, "height": 21}}, "overlay": {"type": "node", "style": {"width": 3, "height": 3}}"#,
         #""child": {"type": "node", "style": {"width": 3, "height": 3}}, "overlay": {"type": "node", "style": {"width": 21, "height": 21}}"#),
        ("overlay → background", #"{"type": "overlay", "child": {"type": "node", "style": {"width": 21, "height": 21}}, "overlay""#,
         #"{"type": "background", "child": {"type": "node", "style": {"width": 21, "height": 21}}, "background""#),
        ("background roles", #""child": {"type": "node", "style": {"width": 22, "height": 22}}, "background": {"type": "node", "intrinsicSize": {"width": 4, "height": 4}}"#,
         #""child": {"type": "node", "intrinsicSize": {"width": 4, "height": 4}}, "background": {"type": "node", "style": {"width": 22, "height": 22}}"#),
        // center / relative / ratio / absolute / corner / wrapper
        ("centeringOptions", #""centeringOptions": "xy""#, #""centeringOptions": "x""#),
        ("sizingOptions", #""sizingOptions": "minimumX""#, #""sizingOptions": "minimumXY""#),
        ("horizontalPosition", #""horizontalPosition": "end""#, #""horizontalPosition": "start""#),
        ("verticalPosition", #""verticalPosition": "center""#, #""verticalPosition": "end""#),
        ("sizingOption", #""sizingOption": "minimumHeight""#, #""sizingOption": "minimumSize""#),
        ("center → relative", #"{"type": "center", "centeringOptions": "xy", "sizingOptions": "minimumX""#,
         #"{"type": "relative", "horizontalPosition": "center", "verticalPosition": "center", "sizingOption": "minimumWidth""#),
        ("ratio", #""ratio": 0.5"#, #""ratio": 0.75"#),
        ("absolute sizing", #""sizing": "sizeToFit""#, #""sizing": "default""#),
        ("absolute → static", #""type": "absolute", "sizing": "sizeToFit""#, #""type": "static""#),
        ("cornerLocation", #""cornerLocation": "topRight""#, #""cornerLocation": "bottomLeft""#),
        ("corner offset x", #""offset": {"x": 1, "y": 2}"#, #""offset": {"x": 1.5, "y": 2}"#),
        ("corner offset y", #""offset": {"x": 1, "y": 2}"#, #""offset": {"x": 1, "y": -2}"#),
        ("wrapsCorner", #""wrapsCorner": true"#, #""wrapsCorner": false"#),
        ("wrapper → stack", #"{"type": "wrapper", "children""#, #"{"type": "stack", "children""#),
        ("wrapper child", #"{"type": "node", "style": {"width": 14, "height": 14}}"#, #"{"type": "node", "style": {"width": 14, "height": 14.5}}"#),
        // nodes
        ("intrinsicSize w", #""intrinsicSize": {"width": 7, "height": 8}"#, #""intrinsicSize": {"width": 17, "height": 8}"#),
        ("intrinsicSize h", #""intrinsicSize": {"width": 7, "height": 8}"#, #""intrinsicSize": {"width": 7, "height": 18}"#),
        ("intrinsicSize removed", #"{"type": "node", "intrinsicSize": {"width": 7, "height": 8}}"#, #"{"type": "node"}"#),
        ("node → image", #"{"type": "node", "intrinsicSize": {"width": 7, "height": 8}}"#, #"{"type": "image", "intrinsicSize": {"width": 7, "height": 8}}"#),
        ("node layout changed", #""insets": {"top": 1}, "child": {"type": "node", "style": {"width": 3, "height": 16}}"#,
         #""insets": {"top": 2}, "child": {"type": "node", "style": {"width": 3, "height": 16}}"#),
        ("node layout removed", #"{"type": "node", "layout": {"type": "inset", "insets": {"top": 1}, "child": {"type": "node", "style": {"width": 3, "height": 16}}}}"#,
         #"{"type": "node", "style": {"width": 3, "height": 17}}"#),
        ("image size", #""intrinsicSize": {"width": 9, "height": 9}"#, #""intrinsicSize": {"width": 9, "height": 10}"#),
        ("image url", #""url": "u1""#, #""url": "u2""#),
        ("image url removed", #", "url": "u1""#, ""),
        ("image → node", #"{"type": "image", "id": "img", "url": "u1", "#, #"{"type": "node", "id": "img", "#),
        ("button contentSpacing", #""contentSpacing": 4"#, #""contentSpacing": 5"#),
        ("button laysOutHorizontally", #""laysOutHorizontally": true"#, #""laysOutHorizontally": false"#),
        ("button contentHorizontalAlignment", #""contentHorizontalAlignment": "left""#, #""contentHorizontalAlignment": "right""#),
        ("button contentVerticalAlignment", #""contentVerticalAlignment": "top""#, #""contentVerticalAlignment": "bottom""#),
        ("button contentEdgeInsets", #""contentEdgeInsets": {"top": 1}"#, #""contentEdgeInsets": {"top": 1, "left": 2}"#),
        ("button imageAlignment", #""imageAlignment": "beginning""#, #""imageAlignment": "end""#),
        ("button image size", #""image": {"intrinsicSize": {"width": 10, "height": 10}}"#, #""image": {"intrinsicSize": {"width": 10, "height": 11}}"#),
        // ids
        ("id changed", #""id": "styled""#, #""id": "styled2""#),
        ("id removed", #""id": "styled", "#, ""),
        ("id added", #"{"type": "wrapper", "children""#, #"{"type": "wrapper", "id": "w", "children""#),
        ("root id", #""id": "root""#, #""id": "Root""#),
    ]

    private func edited(_ from: String, _ to: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(base.components(separatedBy: from).count, 2, "'\(from)' must occur once", file: file, line: line)
        return base.replacingOccurrences(of: from, with: to)
    }

    func testEveryEditChangesTheKeyAndNeverHitsAnotherTree() {
        let service = newService()
        let baseOutcome = run(base, service)
        var keys: [String: String] = ["base": baseOutcome.key ?? ""]
        var bodies: [(String, String)] = [("base", base)]
        for (name, from, to) in edits {
            let body = edited(from, to)
            let o = run(body, service)
            XCTAssertNotEqual(o.key, baseOutcome.key, name)
            XCTAssertFalse(o.cacheHit, "\(name) must not be a hit")
            if let clash = keys.first(where: { $0.value == o.key }) { XCTFail("\(name) has the key of \(clash.key)") }
            keys[name] = o.key ?? ""
            bodies.append((name, body))
        }
        // The same id on another element (two replacements).
        let moved = base.replacingOccurrences(of: #""id": "img", "#, with: "")
            .replacingOccurrences(of: #"{"type": "node", "intrinsicSize": {"width": 7"#, with: #"{"type": "node", "id": "img", "intrinsicSize": {"width": 7"#)
        XCTAssertNotEqual(moved, base)
        let movedOutcome = run(moved, service)
        XCTAssertFalse(movedOutcome.cacheHit)
        if let clash = keys.first(where: { $0.value == movedOutcome.key }) { XCTFail("id moved has the key of \(clash.key)") }
        bodies.append(("id moved", moved))
        // Every answer equals a fresh service's, also when served from the warm caches in
        // another order.
        var order = Array(bodies.indices)
        var seed: UInt64 = 0x9E3779B97F4A7C15
        for k in stride(from: order.count - 1, to: 0, by: -1) {
            seed = LCG.step(seed)
            order.swapAt(k, Int(seed >> 33) % (k + 1))
        }
        for k in order {
            let (name, body) = bodies[k]
            let warm = run(body, service)
            XCTAssertTrue(warm.cacheHit, name)
            let fresh = run(body, newService())
            XCTAssertEqual(warm.body, fresh.body, name)
            XCTAssertEqual(warm.key, fresh.key, name)
        }
    }

    /// A text-heavy base for the text attributes (stub measurer, deterministic).
    private let textBase = #"""
    {"sizeRange": {"max": {"width": 100, "height": null}}, "root": {"type": "stack", "direction": "vertical", "alignItems": "start", "children": [
      {"type": "text", "id": "t", "text": "Hello world", "font": {"family": "Helvetica", "size": 12, "weight": 400, "italic": false}, "lineHeight": 15, "lineSpacing": 1, "letterSpacing": 0, "alignment": "left", "maximumNumberOfLines": 2, "truncationMode": "tail", "truncationText": "\u2026", "textContainerInset": {"top": 1, "left": 1, "bottom": 1, "right": 1}},
      {"type": "text", "spans": [{"text": "ab", "letterSpacing": 1}, {"text": "cd", "font": {"size": 14}}]},
      {"type": "button", "title": {"text": "OK", "font": {"size": 10}}}]}}
    """#

    private let textEdits: [(String, String, String)] = [
        ("text", #""Hello world""#, #""Hello World""#),
        ("family", #""family": "Helvetica""#, #""family": "Courier""#),
        ("size", #""size": 12"#, #""size": 13"#),
        ("weight", #""weight": 400"#, #""weight": 600"#),
        ("weight name", #""weight": 400"#, #""weight": "bold""#),
        ("italic", #""italic": false"#, #""italic": true"#),
        ("lineHeight", #""lineHeight": 15"#, #""lineHeight": 16"#),
        ("lineSpacing", #""lineSpacing": 1"#, #""lineSpacing": 2"#),
        ("letterSpacing", #""letterSpacing": 0,"#, #""letterSpacing": 0.5,"#),
        ("alignment", #""alignment": "left""#, #""alignment": "justified""#),
        ("maximumNumberOfLines", #""maximumNumberOfLines": 2"#, #""maximumNumberOfLines": 1"#),
        ("truncationMode", #""truncationMode": "tail""#, #""truncationMode": "clip""#),
        ("truncationText", #""truncationText": "\u2026""#, #""truncationText": "...""#),
        ("textContainerInset", #""textContainerInset": {"top": 1, "left": 1"#, #""textContainerInset": {"top": 2, "left": 1"#),
        ("span text", #""text": "ab""#, #""text": "abc""#),
        ("span split", #"[{"text": "ab", "letterSpacing": 1}, {"text": "cd", "font": {"size": 14}}]"#,
         #"[{"text": "a", "letterSpacing": 1}, {"text": "bcd", "font": {"size": 14}}]"#),
        ("span letterSpacing", #""letterSpacing": 1}"#, #""letterSpacing": 2}"#),
        ("span font", #""font": {"size": 14}"#, #""font": {"size": 14, "italic": true}"#),
        ("button title", #""text": "OK""#, #""text": "Cancel""#),
        ("button title font", #""font": {"size": 10}"#, #""font": {"size": 11}"#),
    ]

    func testEveryTextEditChangesTheKey() {
        let service = newService()
        let baseOutcome = run(textBase, service)
        var seen: [String: String] = [baseOutcome.key ?? "": "base"]
        for (name, from, to) in textEdits {
            XCTAssertEqual(textBase.components(separatedBy: from).count, 2, "'\(from)' must occur once")
            let body = textBase.replacingOccurrences(of: from, with: to)
            let o = run(body, service)
            XCTAssertFalse(o.cacheHit, name)
            if let other = seen[o.key ?? ""] { XCTFail("\(name) has the key of \(other)") }
            seen[o.key ?? ""] = name
            XCTAssertEqual(o.body, run(body, newService()).body, name)
        }
    }

    func testTextSpellings() {
        // A plain `text` is an attributed string of one span with the text's attributes.
        let t = #"{"sizeRange": {"max": {"width": 60}}, "root": {"type": "text", "text": "Hello world", "font": {"size": 10}}}"#
        assertSameKey([
            t,
            #"{"sizeRange": {"max": {"width": 60}}, "root": {"type": "text", "spans": [{"text": "Hello world"}], "font": {"size": 10}}}"#,
            #"{"sizeRange": {"max": {"width": 60}}, "root": {"font": {"weight": "regular", "size": 10.0, "italic": false}, "type": "text", "text": "Hello world"}}"#,
        ])
    }

    func testTextTreesKeyOnTheFontSet() {
        // A tree with text depends on the fonts installed: the font-set identity is in its key.
        var a = ServiceConfiguration(); a.fontSetIdentity = "set-a"
        var b = ServiceConfiguration(); b.fontSetIdentity = "set-b"
        let text = #"{"root": {"type": "text", "text": "x"}}"#
        let noText = #"{"root": {"type": "node"}}"#
        let sa = LayoutService(configuration: a, textMeasurer: measurer), sb = LayoutService(configuration: b, textMeasurer: measurer)
        XCTAssertNotEqual(run(text, sa).key, run(text, sb).key)
        XCTAssertEqual(run(noText, sa).key, run(noText, sb).key)
    }

    func testSVGAndJSONHaveDifferentKeysAndBodies() {
        let service = newService()
        let body = Array(#"{"root": {"type": "node", "id": "n", "style": {"width": 10, "height": 10}}}"#.utf8)
        let json = service.layout(body: body)
        let svg = service.layout(body: body, format: .svg)
        XCTAssertEqual(svg.status, 200)
        XCTAssertEqual(svg.contentType, "image/svg+xml")
        XCTAssertNotEqual(json.key, svg.key)
        XCTAssertFalse(svg.cacheHit)
        XCTAssertNotEqual(json.body, svg.body)
        XCTAssertEqual(service.layout(body: body).body, json.body)
        XCTAssertEqual(service.layout(body: body, format: .svg).body, svg.body)
    }

    /// Ids and URLs are hashed apart from the tree. Their encoding must be unambiguous: an id
    /// that happens to contain the bytes another element's URL entry would produce must not
    /// collide with that tree.
    func testIdAndURLEncodingIsUnambiguous() {
        let service = newService()
        let a = #"{"root": {"type": "stack", "id": "a", "children": [{"type": "image", "url": "b", "intrinsicSize": {"width": 1, "height": 1}}]}}"#
        let crafted = #"a\u0000\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000\u0002b"#
        let b = #"{"root": {"type": "stack", "id": "\#(crafted)", "children": [{"type": "image", "intrinsicSize": {"width": 1, "height": 1}}]}}"#
        let oa = run(a, service)
        let ob = run(b, service)
        XCTAssertNotEqual(oa.key, ob.key)
        XCTAssertFalse(ob.cacheHit)
        XCTAssertEqual(ob.body, run(b, newService()).body)
        // Likewise an id/URL boundary moved between the two.
        let c = #"{"root": {"type": "image", "id": "x", "url": "y", "intrinsicSize": {"width": 1, "height": 1}}}"#
        let d = #"{"root": {"type": "image", "id": "x\u0000\u0002y", "intrinsicSize": {"width": 1, "height": 1}}}"#
        XCTAssertNotEqual(run(c, service).key, run(d, service).key)
    }

    func testTreeDigestIgnoresIdsAndURLsButNotStructure() throws {
        func digest(_ s: String) throws -> (ElementDigest, ElementDigest) {
            let r = try RequestDecoder().decode(body: Array(s.utf8))
            let d = TreeDigest.compute(r.root)
            return (d.tree, d.ids)
        }
        let a = try digest(#"{"root": {"type": "stack", "children": [{"type": "image", "id": "i", "url": "u", "intrinsicSize": {"width": 1, "height": 2}}]}}"#)
        let b = try digest(#"{"root": {"type": "stack", "id": "s", "children": [{"type": "image", "intrinsicSize": {"width": 1, "height": 2}}]}}"#)
        let c = try digest(#"{"root": {"type": "stack", "children": [{"type": "image", "intrinsicSize": {"width": 2, "height": 1}}]}}"#)
        XCTAssertEqual(a.0, b.0)
        XCTAssertNotEqual(a.1, b.1)
        XCTAssertNotEqual(a.0, c.0)
        // Marks only non-root subtrees of at least 6 elements as shareable.
        let r = try RequestDecoder().decode(body: Array(#"{"root": {"type": "stack", "children": [{"type": "stack", "children": [{"type": "node"}, {"type": "node"}, {"type": "node"}, {"type": "node"}, {"type": "node"}]}, {"type": "stack", "children": [{"type": "node"}]}]}}"#.utf8))
        _ = TreeDigest.compute(r.root)
        XCTAssertNil(r.root.digest)
        XCTAssertNotNil(r.root.layoutChildren[0].digest)
        XCTAssertNil(r.root.layoutChildren[1].digest)
    }

    /// Text nodes inside shared subtrees keep their record digest for the text measurer,
    /// which keys their answers by it: equal texts (however spelled) share it, a text that
    /// differs in any measured field, or in its style, does not; texts outside shared
    /// subtrees have none (they are looked up by their attributes).
    func testTextNodesInSharedSubtreesCarryTheirRecordDigest() throws {
        func cell(_ text: String) -> String {
            #"{"type": "stack", "children": [{"type": "node"}, {"type": "node"}, {"type": "node"}, {"type": "node"}, \#(text)]}"#
        }
        let base = #"{"type": "text", "text": "Hello world", "font": {"family": "Inter", "size": 12}, "maximumNumberOfLines": 2}"#
        let variants = [
            base,
            #"{"maximumNumberOfLines": 2, "type": "text", "spans": [{"text": "Hello world"}], "font": {"family": "inter", "size": 12.0, "weight": 400}}"#,
            base.replacingOccurrences(of: "world", with: "World"),
            base.replacingOccurrences(of: "12", with: "12.5"),
            base.replacingOccurrences(of: "Inter", with: "Roboto"),
            base.replacingOccurrences(of: "Lines\": 2", with: "Lines\": 3"),
            base.replacingOccurrences(of: "}, \"max", with: ", \"italic\": true}, \"max"),
            base.replacingOccurrences(of: "\"type\": \"text\",", with: "\"type\": \"text\", \"lineHeight\": 16,"),
            base.replacingOccurrences(of: "\"type\": \"text\",", with: "\"type\": \"text\", \"truncationText\": \"...\","),
            base.replacingOccurrences(of: "\"type\": \"text\",", with: "\"type\": \"text\", \"style\": {\"flexGrow\": 1},"),
        ]
        let children = variants.map(cell) + [#"{"type": "stack", "children": [\#(base)]}"#]
        let r = try RequestDecoder(textMeasurer: measurer).decode(body: Array(#"{"root": {"type": "stack", "children": [\#(children.joined(separator: ", "))]}}"#.utf8))
        _ = TreeDigest.compute(r.root)
        let texts = r.root.layoutChildren.map { $0.layoutChildren.last as! TextNode }
        let digests = texts.map(\.recordDigest)
        XCTAssertNotNil(digests[0])
        XCTAssertEqual(digests[1], digests[0], "the same text spelled differently")
        XCTAssertEqual(Set(([digests[0]] + digests[2..<variants.count]).compactMap { $0 }).count, variants.count - 1,
                       "each edit is another digest")
        XCTAssertNil(digests.last!, "a text outside a shared subtree")
    }
}
