import LoomLayout

/// Draws a computed layout as SVG: every node a solid box, every spec a dashed box, each
/// text node's string in its font inside its box. Coordinates are points in the root's
/// space; small layouts are shown enlarged (up to 3×, towards 640 px wide) and the labels
/// are 11 px on screen whatever the enlargement.
///
/// Labels (the id, or the type of an unnamed node) never overlap each other, drawn text
/// or nodes outside their element's own branch, and never leave the picture: each goes
/// inside its box, else just outside it, else into a column right of the layout with a
/// leader line to its box; once the column holds `maxColumnLabels`, shortened inside its
/// box or left out (and past `maxLabels` labels, left out). Every box keeps its full id in
/// its `<title>` tooltip.
public struct SVGRenderer {
    public let grid: PixelGrid
    public init(scale: Double) { grid = PixelGrid(scale: scale) }

    /// Labels placed at most (placing is quadratic in the labels).
    static let maxLabels = 400
    /// Labels in the column right of the layout at most.
    static let maxColumnLabels = 200
    /// Longest label drawn in full; longer ones are cut with "…".
    static let maxLabelCharacters = 24

    public func render(root: LayoutElement, layout: Layout) -> [UInt8] {
        var collector = Collector()
        collector.boxes.append(Box(origin: .zero, size: layout.size, depth: 0, element: root, layout: layout, end: 0))
        LayoutFlattening(grid: grid).walk(&collector, below: root, layout: layout, scope: Scope(depth: 1, index: 0))
        collector.boxes[0].end = collector.boxes.count
        return Array(Picture(boxes: collector.boxes, width: layout.size.width, height: layout.size.height).svg().utf8)
    }

    /// One drawn element, in pre-order; `end`: the index after its subtree.
    struct Box {
        let origin: Point
        let size: Size
        let depth: Int
        let element: LayoutElement
        let layout: Layout
        var end: Int
        var isNode: Bool { element.isDisplayNode }
        fileprivate var rect: SVGRect { SVGRect(x: origin.x, y: origin.y, width: size.width, height: size.height) }
    }

    struct Scope { let depth: Int; let index: Int }

    /// Collects the boxes of the flattening walk.
    private struct Collector: FlatLayoutVisitor {
        var boxes: [Box] = []
        mutating func enter(_ element: LayoutElement, _ layout: Layout, isNode: Bool, _ place: FlatPlacement, _ scope: Scope) -> Scope {
            boxes.append(Box(origin: place.origin, size: place.size, depth: scope.depth, element: element, layout: layout, end: 0))
            return Scope(depth: scope.depth + 1, index: boxes.count - 1)
        }
        mutating func leave(_ element: LayoutElement, isNode: Bool, _ scope: Scope) { boxes[scope.index].end = boxes.count }
    }
}

fileprivate struct SVGRect {
    var x, y, width, height: Double
    /// Whether the two rects share an area (touching edges do not count).
    func overlaps(_ o: SVGRect) -> Bool {
        let e = 1e-6
        return x < o.x + o.width - e && o.x < x + width - e && y < o.y + o.height - e && o.y < y + height - e
    }
    func inside(_ o: SVGRect) -> Bool {
        let e = 1e-6
        return x >= o.x - e && y >= o.y - e && x + width <= o.x + o.width + e && y + height <= o.y + o.height + e
    }
}

/// The drawing of a list of boxes: label placement, then the document.
private struct Picture {
    let boxes: [SVGRenderer.Box]
    let width: Double, height: Double
    /// Screen pixels per point.
    let zoom: Double
    /// Label font size, character advance (monospace, rounded up) and label box height, in points.
    let fontSize: Double, advance: Double, lineHeight: Double
    let kinds = ElementKinds.shared

