import Foundation
import LoomLayout
import LoomService
import XCTest

/// The shared subtree cache: identical cells (ids aside) are measured once per constraint,
/// within a request and across requests, and reuse never changes an answer.
final class SubtreeReuseTests: XCTestCase {
    /// Three cell shapes, each ≥ 6 elements (the sharing threshold); ids differ per cell.
    static func cell(_ i: Int, shape: Int, badge: Double = 10) -> String {
        switch shape {
        case 0:  // 7 elements
            return #"""
            {"type": "node", "id": "c\#(i)", "layout": {"type": "stack", "alignItems": "start", "children": [
              {"type": "image", "id": "img\#(i)", "url": "https://x/\#(i).png", "intrinsicSize": {"width": 40, "height": 40}},
              {"type": "stack", "direction": "vertical", "alignItems": "start", "spacing": 2, "children": [
                {"type": "node", "id": "t\#(i)", "style": {"preferredSize": {"width": 100, "height": 20}}},
                {"type": "node", "style": {"preferredSize": {"width": 80, "height": 10}}}]},
              {"type": "node", "id": "b\#(i)", "style": {"preferredSize": {"width": \#(badge), "height": \#(badge)}}}]}}
            """#
        case 1:  // 9 elements
            return #"""
            {"type": "node", "id": "c\#(i)", "layout": {"type": "inset", "insets": {"top": 8, "left": 8, "bottom": 8, "right": 8}, "child":
              {"type": "stack", "direction": "vertical", "children": [
                {"type": "node", "id": "h\#(i)", "style": {"height": 20}},
                {"type": "stack", "children": [
                  {"type": "node", "style": {"preferredSize": {"width": 30, "height": 30}}},
                  {"type": "spacer", "style": {"flexGrow": 1}},
                  {"type": "node", "id": "r\#(i)", "style": {"preferredSize": {"width": 30, "height": 30}}}]},
                {"type": "node", "style": {"preferredSize": {"width": 60, "height": 12.5}}}]}}}
            """#
        default:  // 7 elements
            return #"""
            {"type": "node", "id": "c\#(i)", "layout": {"type": "overlay", "child":
              {"type": "stack", "children": [
                {"type": "image", "intrinsicSize": {"width": 60, "height": 60}},
                {"type": "node", "id": "g\#(i)", "style": {"flexGrow": 1, "height": 60}}]},
              "overlay": {"type": "center", "centeringOptions": "xy", "child": {"type": "node", "id": "dot\#(i)", "style": {"preferredSize": {"width": 10, "height": 10}}}}}}
            """#
        }
    }

    static func feed(_ n: Int, width: Double = 320, scale: Double = 2, changedAt: Int? = nil) -> String {
        let cells = (0..<n).map { i in cell(i, shape: i % 3, badge: i == changedAt ? 12 : 10) }
        return #"{"scale": \#(scale), "sizeRange": {"min": {"width": \#(width), "height": 0}, "max": {"width": \#(width), "height": null}}, "root": {"type": "stack", "id": "feed", "direction": "vertical", "spacing": 1, "children": [\#(cells.joined(separator: ",\n"))]}}"#
    }

    private func decode(_ body: String, file: StaticString = #filePath, line: UInt = #line) -> LayoutRequest? {
        do { return try RequestDecoder().decode(body: Array(body.utf8)) } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }

    /// Lays a freshly decoded request out with `cache` and counts computed layouts.
    private func computed(_ body: String, cache: SubtreeLayoutCaching?) -> (layout: Layout, request: LayoutRequest, count: Int)? {
        guard let request = decode(body) else { return nil }
        _ = TreeDigest.compute(request.root)   // marks the shareable subtrees, as the service does
        let context = LayoutContext(scale: request.scale, textMeasurer: nil, subtreeCache: cache)
        let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
        return (layout, request, context.computedLayouts)
    }

    /// Layouts computed for one cell of `shape` (a one-cell feed minus the feed stack).
    private func oneCell(_ shape: Int) -> Int {
        let body = #"{"sizeRange": {"min": {"width": 320, "height": 0}, "max": {"width": 320, "height": null}}, "root": {"type": "stack", "direction": "vertical", "spacing": 1, "children": [\#(Self.cell(0, shape: shape))]}}"#
        return (computed(body, cache: nil)?.count ?? 1) - 1
    }

    private func encode(_ r: (layout: Layout, request: LayoutRequest, count: Int)) -> [UInt8] {
        ResponseEncoder(scale: r.request.scale, includeSpecs: r.request.includeSpecs).encode(root: r.request.root, layout: r.layout)
    }

    func testIdenticalCellsAreComputedOnce() throws {
        let perShape = (0..<3).map(oneCell)
        for k in perShape { XCTAssertGreaterThanOrEqual(k, 7) }
        let oneOfEach = perShape.reduce(0, +)

        let service = LayoutService(textMeasurer: nil)
        let body = Self.feed(100)
        let cached = try XCTUnwrap(computed(body, cache: service.subtreeCache))
        let uncached = try XCTUnwrap(computed(body, cache: nil))
        // With the cache: the feed's stack plus one cell of each shape; every other cell is a
        // hit at the cell node.
        XCTAssertLessThanOrEqual(cached.count, oneOfEach + 1, "computed \(cached.count), one of each shape \(perShape)")
        XCTAssertGreaterThanOrEqual(service.subtreeCache.storage.statistics.hits, 97)
        // Without: every cell.
        XCTAssertGreaterThanOrEqual(uncached.count, 33 * oneOfEach)
        XCTAssertGreaterThan(uncached.count, 25 * cached.count)
        // Same frames either way.
        XCTAssertEqual(encode(cached), encode(uncached))
    }

    func testOneChangedCellCostsAboutOneCell() throws {
        let service = LayoutService(textMeasurer: nil)
        let original = service.layout(body: Array(Self.feed(100).utf8))
        XCTAssertEqual(original.status, 200)

        // Cell 50 (shape 50 % 3 = 2)… make the change in a shape-0 cell: 51.
        let changedBody = Self.feed(100, changedAt: 51)
        let changed = try XCTUnwrap(computed(changedBody, cache: service.subtreeCache))
        let cellCost = oneCell(0)
        XCTAssertLessThanOrEqual(changed.count, cellCost + 1, "computed \(changed.count); one cell costs \(cellCost)")
        XCTAssertGreaterThanOrEqual(changed.count, 2)   // the spine and the changed cell were computed

        // The warm service answers exactly what a fresh service and an uncached layout answer.
        let warm = service.layout(body: Array(changedBody.utf8))
        XCTAssertEqual(warm.status, 200)
        XCTAssertFalse(warm.cacheHit)
        let fresh = LayoutService(textMeasurer: nil).layout(body: Array(changedBody.utf8))
        XCTAssertEqual(warm.body, fresh.body)
        let uncached = try XCTUnwrap(computed(changedBody, cache: nil))
        XCTAssertEqual(warm.body, encode(uncached))
        XCTAssertEqual(encode(changed), encode(uncached))
        // The changed badge: 12×12 in cell 51 only.
        let frames = Svc.frames(warm.body)
        XCTAssertEqual(frames["b51"]?[2], 12)
        XCTAssertEqual(frames["b48"]?[2], 10)
        XCTAssertEqual(frames["b54"]?[2], 10)
    }

    func testReuseAcrossConstraintsAndScalesNeverMixesThemUp() {
        // The same cells under another width and another scale: different subtree keys; each
        // answer equals a fresh service's.
        let service = LayoutService(textMeasurer: nil)
        let bodies = [Self.feed(30), Self.feed(30, width: 300), Self.feed(30, scale: 3), Self.feed(30, width: 300.5, scale: 3),
                      Self.feed(31), Self.feed(30, changedAt: 0)]
        for body in bodies + bodies.reversed() {
            let warm = service.layout(body: Array(body.utf8))
            let fresh = LayoutService(textMeasurer: nil).layout(body: Array(body.utf8))
            XCTAssertEqual(warm.status, 200)
            XCTAssertEqual(warm.body, fresh.body)
        }
    }

    func testReuseWithIncludeSpecsAndSVG() {
        let service = LayoutService(textMeasurer: nil)
        let plain = Self.feed(12)
        let specs = plain.replacingOccurrences(of: #"{"scale": "#, with: #"{"options": {"includeSpecs": true}, "scale": "#)
        XCTAssertNotEqual(plain, specs)
        for body in [plain, specs, plain, specs] {
            for format in [OutputFormat.json, .svg] {
                let warm = service.layout(body: Array(body.utf8), format: format)
                let fresh = LayoutService(textMeasurer: nil).layout(body: Array(body.utf8), format: format)
                XCTAssertEqual(warm.status, 200)
                XCTAssertEqual(warm.body, fresh.body)
            }
        }
    }
}
