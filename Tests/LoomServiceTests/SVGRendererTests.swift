import Foundation
@testable import LoomService
import LoomLayout
import LoomText
import XCTest

/// The SVG drawing: labels that never overlap or leave the picture, a readable size, text
/// drawn in its font. (The same checks on the real rendering, with the browser's own
/// glyph boxes, run in headless Chromium: scripts/check-playground.mjs.)
final class SVGRendererTests: XCTestCase {
    struct Label { var text: String; var x, y, width, height: Double }
    struct Drawing { var labels: [Label]; var viewBox: [Double]; var width: Double; var svg: String }

    /// The labels of a drawing, each with the box the renderer reserved for it: its
    /// characters at 0.62 em (a monospace advance is 0.6 em) plus 0.2 em each side, 1.3 em
    /// high with the baseline 0.95 em below its top.
    static func parse(_ bytes: [UInt8]) throws -> Drawing {
        let svg = String(decoding: bytes, as: UTF8.self)
        let head = try XCTUnwrap(svg.firstMatch(of: #/viewBox="([-\d.]+) ([-\d.]+) ([\d.]+) ([\d.]+)" width="([\d.]+)"/#))
        let viewBox = [head.1, head.2, head.3, head.4].map { Double($0)! }
        var labels: [Label] = []
        for m in svg.matches(of: #/<text class="label" x="([-\d.]+)" y="([-\d.]+)"[^>]* font-size="([\d.]+)"[^>]*>([^<]*)</text>/#) {
            let x = Double(m.1)!, y = Double(m.2)!, f = Double(m.3)!
            let text = String(m.4).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
            labels.append(Label(text: text, x: x - 0.2 * f, y: y - 0.95 * f, width: Double(text.count) * 0.62 * f + 0.4 * f, height: 1.3 * f))
        }
        return Drawing(labels: labels, viewBox: viewBox, width: Double(head.5)!, svg: svg)
    }

    static func assertReadable(_ d: Drawing, _ name: String, file: StaticString = #filePath, line: UInt = #line) {
        // The document's numbers are rounded to 1/100.
        let e = 0.02
        let (vx, vy, vw, vh) = (d.viewBox[0], d.viewBox[1], d.viewBox[2], d.viewBox[3])
        for l in d.labels {
            XCTAssertTrue(l.x >= vx - e && l.y >= vy - e && l.x + l.width <= vx + vw + e && l.y + l.height <= vy + vh + e,
                          "\(name): label \(l) leaves the picture \(d.viewBox)", file: file, line: line)
        }
        for i in d.labels.indices { for j in d.labels.indices where j > i {
            let a = d.labels[i], b = d.labels[j]
            let overlap = a.x < b.x + b.width - e && b.x < a.x + a.width - e && a.y < b.y + b.height - e && b.y < a.y + a.height - e
            XCTAssertFalse(overlap, "\(name): labels \(a) and \(b) overlap", file: file, line: line)
        } }
        // 11 px on screen: the font size in points times the drawing's pixels per point.
        if let f = d.svg.firstMatch(of: #/class="label"[^>]* font-size="([\d.]+)"/#).map({ Double($0.1)! }) {
            XCTAssertEqual(f * d.width / vw, 11, accuracy: 0.05, "\(name): labels are not 11 px", file: file, line: line)
        }
    }

    /// Every example: labels apart and inside; the header's four labels that used to meet
    /// at one corner are all there.
    func testEveryExampleIsReadable() throws {
        let folder = ExamplesTests.examplesDirectory
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        XCTAssertGreaterThanOrEqual(files.count, 12)
        for file in files {
            let outcome = ExamplesTests.service.layout(body: Array(try Data(contentsOf: folder.appendingPathComponent(file))), format: .svg)
            XCTAssertEqual(outcome.status, 200, file)
            let d = try Self.parse(outcome.body)
            Self.assertReadable(d, file)
            XCTAssertFalse(d.labels.isEmpty, file)
        }
        let header = try Data(contentsOf: folder.appendingPathComponent("header-with-left-right-justified-text.json"))
        let d = try Self.parse(ExamplesTests.service.layout(body: Array(header), format: .svg).body)
        // A 375-pt-wide layout is drawn 640/375 times larger, up to the label column.
        XCTAssertEqual(d.width / d.viewBox[2], 640.0 / 375, accuracy: 1e-3)
    }

    /// A crowded tree (300 boxes of 2 × 2 pt): labels still apart and inside; the column
    /// holds at most `maxColumnLabels`, the rest are left out, every box keeps its tooltip,
    /// and the document stays bounded.
    func testCrowdedTreeLeavesLabelsOut() throws {
        let children = (0..<300).map { #"{"type":"node","id":"n\#($0)","style":{"width":2,"height":2}}"# }.joined(separator: ",")
        let body = #"{"root":{"type":"stack","id":"root","direction":"horizontal","children":[\#(children)]}}"#
        let outcome = LayoutService(textMeasurer: nil).layout(body: Array(body.utf8), format: .svg)
        XCTAssertEqual(outcome.status, 200)
        let d = try Self.parse(outcome.body)
        Self.assertReadable(d, "crowded")
        // The 2-pt-high root holds no label either: the root first, then 199 nodes, fill the column.
        XCTAssertEqual(d.labels.count, SVGRenderer.maxColumnLabels)
        XCTAssertEqual(d.labels.first?.text, "root")
        XCTAssertEqual(d.svg.components(separatedBy: "<title>n").count - 1, 300 + SVGRenderer.maxColumnLabels - 1)
        XCTAssertLessThan(outcome.body.count, 301 * 700)
    }

    /// Four boxes sharing a top-left corner: four labels, each at its own place.
    func testLabelsOfBoxesSharingACornerDoNotPile() throws {
        let body = #"""
        {"sizeRange":{"max":{"width":300,"height":300}},
         "root":{"type":"inset","id":"outer","insets":{"top":0,"left":0,"bottom":0,"right":0},"child":
           {"type":"stack","id":"column","children":[
             {"type":"node","id":"first","style":{"width":200,"height":60}},
             {"type":"node","id":"second","style":{"width":200,"height":60}}]}}}
        """#
        let d = try Self.parse(LayoutService(textMeasurer: nil).layout(body: Array(body.utf8), format: .svg).body)
        Self.assertReadable(d, "corner")
        XCTAssertEqual(Set(d.labels.map(\.text)), ["outer", "column", "first", "second"])
    }

    /// A zero-height spacer between two nodes: its label sits on neither.
    func testZeroHeightSpacerLabelStaysOffOtherNodes() throws {
        let body = #"""
        {"sizeRange":{"min":{"width":100,"height":0},"max":{"width":100,"height":null}},
         "root":{"type":"stack","id":"col","children":[
           {"type":"node","id":"top","style":{"width":100,"height":30}},
           {"type":"spacer","id":"gap"},
           {"type":"node","id":"bottom","style":{"width":100,"height":30}}]}}
        """#
        let d = try Self.parse(LayoutService(textMeasurer: nil).layout(body: Array(body.utf8), format: .svg).body)
        Self.assertReadable(d, "spacer")
        let gap = try XCTUnwrap(d.labels.first { $0.text == "gap" })
        for (y, h) in [(0.0, 30.0), (30.0, 30.0)] where gap.x < 100 {
            XCTAssertFalse(gap.y < y + h - 1e-3 && y < gap.y + gap.height - 1e-3, "gap's label \(gap) on a node at y \(y)")
        }
    }

    /// A text node shows its string in its font (family, size, weight), clipped to its box,
    /// with the id in the tooltip.
    func testTextIsDrawnInItsFont() throws {
        let body = #"""
        {"sizeRange":{"max":{"width":375,"height":null}},
         "root":{"type":"text","id":"title","text":"Hiking <trails> & more","font":{"family":"Roboto","size":17,"weight":"bold"}}}
        """#
        let outcome = ExamplesTests.service.layout(body: Array(body.utf8), format: .svg)
        XCTAssertEqual(outcome.status, 200, String(decoding: outcome.body, as: UTF8.self))
        let svg = String(decoding: outcome.body, as: UTF8.self)
        XCTAssertTrue(svg.contains(#"font-family="Roboto, sans-serif" font-size="17" font-weight="700""#), svg)
        XCTAssertTrue(svg.contains(">Hiking &lt;trails&gt; &amp; more</tspan>"), svg)
        XCTAssertTrue(svg.contains(#"overflow="hidden""#), svg)
        XCTAssertTrue(svg.contains("<title>title text ("), svg)
    }

    /// Tooltips carry the frame exactly as the JSON answer does; the drawing rounds to 1/100.
    func testTooltipsHoldExactFrames() throws {
        let body = #"{"root":{"type":"stack","id":"s","children":[{"type":"node","id":"a","style":{"width":10.3333333,"height":5}}]},"scale":3}"#
        let svg = String(decoding: LayoutService(textMeasurer: nil).layout(body: Array(body.utf8), format: .svg).body, as: UTF8.self)
        // 10.3333333 ceiled to the 1/3-pt pixel grid.
        let width = (10.3333333 * 3).rounded(.up) / 3
        XCTAssertTrue(svg.contains("<title>a node (0, 0, \(width), 5)</title>"), svg)
        XCTAssertTrue(svg.contains(#"<rect x="0" y="0" width="10.33" height="5""#), svg)
    }

    /// The line breaks drawn: at spaces, as many lines as the server counted, the last one
    /// ending in the truncation text when the measurer truncated.
    func testWrapKeepsTheServersLineCount() {
        XCTAssertEqual(wrap("aaa bbb ccc", width: 35, advance: 5, lineCount: 2, truncated: false, truncation: "…"), ["aaa bbb", "ccc"])
        XCTAssertEqual(wrap("aaa bbb ccc", width: 35, advance: 5, lineCount: 1, truncated: true, truncation: "…"), ["aaa bb…"])
        XCTAssertEqual(wrap("one\ntwo", width: 100, advance: 5, lineCount: 2, truncated: false, truncation: "…"), ["one", "two"])
        XCTAssertEqual(wrap("a b c d", width: 5, advance: 5, lineCount: 2, truncated: true, truncation: "…"), ["a", "…"])
    }
}