    init(boxes: [SVGRenderer.Box], width: Double, height: Double) {
        self.boxes = boxes
        self.width = Swift.max(1, width.isFinite ? width : 1)
        self.height = Swift.max(1, height.isFinite ? height : 1)
        zoom = Swift.min(3, Swift.max(1, 640 / self.width))
        fontSize = 11 / zoom
        advance = 0.62 * fontSize
        lineHeight = 1.3 * fontSize
    }

    struct Label {
        let box: Int
        let text: String
        let rect: SVGRect
        /// In the column right of the layout (drawn with a leader line).
        let inColumn: Bool
    }

    private static let palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    /// The label: the id, or the type of an unnamed node (none for an unnamed text node:
    /// its text is drawn).
    func name(_ b: SVGRenderer.Box) -> String? {
        if let id = b.element.id { return id }
        return b.isNode && !(b.element is TextNode) ? kinds[of: b.element].name.description : nil
    }

    func labelBox(_ x: Double, _ y: Double, _ characters: Int) -> SVGRect {
        SVGRect(x: x, y: y, width: Double(characters) * advance + 2 * pad, height: lineHeight)
    }
    var pad: Double { 0.2 * fontSize }

    /// The labels: each box's first free place (see `SVGRenderer`).
    func placeLabels() -> (labels: [Label], columnWidth: Double) {
        let area = SVGRect(x: 0, y: 0, width: width, height: height)
        // What labels keep off: drawn text, and display nodes other than the labelled
        // element's ancestors and descendants (the first 1,600 nodes: placing stays linear
        // in the tree past them).
        var textRects: [SVGRect] = []
        var nodeRects: [(Int, SVGRect)] = []
        for (k, b) in boxes.enumerated() where b.isNode && k > 0 && nodeRects.count < 4 * SVGRenderer.maxLabels {
            nodeRects.append((k, b.rect))
            if b.element is TextNode { textRects.append(b.rect) }
        }
        var labels: [Label] = []
        var columnRows = 0
        var columnCharacters = 0
        for (k, b) in boxes.enumerated() {
            guard labels.count < SVGRenderer.maxLabels, let full = name(b) else { continue }
            let characters = Array(full)
            let text = characters.count > SVGRenderer.maxLabelCharacters
                ? String(characters.prefix(SVGRenderer.maxLabelCharacters - 1)) + "…" : full
            let count = Swift.min(characters.count, SVGRenderer.maxLabelCharacters)
            func related(_ j: Int) -> Bool { (j >= k && j < b.end) || (k > j && k < boxes[j].end) }
            func free(_ r: SVGRect) -> Bool {
                guard r.inside(area) else { return false }
                for l in labels where l.rect.overlaps(r) { return false }
                for t in textRects where t.overlaps(r) { return false }
                for (j, n) in nodeRects where !related(j) && n.overlaps(r) { return false }
                return true
            }
            let m = 1 / zoom, s = b.rect
            func inside(_ n: Int) -> [SVGRect] {
                let w = labelBox(0, 0, n).width, h = lineHeight
                guard w + 2 * m <= s.width, h + 2 * m <= s.height else { return [] }
                return [labelBox(s.x + m, s.y + m, n), labelBox(s.x + m, s.y + s.height - h - m, n),
                        labelBox(s.x + s.width - w - m, s.y + m, n), labelBox(s.x + s.width - w - m, s.y + s.height - h - m, n)]
            }
            let w = labelBox(0, 0, count).width
            let outside = [labelBox(s.x, s.y - lineHeight, count), labelBox(s.x, s.y + s.height, count),
                           labelBox(s.x + s.width + m, s.y, count), labelBox(s.x - w - m, s.y, count)]
            if let r = (inside(count) + outside).first(where: free) {
                labels.append(Label(box: k, text: text, rect: r, inColumn: false)); continue
            }
            if columnRows < SVGRenderer.maxColumnLabels {
                let r = labelBox(width + 8 / zoom, Double(columnRows) * lineHeight, count)
                columnRows += 1
                columnCharacters = Swift.max(columnCharacters, count)
                labels.append(Label(box: k, text: text, rect: r, inColumn: true)); continue
            }
            // The column is full: shortened to the box's width (at least two characters and
            // the ellipsis), or left out.
            let room = ((s.width - 2 * m - 2 * pad) / advance).rounded(.down)
            let fits = room.isFinite ? Int(Swift.max(0, Swift.min(room, 1000))) : 0
            if fits >= 3 && fits < count, let r = inside(fits).first(where: free) {
                labels.append(Label(box: k, text: String(characters.prefix(fits - 1)) + "…", rect: r, inColumn: false))
            }
        }
        return (labels, columnCharacters == 0 ? 0 : 8 / zoom + labelBox(0, 0, columnCharacters).width)
    }

