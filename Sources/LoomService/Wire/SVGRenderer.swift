import LoomLayout

/// Draws a computed layout as SVG: every node a solid box, every spec a dashed box, each
/// labelled with its id (or type). Coordinates are points in the root's space.
public struct SVGRenderer {
    public let grid: PixelGrid
    public init(scale: Double) { grid = PixelGrid(scale: scale) }

    public func render(root: LayoutElement, layout: Layout) -> [UInt8] {
        let w = Swift.max(1, layout.size.width), h = Swift.max(1, layout.size.height)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-1 -1 \(fmt(w + 2)) \(fmt(h + 2))\" "
            + "width=\"\(fmt(w + 2))\" height=\"\(fmt(h + 2))\" font-family=\"sans-serif\" font-size=\"9\">\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(fmt(layout.size.width))\" height=\"\(fmt(layout.size.height))\" fill=\"#fafafa\" stroke=\"#333\"/>\n"
        box(&out, root, Point.zero, layout.size, depth: 0, node: root.isDisplayNode)
        walk(&out, root, layout, accumulated: .zero, nodeOrigin: .zero, depth: 1)
        out += "</svg>\n"
        return Array(out.utf8)
    }

    private func walk(_ out: inout String, _ parent: LayoutElement, _ layout: Layout, accumulated: Point, nodeOrigin: Point, depth: Int) {
        let elements = parent.layoutChildren
        for sub in layout.sublayouts {
            let child = elements[sub.slot]
            let raw = Point(x: accumulated.x + sub.position.x, y: accumulated.y + sub.position.y)
            let ceiled = Point(x: finite(grid.ceil(raw.x)), y: finite(grid.ceil(raw.y)))
            let origin = Point(x: nodeOrigin.x + ceiled.x, y: nodeOrigin.y + ceiled.y)
            box(&out, child, origin, sub.layout.size, depth: depth, node: child.isDisplayNode)
            if child.isDisplayNode {
                walk(&out, child, sub.layout, accumulated: .zero, nodeOrigin: origin, depth: depth + 1)
            } else {
                walk(&out, child, sub.layout, accumulated: raw, nodeOrigin: nodeOrigin, depth: depth + 1)
            }
        }
    }

    private static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    private func box(_ out: inout String, _ e: LayoutElement, _ o: Point, _ s: Size, depth: Int, node: Bool) {
        let color = Self.palette[depth % Self.palette.count]
        let label = escape(e.id ?? e.typeName)
        let dash = node ? "" : " stroke-dasharray=\"3 2\""
        let fill = node ? color : "none"
        out += "<g><title>\(label) \(escape(e.typeName)) (\(fmt(o.x)), \(fmt(o.y)), \(fmt(s.width)), \(fmt(s.height)))</title>"
        out += "<rect x=\"\(fmt(o.x))\" y=\"\(fmt(o.y))\" width=\"\(fmt(s.width))\" height=\"\(fmt(s.height))\" "
            + "fill=\"\(fill)\" fill-opacity=\"0.12\" stroke=\"\(color)\"\(dash)/>"
        if node || e.id != nil {
            out += "<text x=\"\(fmt(o.x + 2))\" y=\"\(fmt(o.y + 10))\" fill=\"\(color)\">\(label)</text>"
        }
        out += "</g>\n"
    }

    private func finite(_ v: Double) -> Double { v.isFinite ? v : 0 }
    private func fmt(_ v: Double) -> String {
        if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
        return String(v)
    }
    /// Text for XML: markup characters escaped, and characters XML 1.0 does not allow
    /// (C0 controls but tab, LF and CR; U+FFFE, U+FFFF) replaced with U+FFFD, so that any
    /// id gives a document every XML parser accepts.
    func escape(_ s: String) -> String {
        var r = String.UnicodeScalarView()
        for c in s.unicodeScalars {
            switch c {
            case "<": r.append(contentsOf: "&lt;".unicodeScalars)
            case ">": r.append(contentsOf: "&gt;".unicodeScalars)
            case "&": r.append(contentsOf: "&amp;".unicodeScalars)
            case "\"": r.append(contentsOf: "&quot;".unicodeScalars)
            case "\t", "\n", "\r": r.append(c)
            case _ where c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF: r.append("\u{FFFD}")
            default: r.append(c)
            }
        }
        return String(r)
    }
}
