import Foundation
import LoomLayout
import LoomService
import XCTest

/// The response format (docs/wire-format.md "LayoutResponse", semantics §8): flattening, specs
/// kept with includeSpecs, the frames map, number printing. Every expected number is derived
/// by hand in the comments.
final class EncoderTests: XCTestCase {
    private func layout(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> [UInt8] {
        let outcome = LayoutService(textMeasurer: nil).layout(body: Array(body.utf8))
        XCTAssertEqual(outcome.status, 200, Svc.text(outcome.body), file: file, line: line)
        XCTAssertEqual(outcome.contentType, "application/json", file: file, line: line)
        return outcome.body
    }

    private func format(_ v: Double?) -> String {
        guard let v else { return "?" }
        return v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// A layout entry as `id:type(x,y,w,h)[children…]` (id omitted when absent).
    private func shape(_ entry: Any?) -> String {
        guard let e = entry as? [String: Any] else { return "<not an object>" }
        let id = e["id"] as? String
        let type = e["type"] as? String ?? "?"
        let f = e["frame"] as? [String: Any] ?? [:]
        let frame = ["x", "y", "width", "height"].map { format(Svc.number(f[$0])) }.joined(separator: ",")
        let children = (e["children"] as? [Any] ?? []).map(shape).joined(separator: ",")
        return (id.map { $0 + ":" } ?? "") + "\(type)(\(frame))[\(children)]"
    }

    private func layoutShape(_ body: [UInt8]) -> String { shape(Svc.object(body)["layout"]) }

    // MARK: flattening

    /// A vertical stack (alignItems start) in [0,0]–[200,inf] holding a 200×40 header and an
    /// inset (top 10, left 15) around a node `card` whose own layout is a horizontal stack
    /// (alignItems start) of icon 30×30 and label 50×20 with spacingBefore 5.
    private let cardRequest = #"""
    {"sizeRange": {"max": {"width": 200, "height": null}},
     "root": {"type": "stack", "id": "col", "direction": "vertical", "alignItems": "start", "children": [
       {"type": "node", "id": "header", "style": {"preferredSize": {"width": 200, "height": 40}}},
       {"type": "inset", "id": "pad", "insets": {"top": 10, "left": 15}, "child":
         {"type": "node", "id": "card", "layout":
           {"type": "stack", "id": "row", "alignItems": "start", "children": [
             {"type": "node", "id": "icon", "style": {"preferredSize": {"width": 30, "height": 30}}},
             {"type": "node", "id": "label", "style": {"preferredSize": {"width": 50, "height": 20}, "spacingBefore": 5}}]}}}]}
    %OPTIONS%}
    """#

    // Derivation (scale 2, all values already on the pixel grid):
    // col: used [0,0]–[200,inf]; children get main [0,inf], cross [0,200] (not stretch, §7.2.3),
    //   parent size NaN×NaN (range not exact, §3.4).
    // header: style 200×40 → 200×40.
    // pad (inset, §7.3): c = [0,200]×[0,inf]; iX = 15, iY = 10; child range [0,185]×[0,inf];
    //   child parent size MAX(0, NaN − …) = 0×0.
    //   card: used [0,185]×[0,inf]; its spec `row` gets (used, parent used.max) (§4.1).
    //     row: icon 30×30 at x 0; label: p = 30 + spacingBefore 5 = 35; sum 85 within [0,185];
    //     line cross max(30,20) = 30 → row 85×30 → card 85×30.
    //   pad size = clamp(c, (85 + 15, 30 + 10)) = 100×40; card at (15, 10).
    // col: header at y 0, pad at y 40; cross = max(200,100) = 200 → col 200×80.
    // Flattened (§8): card at pad (0,40) + (15,10) = (15,50); icon, label relative to card.
    func testNodeWithItsOwnLayoutHoldsItsNodesInItsCoordinates() {
        let body = layout(cardRequest.replacingOccurrences(of: "%OPTIONS%", with: ""))
        XCTAssertEqual(layoutShape(body),
                       "col:stack(0,0,200,80)[header:node(0,0,200,40)[],card:node(15,50,85,30)[icon:node(0,0,30,30)[],label:node(35,0,50,20)[]]]")
        let size = Svc.object(body)["size"] as? [String: Any]
        XCTAssertEqual(Svc.number(size?["width"]), 200)
        XCTAssertEqual(Svc.number(size?["height"]), 80)
        // frames: root coordinates for nodes and specs.
        XCTAssertEqual(Svc.frames(body), [
            "col": [0, 0, 200, 80], "header": [0, 0, 200, 40], "pad": [0, 40, 100, 40],
            "card": [15, 50, 85, 30], "row": [15, 50, 85, 30],
            "icon": [15, 50, 30, 30], "label": [50, 50, 50, 20],
        ])
    }

    func testIncludeSpecsKeepsSpecEntries() {
        let body = layout(cardRequest.replacingOccurrences(of: "%OPTIONS%", with: #", "options": {"includeSpecs": true}"#))
        // Same derivation; spec entries relative to their parent entry: pad at (0,40) in col,
        // card at (15,10) in pad, row at (0,0) in card.
        XCTAssertEqual(layoutShape(body),
                       "col:stack(0,0,200,80)[header:node(0,0,200,40)[],pad:inset(0,40,100,40)[card:node(15,10,85,30)[row:stack(0,0,85,30)[icon:node(0,0,30,30)[],label:node(35,0,50,20)[]]]]]")
        // The frames map does not depend on includeSpecs.
        XCTAssertEqual(Svc.frames(body), [
            "col": [0, 0, 200, 80], "header": [0, 0, 200, 40], "pad": [0, 40, 100, 40],
            "card": [15, 50, 85, 30], "row": [15, 50, 85, 30],
            "icon": [15, 50, 30, 30], "label": [50, 50, 50, 20],
        ])
    }

    func testRootNodeWithALayout() {
        // A node root: its frame is (0,0,size) and its spec vanishes. Range exact 120×60, the
        // node's spec is an inset of 10 on every side around a plain node: child range exactly
        // 100×40 → inner 100×40 at (10,10); inset 120×60; node 120×60 (§4.1, §7.3).
        let body = layout(#"""
        {"sizeRange": {"min": {"width": 120, "height": 60}, "max": {"width": 120, "height": 60}},
         "root": {"type": "node", "id": "n", "layout": {"type": "inset", "id": "i",
           "insets": {"top": 10, "left": 10, "bottom": 10, "right": 10}, "child": {"type": "node", "id": "inner"}}}}
        """#)
        XCTAssertEqual(layoutShape(body), "n:node(0,0,120,60)[inner:node(10,10,100,40)[]]")
        XCTAssertEqual(Svc.frames(body), ["n": [0, 0, 120, 60], "i": [0, 0, 120, 60], "inner": [10, 10, 100, 40]])
    }

    /// Three insets (zero insets) around 50×50 nodes in a horizontal stack, alignItems start,
    /// justify spaceAround, range [305,0]–[305,300] (§12 golden table): violation 155, unit
    /// 155/6 = 25.833…, raw x = 25.833…, 127.5, 229.166…; ceiled at 2x: 26, 127.5, 229.5.
    /// The specs' positions are ceiled like node positions (wire-format "frames").
    func testSpecPositionsAreCeiled() {
        let kids = (0..<3).map { #"{"type": "inset", "id": "w\#($0)", "child": {"type": "node", "id": "n\#($0)", "style": {"preferredSize": {"width": 50, "height": 50}}}}"# }
        let request = #"""
        {"sizeRange": {"min": {"width": 305, "height": 0}, "max": {"width": 305, "height": 300}},
         "root": {"type": "stack", "id": "s", "alignItems": "start", "justifyContent": "spaceAround", "children": [\#(kids.joined(separator: ","))]}%OPTIONS%}
        """#
        let body = layout(request.replacingOccurrences(of: "%OPTIONS%", with: ""))
        XCTAssertEqual(layoutShape(body),
                       "s:stack(0,0,305,50)[n0:node(26,0,50,50)[],n1:node(127.5,0,50,50)[],n2:node(229.5,0,50,50)[]]")
        XCTAssertEqual(Svc.frames(body), [
            "s": [0, 0, 305, 50],
            "w0": [26, 0, 50, 50], "w1": [127.5, 0, 50, 50], "w2": [229.5, 0, 50, 50],
            "n0": [26, 0, 50, 50], "n1": [127.5, 0, 50, 50], "n2": [229.5, 0, 50, 50],
        ])
        let text = Svc.text(body)
        XCTAssertTrue(text.contains(#""x":127.5"#), text)
        XCTAssertTrue(text.contains(#""x":229.5"#), text)

        let withSpecs = layout(request.replacingOccurrences(of: "%OPTIONS%", with: #", "options": {"includeSpecs": true}"#))
        XCTAssertEqual(layoutShape(withSpecs),
                       "s:stack(0,0,305,50)[w0:inset(26,0,50,50)[n0:node(0,0,50,50)[]],w1:inset(127.5,0,50,50)[n1:node(0,0,50,50)[]],w2:inset(229.5,0,50,50)[n2:node(0,0,50,50)[]]]")
        XCTAssertEqual(Svc.frames(withSpecs), Svc.frames(body))
    }

    func testSpecsWithoutIdsVanishAndNodesWithoutIdsStay() {
        // Same spaceAround row without any ids: the default output holds only the nodes.
        let kids = Array(repeating: #"{"type": "inset", "child": {"type": "node", "style": {"preferredSize": {"width": 50, "height": 50}}}}"#, count: 3)
        let body = layout(#"""
        {"sizeRange": {"min": {"width": 305, "height": 0}, "max": {"width": 305, "height": 300}},
         "root": {"type": "stack", "alignItems": "start", "justifyContent": "spaceAround", "children": [\#(kids.joined(separator: ","))]}}
        """#)
        XCTAssertEqual(layoutShape(body), "stack(0,0,305,50)[node(26,0,50,50)[],node(127.5,0,50,50)[],node(229.5,0,50,50)[]]")
        XCTAssertEqual(Svc.frames(body), [:])
    }

    // MARK: root spec entry and numbers

    /// Root spec: its own entry with type and id, frame (0,0,size). A plain node in a
    /// horizontal stretch stack with range [0,0]–[100,50]: main [0,inf] → calculateSizeThatFits
    /// gets an invalid max → (0,0) (§4.2); line cross 0; stack 0×0. ceilPx(0) = −0.0 (§6),
    /// which must print as 0.
    func testRootSpecEntryAndNegativeZero() {
        let body = layout(#"{"sizeRange": {"max": {"width": 100, "height": 50}}, "root": {"type": "stack", "id": "s", "children": [{"type": "node", "id": "z"}]}}"#)
        XCTAssertEqual(layoutShape(body), "s:stack(0,0,0,0)[z:node(0,0,0,0)[]]")
        XCTAssertEqual(Svc.frames(body), ["s": [0, 0, 0, 0], "z": [0, 0, 0, 0]])
        let text = Svc.text(body)
        XCTAssertFalse(text.contains("-0"), text)
        XCTAssertTrue(text.contains(#""size":{"width":0,"height":0}"#), text)
        XCTAssertTrue(text.contains(#""frame":{"x":0,"y":0,"width":0,"height":0}"#), text)
    }

    /// §12 example 2 at scale 2: exact 400×400, children 300/100/200 wide (height 50), shrink
    /// 1/2/1: widths ceil(214.2857…) = 214.5, 43, 143; x = 0, 214.5, 257.5.
    func testHalfPixelNumbersPrintExactly() {
        let body = layout(#"""
        {"sizeRange": {"min": {"width": 400, "height": 400}, "max": {"width": 400, "height": 400}},
         "root": {"type": "stack", "alignItems": "start", "children": [
           {"type": "node", "id": "a", "style": {"width": 300, "height": 50, "flexShrink": 1}},
           {"type": "node", "id": "b", "style": {"width": 100, "height": 50, "flexShrink": 2}},
           {"type": "node", "id": "c", "style": {"width": 200, "height": 50, "flexShrink": 1}}]}}
        """#)
        XCTAssertEqual(Svc.frames(body), ["a": [0, 0, 214.5, 50], "b": [214.5, 0, 43, 50], "c": [257.5, 0, 143, 50]])
        let text = Svc.text(body)
        XCTAssertTrue(text.contains(#""a":{"x":0,"y":0,"width":214.5,"height":50}"#), text)
        XCTAssertTrue(text.contains(#""c":{"x":257.5,"y":0,"width":143,"height":50}"#), text)
    }

    /// §12 golden row "3×(50×50) grow 1 shrink 1 in [110,0]–[110,300]", at scale 3: violation
    /// −40, equal weights → each target 50 − 13.33… = 36.66…; ceilPx at 3x: ceil(110 − ε)/3 =
    /// 110/3 (the double 36.666666666666664); x = 0, 110/3, 220/3. Printed in the shortest
    /// round-trip form, so a client parses back the identical double.
    func testThirdPixelNumbersPrintExactly() {
        let kid = #"{"type": "node", "id": "%", "style": {"preferredSize": {"width": 50, "height": 50}, "flexGrow": 1, "flexShrink": 1}}"#
        let kids = ["a", "b", "c"].map { kid.replacingOccurrences(of: "%", with: $0) }.joined(separator: ",")
        let body = layout(#"""
        {"scale": 3, "sizeRange": {"min": {"width": 110, "height": 0}, "max": {"width": 110, "height": 300}},
         "root": {"type": "stack", "alignItems": "start", "children": [\#(kids)]}}
        """#)
        let third = 110.0 / 3.0, twoThirds = 220.0 / 3.0
        XCTAssertEqual(Svc.frames(body), ["a": [0, 0, third, 50], "b": [third, 0, third, 50], "c": [twoThirds, 0, third, 50]])
        let text = Svc.text(body)
        XCTAssertTrue(text.contains(#""b":{"x":36.666666666666664,"y":0,"width":36.666666666666664,"height":50}"#), text)
        XCTAssertTrue(text.contains(#""x":73.33333333333333"#), text)
        // Our own parser reads the same doubles back.
        guard case .object(let top)? = try? JSONParser.parse(body),
              case .object(let frames)? = top.first(where: { $0.key == "frames" })?.value,
              case .object(let c)? = frames.first(where: { $0.key == "c" })?.value else { return XCTFail(text) }
        XCTAssertEqual(c.map(\.value), [.number(twoThirds), .number(0), .number(third), .number(50)])
    }

    func testJSONWriterNumbers() {
        func write(_ v: Double) -> String {
            var w = JSONWriter()
            w.number(v)
            return Svc.text(w.bytes)
        }
        XCTAssertEqual(write(-0.0), "0")
        XCTAssertEqual(write(0), "0")
        XCTAssertEqual(write(214.5), "214.5")
        XCTAssertEqual(write(-10), "-10")
        XCTAssertEqual(write(375), "375")
        XCTAssertEqual(write(0.1), "0.1")
        XCTAssertEqual(write(110.0 / 3.0), "36.666666666666664")
        XCTAssertEqual(write(.infinity), "0")
        XCTAssertEqual(write(.nan), "0")
        // Whatever the form, the output is JSON that reads back to the same double.
        for v in [1e16, 1e-7, 123_456_789.125, -2.5e-300, 9.5e15, 8_999_999_999_999_999.0, 1e300] {
            let s = write(v)
            XCTAssertEqual(try? JSONParser.parse(Array(s.utf8)), .number(v), s)
        }
    }

    // MARK: carried fields and ids

    /// Text entries carry `lines` and `truncated`. Stub measurer (AttributeSensitiveTextMeasurer): 10 pt
    /// characters are 5 wide, lines 12.5 tall. Root text in [0,0]–[30,inf]: container 30 wide;
    /// "Hello world" breaks after 6 characters → 2 lines, limited to 1 → truncated; used width
    /// 30 + 0.1 (truncation) but at most the container (30); height 12.5 → 30×12.5.
    func testTextEntriesCarryLinesAndTruncation() {
        let service = LayoutService(textMeasurer: AttributeSensitiveTextMeasurer())
        let outcome = service.layout(body: Array(#"{"sizeRange": {"max": {"width": 30}}, "root": {"type": "text", "id": "t", "text": "Hello world", "font": {"size": 10}, "maximumNumberOfLines": 1}}"#.utf8))
        XCTAssertEqual(outcome.status, 200, Svc.text(outcome.body))
        let entry = Svc.object(outcome.body)["layout"] as? [String: Any]
        XCTAssertEqual(shape(entry), "t:text(0,0,30,12.5)[]")
        XCTAssertEqual(Svc.number(entry?["lines"]), 1)
        XCTAssertEqual(entry?["truncated"] as? Bool, true)
        // Unlimited, in a vertical stack (cross range [0,30], §7.2.3): lines of 30 and 25,
        // not truncated → 30×25.
        let two = service.layout(body: Array(#"{"sizeRange": {"max": {"width": 30}}, "root": {"type": "stack", "direction": "vertical", "children": [{"type": "text", "id": "t", "text": "Hello world", "font": {"size": 10}}]}}"#.utf8))
        let kid = ((Svc.object(two.body)["layout"] as? [String: Any])?["children"] as? [[String: Any]])?.first
        XCTAssertEqual(Svc.number(kid?["lines"]), 2)
        XCTAssertEqual(kid?["truncated"] as? Bool, false)
        XCTAssertEqual(Svc.frames(two.body)["t"], [0, 0, 30, 25])
        // Non-text entries have neither.
        let node = (Svc.object(layout(#"{"root": {"type": "node"}}"#))["layout"] as? [String: Any]) ?? [:]
        XCTAssertNil(node["lines"])
        XCTAssertNil(node["truncated"])
        XCTAssertNil(node["url"])
    }

    func testImageURLIsCarried() {
        let url = #"https://cdn.example.com/a b/\"q\".png?x=1&y=é"#
        let body = layout(#"""
        {"sizeRange": {"max": {"width": 100, "height": 100}},
         "root": {"type": "stack", "children": [{"type": "image", "id": "img", "url": "\#(url)", "intrinsicSize": {"width": 20, "height": 10}},
                                                {"type": "image", "intrinsicSize": {"width": 5, "height": 5}}]}}
        """#)
        let children = (Svc.object(body)["layout"] as? [String: Any])?["children"] as? [[String: Any]] ?? []
        XCTAssertEqual(children.count, 2)
        XCTAssertEqual(children.first?["url"] as? String, #"https://cdn.example.com/a b/"q".png?x=1&y=é"#)
        XCTAssertEqual(children.first?["type"] as? String, "image")
        XCTAssertNil(children.last?["url"])
    }

    /// A cell: a node whose layout is a horizontal stack (alignItems start) of an image 40×40,
    /// a vertical stack (alignItems start) of two nodes 100×20 and 80×10, and a 10×10 badge:
    /// 7 elements, so it is shared through the subtree cache (TreeDigest threshold 6).
    private func cell(_ k: String) -> String {
        #"""
        {"type": "node", "id": "cell\#(k)", "layout": {"type": "stack", "id": "row\#(k)", "alignItems": "start", "children": [
          {"type": "image", "id": "img\#(k)", "url": "u\#(k)", "intrinsicSize": {"width": 40, "height": 40}},
          {"type": "stack", "id": "text\#(k)", "direction": "vertical", "alignItems": "start", "children": [
            {"type": "node", "id": "title\#(k)", "style": {"preferredSize": {"width": 100, "height": 20}}},
            {"type": "node", "id": "sub\#(k)", "style": {"preferredSize": {"width": 80, "height": 10}}}]},
          {"type": "node", "id": "badge\#(k)", "style": {"preferredSize": {"width": 10, "height": 10}}}]}}
        """#
    }

    private func feed(_ ids: [String]) -> String {
        #"{"sizeRange": {"min": {"width": 320, "height": 0}, "max": {"width": 320, "height": null}}, "root": {"type": "stack", "id": "feed", "direction": "vertical", "children": [\#(ids.map(cell).joined(separator: ","))]}}"#
    }

    // Cell derivation: feed (vertical, stretch) in [320,0]–[320,inf] gives each cell the
    // cross range [320,320] (stretch, auto style → the stack's min, §7.2.3) and main [0,inf].
    // The cell node's used range is [320,320]×[0,inf]; its spec `row` gets the same range
    // (§4.1), so row's main axis is exact 320. row (alignItems start, children main [0,inf],
    // cross [0,inf]): image 40×40 at x 0; text stack: title 100×20 at y 0, sub 80×10 at
    // y 20 → 100×30, at x 40; badge 10×10 at x 140. Sum 150 < 320: underflow with justify
    // start, nothing grows; line cross max(40,30,10) = 40; row = clamp(used, (150,40)) =
    // 320×40 → cell 320×40. Cells stacked at y = 0, 40; feed 320×80.
    func testIdsNeverLeakBetweenIdenticalSubtrees() {
        let service = LayoutService(textMeasurer: nil)
        let first = service.layout(body: Array(feed(["A", "B"]).utf8))
        XCTAssertEqual(first.status, 200, Svc.text(first.body))
        XCTAssertEqual(layoutShape(first.body),
                       "feed:stack(0,0,320,80)[cellA:node(0,0,320,40)[imgA:image(0,0,40,40)[],titleA:node(40,0,100,20)[],subA:node(40,20,80,10)[],badgeA:node(140,0,10,10)[]],"
                       + "cellB:node(0,40,320,40)[imgB:image(0,0,40,40)[],titleB:node(40,0,100,20)[],subB:node(40,20,80,10)[],badgeB:node(140,0,10,10)[]]]")
        let frames = Svc.frames(first.body)
        XCTAssertEqual(frames["rowB"], [0, 40, 320, 40])
        XCTAssertEqual(frames["textB"], [40, 40, 100, 30])
        XCTAssertEqual(frames["subB"], [40, 60, 80, 10])
        XCTAssertEqual(frames.count, 14 + 1)

        // Same shapes, new ids, same service (subtree cache warm): the new ids, the new URLs.
        let second = service.layout(body: Array(feed(["C", "D"]).utf8))
        XCTAssertFalse(second.cacheHit)
        XCTAssertNotEqual(second.key, first.key)
        let text = Svc.text(second.body)
        for old in ["cellA", "imgB", "\"uA\"", "\"uB\"", "titleA", "badgeB"] { XCTAssertFalse(text.contains(old), old) }
        XCTAssertEqual(Svc.frames(second.body)["subD"], [40, 60, 80, 10])
        let images = ((Svc.object(second.body)["layout"] as? [String: Any])?["children"] as? [[String: Any]] ?? [])
            .compactMap { ($0["children"] as? [[String: Any]])?.first?["url"] as? String }
        XCTAssertEqual(images, ["uC", "uD"])
        // Byte-identical to what a fresh service answers.
        XCTAssertEqual(second.body, LayoutService(textMeasurer: nil).layout(body: Array(feed(["C", "D"]).utf8)).body)
    }
}