    func svg() -> String {
        let (labels, columnWidth) = placeLabels()
        let columnHeight = labels.reduce(0) { $1.inColumn ? Swift.max($0, $1.rect.y + $1.rect.height) : $0 }
        let w = width + columnWidth, h = Swift.max(height, columnHeight)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-1 -1 \(fmt(w + 2)) \(fmt(h + 2))\" "
            + "width=\"\(fmt((w + 2) * zoom))\" height=\"\(fmt((h + 2) * zoom))\" font-family=\"sans-serif\">\n"
        out += "<rect x=\"0\" y=\"0\" width=\"\(fmt(width))\" height=\"\(fmt(height))\" fill=\"#fafafa\" stroke=\"#333\" stroke-width=\"\(fmt(1 / zoom))\"/>\n"
        for b in boxes {
            let color = Self.palette[b.depth % Self.palette.count]
            let kind = kinds[of: b.element].name.description
            let dash = b.isNode ? "" : " stroke-dasharray=\"\(fmt(3 / zoom)) \(fmt(2 / zoom))\""
            // The tooltip: the frame as the JSON answer gives it.
            out += "<g><title>\(escape(b.element.id ?? kind)) \(escape(kind)) (\(exact(b.origin.x)), \(exact(b.origin.y)), \(exact(b.size.width)), \(exact(b.size.height)))</title>"
            out += "<rect x=\"\(fmt(b.origin.x))\" y=\"\(fmt(b.origin.y))\" width=\"\(fmt(b.size.width))\" height=\"\(fmt(b.size.height))\" "
                + "fill=\"\(b.isNode ? color : "none")\" fill-opacity=\"0.12\" stroke=\"\(color)\" stroke-width=\"\(fmt(1 / zoom))\"\(dash)/>"
            if let text = b.element as? TextNode { out += drawText(text, b) }
            out += "</g>\n"
        }
        // Labels last, above every box.
        for l in labels {
            let b = boxes[l.box]
            let color = Self.palette[b.depth % Self.palette.count]
            if l.inColumn {
                let r = b.rect
                let tx = Swift.min(Swift.max(l.rect.x, r.x), r.x + r.width), ty = Swift.min(Swift.max(l.rect.y + lineHeight / 2, r.y), r.y + r.height)
                out += "<line x1=\"\(fmt(l.rect.x))\" y1=\"\(fmt(l.rect.y + lineHeight / 2))\" x2=\"\(fmt(tx))\" y2=\"\(fmt(ty))\" "
                    + "stroke=\"\(color)\" stroke-opacity=\"0.5\" stroke-width=\"\(fmt(0.75 / zoom))\"/>"
            }
            out += "<g><title>\(escape(b.element.id ?? kinds[of: b.element].name.description))</title><text class=\"label\" x=\"\(fmt(l.rect.x + pad))\" y=\"\(fmt(l.rect.y + 0.95 * fontSize))\" fill=\"\(color)\" "
                + "font-family=\"monospace\" font-size=\"\(fmt(fontSize))\" stroke=\"#fff\" stroke-width=\"\(fmt(2.5 / zoom))\" "
                + "paint-order=\"stroke\">\(escape(l.text))</text></g>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// A text node's string in its font, wrapped at spaces to the lines the server counted
    /// (the line breaks are estimated here: the layout carries only the line count), clipped
    /// to the node's box.
    func drawText(_ node: TextNode, _ b: SVGRenderer.Box) -> String {
        let a = node.attributes, i = node.textContainerInset
        let font = a.spans.first?.font ?? a.font
        let size = font.size.isFinite && font.size > 0 ? font.size : 12
        let lineCount = Swift.max(1, b.layout.text?.lineCount ?? 1)
        let inner = SVGRect(x: b.origin.x + i.left, y: b.origin.y + i.top,
                         width: b.size.width - i.left - i.right, height: b.size.height - i.top - i.bottom)
        guard inner.width > 0, inner.height > 0, inner.width.isFinite, inner.height.isFinite else { return "" }
        let lines = wrap(a.string, width: inner.width, advance: 0.5 * size + (a.letterSpacing.isFinite ? a.letterSpacing : 0),
                         lineCount: lineCount, truncated: b.layout.text?.truncated ?? false, truncation: a.truncationText)
        let step = inner.height / Double(lineCount)
        let ascender = b.layout.ascender.isFinite && b.layout.ascender > 0 ? Swift.min(b.layout.ascender, step) : 0.8 * size
        let anchor: String, x: Double
        switch a.alignment {
        case .center: anchor = "middle"; x = inner.width / 2
        case .right: anchor = "end"; x = inner.width
        default: anchor = "start"; x = 0
        }
        var out = "<svg x=\"\(fmt(inner.x))\" y=\"\(fmt(inner.y))\" width=\"\(fmt(inner.width))\" height=\"\(fmt(inner.height))\" overflow=\"hidden\">"
        out += "<text class=\"text\" fill=\"#222\" font-family=\"\(escape(font.family)), sans-serif\" font-size=\"\(fmt(size))\" "
            + "font-weight=\"\(font.weight)\"\(font.italic ? " font-style=\"italic\"" : "") text-anchor=\"\(anchor)\">"
        for (n, line) in lines.enumerated() {
            out += "<tspan x=\"\(fmt(x))\" y=\"\(fmt(ascender + Double(n) * step))\">\(escape(line))</tspan>"
        }
        return out + "</text></svg>"
    }
}

/// `string` broken into at most `lineCount` lines at spaces (and at its newlines), each
/// at most `width` wide at `advance` per character; the last line ends in the truncation
/// text when the measurer truncated.
func wrap(_ string: String, width: Double, advance: Double, lineCount: Int, truncated: Bool, truncation: String) -> [String] {
    let room = (width / Swift.max(advance, 0.01)).rounded(.down)
    let perLine = room.isFinite ? Int(Swift.max(1, Swift.min(room, 1e6))) : 1
    var lines: [String] = []
    outer: for paragraph in string.split(separator: "\n", omittingEmptySubsequences: false) {
        var line = ""
        for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
            if line.isEmpty { line = String(word); continue }
            if line.count + 1 + word.count <= perLine || lineCount == 1 {
                line += " " + word
            } else {
                lines.append(line)
                if lines.count >= lineCount { break outer }
                line = String(word)
            }
        }
        lines.append(line)
        if lines.count >= lineCount { break }
    }
    if lines.count > lineCount { lines.removeLast(lines.count - lineCount) }
    if truncated, let last = lines.last {
        var kept = Array(last)
        let room = Swift.max(0, perLine - truncation.count)
        if kept.count > room { kept = Array(kept.prefix(room)) }
        lines[lines.count - 1] = String(kept).trimmingSpaces() + truncation
    }
    return lines
}

private extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

/// A number as it is: whole numbers as integers.
private func exact(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int(v)) }
    return String(v)
}

/// A number for the drawing: whole numbers as integers, others to 1/100.
private func fmt(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let r = (v * 100).rounded() / 100
    if r == r.rounded() && abs(r) < 1e15 { return String(Int(r)) }
    return String(r)
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
