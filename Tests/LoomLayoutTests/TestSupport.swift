import Foundation
import XCTest
import LoomLayout
@_exported import LoomTestSupport

// Shared helpers for the LoomLayout tests. Every expected number in the tests is derived by
// hand from docs/layout-semantics.md (section numbers are given in the
// comments next to each expectation); nothing here computes expectations.

let inf = Double.infinity

/// A size range `[minW, minH] – [maxW, maxH]`.
func range(_ minW: Double, _ minH: Double, _ maxW: Double, _ maxH: Double) -> SizeRange {
    SizeRange(min: Size(width: minW, height: minH), max: Size(width: maxW, height: maxH))
}

/// An exact range `[w, h] – [w, h]`.
func exact(_ w: Double, _ h: Double) -> SizeRange { SizeRange(exactly: Size(width: w, height: h)) }

/// A style built with a closure, so tests read like Texture's `node.style.x = …` lines.
func style(_ configure: (inout LayoutElementStyle) -> Void) -> LayoutElementStyle {
    var s = LayoutElementStyle()
    configure(&s)
    return s
}

/// A plain `ASDisplayNode` whose style has `preferredSize = (w, h)`, the way Texture's snapshot
/// tests size their boxes (`ASDisplayNodeWithBackgroundColor(color, size)`).
func box(_ w: Double, _ h: Double, id: String? = nil,
         _ configure: (inout LayoutElementStyle) -> Void = { _ in }) -> DisplayNode {
    var s = LayoutElementStyle()
    s.setPreferredSize(Size(width: w, height: h))
    configure(&s)
    return DisplayNode(style: s, id: id)
}

/// A plain node with no size of its own (§4.2: it takes the offered max if valid, else min).
func plain(id: String? = nil, _ configure: (inout LayoutElementStyle) -> Void = { _ in }) -> DisplayNode {
    DisplayNode(style: style(configure), id: id)
}

/// A leaf node whose `calculateSizeThatFits` returns a fixed size (§4.3).
func leaf(_ w: Double, _ h: Double, id: String? = nil,
          _ configure: (inout LayoutElementStyle) -> Void = { _ in }) -> DisplayNode {
    DisplayNode(intrinsicSize: Size(width: w, height: h), style: style(configure), id: id)
}

/// Root call (§5) at a given scale (default 2, the scale of Texture's reference images).
func rootLayout(_ root: LayoutElement, _ sizeRange: SizeRange, scale: Double = 2,
                measurer: TextMeasuring? = nil) -> Layout {
    calculateRootLayout(root, sizeRange: sizeRange, context: LayoutContext(scale: scale, textMeasurer: measurer))
}

func assertSize(_ layout: Layout, _ w: Double, _ h: Double, accuracy: Double = 0,
                _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(layout.size.width, w, accuracy: accuracy, "width \(message)", file: file, line: line)
    XCTAssertEqual(layout.size.height, h, accuracy: accuracy, "height \(message)", file: file, line: line)
}

/// Checks the `index`-th sublayout of `layout`: its frame (raw position, ceiled size) and,
/// when given, the slot (index into the parent element's `layoutChildren`).
func assertFrame(_ layout: Layout, _ index: Int, _ x: Double, _ y: Double, _ w: Double, _ h: Double,
                 slot: Int? = nil, accuracy: Double = 0, _ message: String = "",
                 file: StaticString = #filePath, line: UInt = #line) {
    guard index < layout.sublayouts.count else {
        XCTFail("no sublayout \(index) (have \(layout.sublayouts.count)) \(message)", file: file, line: line)
        return
    }
    let s = layout.sublayouts[index]
    if let slot { XCTAssertEqual(s.slot, slot, "slot of sublayout \(index) \(message)", file: file, line: line) }
    XCTAssertEqual(s.position.x, x, accuracy: accuracy, "x of sublayout \(index) \(message)", file: file, line: line)
    XCTAssertEqual(s.position.y, y, accuracy: accuracy, "y of sublayout \(index) \(message)", file: file, line: line)
    XCTAssertEqual(s.layout.size.width, w, accuracy: accuracy, "width of sublayout \(index) \(message)", file: file, line: line)
    XCTAssertEqual(s.layout.size.height, h, accuracy: accuracy, "height of sublayout \(index) \(message)", file: file, line: line)
}

/// The frames `(x, y, w, h)` of a layout's direct sublayouts, for compact comparisons.
func frames(_ layout: Layout) -> [[Double]] {
    layout.sublayouts.map { [$0.position.x, $0.position.y, $0.layout.size.width, $0.layout.size.height] }
}

/// §8 flattening, written from the document for the tests (the engine leaves flattening to
/// the service): walk `layout` (the layout of `element`) depth-first, accumulate raw
/// positions through specs, and report every display node reached with its pixel-ceiled
/// absolute position, without descending into it.
struct FlatFrame: Equatable, CustomStringConvertible {
    var id: String?
    var x: Double, y: Double, width: Double, height: Double
    var description: String { "\(id ?? "-")(\(x), \(y), \(width), \(height))" }
}

func flattenedChildren(of element: LayoutElement, _ layout: Layout, scale: Double = 2) -> [FlatFrame] {
    let grid = PixelGrid(scale: scale)
    var out: [FlatFrame] = []
    func walk(_ e: LayoutElement, _ l: Layout, _ origin: Point) {
        let children = e.layoutChildren
        for sub in l.sublayouts {
            let child = children[sub.slot]
            let p = Point(x: origin.x + sub.position.x, y: origin.y + sub.position.y)
            if child.isDisplayNode {
                let c = grid.ceil(p)
                out.append(FlatFrame(id: child.id, x: c.x, y: c.y, width: sub.layout.size.width, height: sub.layout.size.height))
            } else {
                walk(child, sub.layout, p)
            }
        }
    }
    walk(element, layout, .zero)
    return out
}

/// Structural equality of two layouts: sizes, positions, slots and baselines, bit for bit.
func layoutsIdentical(_ a: Layout, _ b: Layout) -> Bool {
    guard a.size.bitwiseEquals(b.size), a.sublayouts.count == b.sublayouts.count,
          a.ascender.bitPattern == b.ascender.bitPattern, a.descender.bitPattern == b.descender.bitPattern
    else { return false }
    for (x, y) in zip(a.sublayouts, b.sublayouts) {
        guard x.slot == y.slot, x.position.x.bitPattern == y.position.x.bitPattern,
              x.position.y.bitPattern == y.position.y.bitPattern, layoutsIdentical(x.layout, y.layout)
        else { return false }
    }
    return true
}

/// Number of elements in a tree (for the memo bound).
func elementCount(_ e: LayoutElement) -> Int {
    1 + e.layoutChildren.reduce(0) { $0 + elementCount($1) }
}

/// A text node with `text` in a font of `size` points.
func text(_ string: String, size: Double = 10, inset: EdgeInsets = .zero, maxLines: Int = 0, id: String? = nil,
          _ configure: (inout LayoutElementStyle) -> Void = { _ in }) -> TextNode {
    TextNode(attributes: TextAttributes(spans: [TextSpan(text: string)], font: FontDescriptor(size: size),
                                        maximumNumberOfLines: maxLines),
             textContainerInset: inset, style: style(configure), id: id)
}
