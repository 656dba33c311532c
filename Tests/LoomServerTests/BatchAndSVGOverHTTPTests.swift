import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest

/// `/layout/batch` limits and format, and the SVG answer's coordinates and escaping, over a
/// real socket.
final class BatchAndSVGOverHTTPTests: ServiceOverHTTPTestCase {
    static let item = #"{"root": {"type": "node", "style": {"width": 2, "height": 3}}}"#

    func batch(_ count: Int) -> String {
        #"{"items": ["# + Array(repeating: Self.item, count: count).joined(separator: ",") + "]}"
    }

    /// Batch results are JSON: asking for SVG is refused, not answered in JSON.
    func testBatchRefusesSVGFormat() throws {
        let loom = try startLoom()
        let svg = try postJSON(loom, "/layout/batch?format=svg", batch(1))
        XCTAssertEqual(svg.status, 400, svg.text)
        XCTAssertEqual(errorObject(svg)["code"] as? String, "invalid_spec")
        XCTAssertEqual(errorObject(svg)["path"] as? String, "format")
        let json = try postJSON(loom, "/layout/batch?format=json", batch(1))
        XCTAssertEqual(json.status, 200, json.text)
    }

    /// At most 1000 items (openapi.yaml): 1000 are laid out, 1001 are 413 too_large.
    func testBatchItemLimit() throws {
        let loom = try startLoom()
        let full = try postJSON(loom, "/layout/batch", batch(1000))
        XCTAssertEqual(full.status, 200, full.text.prefix(300).description)
        XCTAssertEqual((object(full)["results"] as? [Any])?.count, 1000)
        let over = try postJSON(loom, "/layout/batch", batch(1001))
        XCTAssertEqual(over.status, 413, over.text)
        XCTAssertEqual(errorObject(over)["code"] as? String, "too_large")
    }

    /// A node two insets deep: its box is at the sum of the offsets on the way down
    /// (20 + 4, 10 + 3), and its id's markup characters are escaped in the document.
    func testSVGCoordinatesAreSummedAndIdsEscaped() throws {
        let loom = try startLoom()
        let body = #"""
        {"root": {"type": "node", "id": "outer", "style": {"width": 100, "height": 100},
          "layout": {"type": "inset", "insets": {"top": 10, "left": 20, "bottom": 0, "right": 0},
            "child": {"type": "node", "id": "mid",
              "layout": {"type": "inset", "insets": {"top": 3, "left": 4, "bottom": 0, "right": 0},
                "child": {"type": "node", "id": "x<&\"y"}}}}}}
        """#
        let r = try postJSON(loom, "/layout?format=svg", body)
        XCTAssertEqual(r.status, 200, r.text)
        let svg = r.text
        XCTAssertFalse(svg.contains(#"x<&"y"#), svg)
        XCTAssertTrue(svg.contains(#"<title>mid node (20, 10, "#), svg)
        XCTAssertTrue(svg.contains(#"<title>x&lt;&amp;&quot;y node (24, 13, "#), svg)
        let inner = try XCTUnwrap(svg.range(of: #"<title>x&lt;&amp;&quot;y "#))
        XCTAssertTrue(svg[inner.upperBound...].contains(#"</title><rect x="24" y="13" "#), svg)
        // Its label lies inside its box (24, 13, 76, 87) (where exactly: SVGRendererTests).
        let label = try XCTUnwrap(svg.firstMatch(of: #/<text class="label" x="([\d.]+)" y="([\d.]+)"[^>]*>x&lt;&amp;&quot;y</text>/#), svg)
        XCTAssertTrue((24...100).contains(Double(label.1)!) && (13...100).contains(Double(label.2)!), svg)
        #if canImport(FoundationXML)
        // An XML parser (not ours) reads the document, and gets the id back unescaped.
        final class Titles: NSObject, XMLParserDelegate {
            var titles: [String] = [], current: String?
            func parser(_ p: XMLParser, didStartElement e: String, namespaceURI: String?, qualifiedName: String?,
                        attributes: [String: String] = [:]) { if e == "title" { current = "" } }
            func parser(_ p: XMLParser, foundCharacters s: String) { current? += s }
            func parser(_ p: XMLParser, didEndElement e: String, namespaceURI: String?, qualifiedName: String?) {
                if e == "title", let c = current { titles.append(c); current = nil }
            }
        }
        let parser = XMLParser(data: Data(r.body))
        let titles = Titles()
        parser.delegate = titles
        XCTAssertTrue(parser.parse(), "\(String(describing: parser.parserError))")
        XCTAssertTrue(titles.titles.contains { $0.hasPrefix(#"x<&"y node (24, 13, "#) }, "\(titles.titles)")
        #endif
    }
}
