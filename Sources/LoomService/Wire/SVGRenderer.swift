import LoomLayout

/// Draws a computed layout as SVG: every node a solid box, every spec a dashed box, each
/// labelled with its id (or type). Coordinates are points in the root's space.
public struct SVGRenderer {
    public let grid: PixelGrid
    public init(scale: Double) { grid = PixelGrid(scale: scale) }

    public func render(root: LayoutElement, layout: Layout) -> [UInt8] {
        let w = Swift.max(1, layout.size.width), h = Swift.max(1, layout.size.height)
        var drawing = Drawing()
        drawing.out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-1 -1 \(fmt(w + 2)) \(fmt(h + 2))\" "
            + "width=\"\(fmt(w + 2))\" height=\"\(fmt(h + 2))\" font-family=\"sans-serif\" font-size=\"9\">\n"
        drawing.out += "<rect x=\"0\" y=\"0\" width=\"\(fmt(layout.size.width))\" height=\"\(fmt(layout.size.height))\" fill=\"#fafafa\" stroke=\"#333\"/>\n"
        drawing.box(root, Point.zero, layout.size, depth: 0, node: root.isDisplayNode)
        LayoutFlattening(grid: grid).walk(&drawing, below: root, layout: layout, scope: 1)
        drawing.out += "</svg>\n"
        return Array(drawing.out.utf8)
    }

    /// Draws each element the flattening walk shows; the scope is the element's depth.
    private struct Drawing: FlatLayoutVisitor {
        var out = ""
        let kinds = ElementKinds.shared

        mutating func enter(_ element: LayoutElement, _ layout: Layout, isNode: Bool, _ place: FlatPlacement, _ depth: Int) -> Int {
            box(element, place.origin, place.size, depth: depth, node: isNode)
            return depth + 1
        }

        func leave(_ element: LayoutElement, isNode: Bool, _ depth: Int) {}

        private static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

        mutating func box(_ e: LayoutElement, _ o: Point, _ s: Size, depth: Int, node: Bool) {
            let color = Self.palette[depth % Self.palette.count]
            let kind = kinds[of: e].name.description
            let label = escape(e.id ?? kind)
            let dash = node ? "" : " stroke-dasharray=\"3 2\""
            let fill = node ? color : "none"
            out += "<g><title>\(label) \(escape(kind)) (\(fmt(o.x)), \(fmt(o.y)), \(fmt(s.width)), \(fmt(s.height)))</title>"
            out += "<rect x=\"\(fmt(o.x))\" y=\"\(fmt(o.y))\" width=\"\(fmt(s.width))\" height=\"\(fmt(s.height))\" "
                + "fill=\"\(fill)\" fill-opacity=\"0.12\" stroke=\"\(color)\"\(dash)/>"
            if node || e.id != nil {
                out += "<text x=\"\(fmt(o.x + 2))\" y=\"\(fmt(o.y + 10))\" fill=\"\(color)\">\(label)</text>"
            }
            out += "</g>\n"
        }
    }
}

private func fmt(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
    return String(v)
}

/// Text for XML: markup characters escaped, and characters XML 1.0 does not allow
/// (C0 controls but tab, LF and CR; U+FFFE, U+FFFF) replaced with U+FFFD, so that any
/// id gives a document every XML parser accepts.
private func escape(_ s: String) -> String {
    var escaped = String.UnicodeScalarView()
    for c in s.unicodeScalars {
        switch c {
        case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
        case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
        case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
        case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
        case "\t", "\n", "\r": escaped.append(c)
        case _ where c.value < 0x20 || c.value == 0xFFFE || c.value == 0xFFFF: escaped.append("\u{FFFD}")
        default: escaped.append(c)
        }
    }
    return String(escaped)
}
