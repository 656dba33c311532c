import LoomLayout

/// Writes a `LayoutResponse`: the root size, the layout tree flattened as Texture flattens
/// it (nodes only, frames relative to the parent node, positions pixel-ceiled from the
/// accumulated position inside the enclosing node), or with `includeSpecs` the specs kept
/// as entries of their own; and the `frames` map of every id in root coordinates.
public struct ResponseEncoder {
    public let grid: PixelGrid
    public let includeSpecs: Bool

    public init(scale: Double, includeSpecs: Bool) {
        self.grid = PixelGrid(scale: scale)
        self.includeSpecs = includeSpecs
    }

    /// A flattened entry before it is written.
    struct Frame { var x: Double, y: Double, width: Double, height: Double }

    public func encode(root: LayoutElement, layout: Layout) -> [UInt8] {
        var w = JSONWriter(capacity: 256 + layout.subtreeCount * 96)
        var frames: [(String, Frame)] = []
        w.beginObject()
        w.key("size"); w.beginObject()
        w.key("width"); w.number(layout.size.width)
        w.key("height"); w.number(layout.size.height)
        w.endObject()
        w.key("layout")
        let rootFrame = Frame(x: 0, y: 0, width: layout.size.width, height: layout.size.height)
        if let id = root.id { frames.append((id, rootFrame)) }
        writeEntry(&w, &frames, element: root, layout: layout, frame: rootFrame, absolute: .zero)
        w.key("frames"); w.beginObject()
        for (id, f) in frames {
            w.key(id)
            writeFrame(&w, f)
        }
        w.endObject()
        w.endObject()
        return w.bytes
    }

    private func writeFrame(_ w: inout JSONWriter, _ f: Frame) {
        w.beginObject()
        w.key("x"); w.number(f.x)
        w.key("y"); w.number(f.y)
        w.key("width"); w.number(f.width)
        w.key("height"); w.number(f.height)
        w.endObject()
    }

    /// Texture replaces a non-finite frame component by 0 (ASLayout.frame).
    @inline(__always) private func finite(_ v: Double) -> Double { v.isFinite ? v : 0 }

    /// One entry (a node, or a spec root / a spec with includeSpecs) and its children.
    /// `absolute` is the entry's origin in root coordinates.
    private func writeEntry(_ w: inout JSONWriter, _ frames: inout [(String, Frame)], element: LayoutElement,
                            layout: Layout, frame: Frame, absolute: Point) {
        w.beginObject()
        if let id = element.id { w.key("id"); w.string(id) }
        w.key("type"); w.string(element.typeName)
        w.key("frame"); writeFrame(&w, frame)
        if let text = layout.text {
            w.key("lines"); w.int(text.lineCount)
            w.key("truncated"); w.bool(text.truncated)
        }
        if let image = element as? ImageNode, let url = image.url { w.key("url"); w.string(url) }
        w.key("children"); w.beginArray()
        // A node's children are what its spec placed, in its own coordinate space; a spec
        // entry (root or includeSpecs) continues the enclosing node's accumulation.
        walk(&w, &frames, parent: element, layout: layout, accumulated: .zero, entryOrigin: .zero, nodeAbsolute: absolute)
        w.endArray()
        w.endObject()
    }

    /// Walk the sublayouts of `parent`, accumulating raw positions within the enclosing node.
    /// `entryOrigin` is the ceiled in-node position of the entry whose children we are writing
    /// (so child frames are relative to it); `nodeAbsolute` is the enclosing node's root origin.
    private func walk(_ w: inout JSONWriter, _ frames: inout [(String, Frame)], parent: LayoutElement, layout: Layout,
                      accumulated: Point, entryOrigin: Point, nodeAbsolute: Point) {
        let elements = parent.layoutChildren
        for sub in layout.sublayouts {
            let child = elements[sub.slot]
            let raw = Point(x: accumulated.x + sub.position.x, y: accumulated.y + sub.position.y)
            let ceiled = Point(x: finite(grid.ceil(raw.x)), y: finite(grid.ceil(raw.y)))
            let size = sub.layout.size
            if child.isDisplayNode {
                let absolute = Point(x: nodeAbsolute.x + ceiled.x, y: nodeAbsolute.y + ceiled.y)
                if let id = child.id { frames.append((id, Frame(x: absolute.x, y: absolute.y, width: size.width, height: size.height))) }
                let frame = Frame(x: ceiled.x - entryOrigin.x, y: ceiled.y - entryOrigin.y, width: size.width, height: size.height)
                writeEntry(&w, &frames, element: child, layout: sub.layout, frame: frame, absolute: absolute)
            } else {
                if let id = child.id {
                    frames.append((id, Frame(x: nodeAbsolute.x + ceiled.x, y: nodeAbsolute.y + ceiled.y,
                                             width: size.width, height: size.height)))
                }
                if includeSpecs {
                    w.beginObject()
                    if let id = child.id { w.key("id"); w.string(id) }
                    w.key("type"); w.string(child.typeName)
                    w.key("frame")
                    writeFrame(&w, Frame(x: ceiled.x - entryOrigin.x, y: ceiled.y - entryOrigin.y, width: size.width, height: size.height))
                    w.key("children"); w.beginArray()
                    walk(&w, &frames, parent: child, layout: sub.layout, accumulated: raw, entryOrigin: ceiled, nodeAbsolute: nodeAbsolute)
                    w.endArray()
                    w.endObject()
                } else {
                    walk(&w, &frames, parent: child, layout: sub.layout, accumulated: raw, entryOrigin: entryOrigin, nodeAbsolute: nodeAbsolute)
                }
            }
        }
    }
}
