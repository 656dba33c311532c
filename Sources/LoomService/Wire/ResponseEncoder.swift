import LoomLayout

/// Writes a `LayoutResponse`: the root size, the layout tree flattened as Texture flattens
/// it (nodes only, frames relative to the parent node, positions pixel-ceiled from the
/// accumulated position inside the enclosing node), or with `includeSpecs` the specs kept
/// as entries of their own; and the `frames` map of every id in root coordinates.
///
/// The text is what `JSONWriter` would write for the same calls (no spaces, keys in the
/// order below); it is written straight into raw byte buffers: the layout tree into one,
/// the frames map (filled during the same walk, in the same order) into another, joined at
/// the end.
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
        let entries = layout.subtreeCount
        var out = ByteSink(capacity: 128 + entries * 128)
        var frames = ByteSink(capacity: 32 + entries * 80)
        defer {
            out.release()
            frames.release()
        }
        out.append(#"{"size":{"width":"#)
        out.number(layout.size.width)
        out.append(#","height":"#)
        out.number(layout.size.height)
        out.append(#"},"layout":"#)
        frames.append(#","frames":{"#)
        let rootFrame = Frame(x: 0, y: 0, width: layout.size.width, height: layout.size.height)
        if let id = root.id { addFrame(&frames, id, rootFrame) }
        writeEntry(&out, &frames, element: root, layout: layout, frame: rootFrame, absolute: .zero)
        frames.append("}}")
        return out.makeArray(followedBy: frames)
    }

    /// `"id":{frame}` in the frames map (a comma first unless it is the first member).
    @inline(__always) private func addFrame(_ frames: inout ByteSink, _ id: String, _ f: Frame) {
        if frames.last != UInt8(ascii: "{") { frames.append(UInt8(ascii: ",")) }
        frames.string(id)
        frames.append(UInt8(ascii: ":"))
        writeFrame(&frames, f)
    }

    @inline(__always) private func writeFrame(_ w: inout ByteSink, _ f: Frame) {
        w.append(#"{"x":"#)
        w.number(f.x)
        w.append(#","y":"#)
        w.number(f.y)
        w.append(#","width":"#)
        w.number(f.width)
        w.append(#","height":"#)
        w.number(f.height)
        w.append(UInt8(ascii: "}"))
    }

    /// A comma before an element of a children array unless it is the first.
    @inline(__always) private func separate(_ w: inout ByteSink) {
        if w.last != UInt8(ascii: "[") { w.append(UInt8(ascii: ",")) }
    }

    /// `grid.ceil(v)`, with the grid's epsilon as a literal rather than its lazy global.
    @inline(__always) private func ceilPixel(_ v: Double) -> Double {
        ((v - 0x1p-23) * grid.scale).rounded(.up) / grid.scale // 0x1p-23: Double(Float.ulpOfOne)
    }

    /// Texture replaces a non-finite frame component by 0 (ASLayout.frame).
    @inline(__always) private func finite(_ v: Double) -> Double { v.isFinite ? v : 0 }

    /// `{"id":…,"type":…,"frame":…` (the id only when there is one).
    @inline(__always) private func openEntry(_ w: inout ByteSink, id: String?, type: String, frame: Frame) {
        if let id {
            w.append(#"{"id":"#)
            w.string(id)
            w.append(#","type":"#)
        } else {
            w.append(#"{"type":"#)
        }
        w.string(type)
        w.append(#","frame":"#)
        writeFrame(&w, frame)
    }

    /// One entry (a node, or a spec root / a spec with includeSpecs) and its children.
    /// `absolute` is the entry's origin in root coordinates.
    private func writeEntry(_ w: inout ByteSink, _ frames: inout ByteSink, element: LayoutElement,
                            layout: Layout, frame: Frame, absolute: Point) {
        openEntry(&w, id: element.id, type: element.typeName, frame: frame)
        if let text = layout.text {
            w.append(#","lines":"#)
            w.int(text.lineCount)
            w.append(#","truncated":"#)
            w.bool(text.truncated)
        }
        if let image = element as? ImageNode, let url = image.url {
            w.append(#","url":"#)
            w.string(url)
        }
        w.append(#","children":["#)
        // A node's children are what its spec placed, in its own coordinate space; a spec
        // entry (root or includeSpecs) continues the enclosing node's accumulation.
        walk(&w, &frames, parent: element, layout: layout, accumulated: .zero, entryOrigin: .zero, nodeAbsolute: absolute)
        w.append("]}")
    }

    /// Walk the sublayouts of `parent`, accumulating raw positions within the enclosing node.
    /// `entryOrigin` is the ceiled in-node position of the entry whose children we are writing
    /// (so child frames are relative to it); `nodeAbsolute` is the enclosing node's root origin.
    private func walk(_ w: inout ByteSink, _ frames: inout ByteSink, parent: LayoutElement, layout: Layout,
                      accumulated: Point, entryOrigin: Point, nodeAbsolute: Point) {
        let elements = parent.layoutChildren
        let subs = layout.sublayouts
        subs.withUnsafeBufferPointer { subs in
            for k in subs.indices {
                // The tree outlives the call and the arrays hold the child and its layout:
                // borrow them rather than retaining and releasing each (a write to each
                // object's cache line).
                Unmanaged.passUnretained(elements[subs[k].slot])._withUnsafeGuaranteedRef { child in
                    Unmanaged.passUnretained(subs[k].layout)._withUnsafeGuaranteedRef { subLayout in
                        visit(&w, &frames, child: child, subLayout: subLayout, position: subs[k].position,
                              accumulated: accumulated, entryOrigin: entryOrigin, nodeAbsolute: nodeAbsolute)
                    }
                }
            }
        }
    }

    @inline(__always)
    private func visit(_ w: inout ByteSink, _ frames: inout ByteSink, child: LayoutElement, subLayout: Layout, position: Point,
                       accumulated: Point, entryOrigin: Point, nodeAbsolute: Point) {
            let raw = Point(x: accumulated.x + position.x, y: accumulated.y + position.y)
            let ceiled = Point(x: finite(ceilPixel(raw.x)), y: finite(ceilPixel(raw.y)))
            let size = subLayout.size
            if child.isDisplayNode {
                let absolute = Point(x: nodeAbsolute.x + ceiled.x, y: nodeAbsolute.y + ceiled.y)
                if let id = child.id { addFrame(&frames, id, Frame(x: absolute.x, y: absolute.y, width: size.width, height: size.height)) }
                let frame = Frame(x: ceiled.x - entryOrigin.x, y: ceiled.y - entryOrigin.y, width: size.width, height: size.height)
                separate(&w)
                writeEntry(&w, &frames, element: child, layout: subLayout, frame: frame, absolute: absolute)
            } else {
                let id = child.id
                if let id {
                    addFrame(&frames, id, Frame(x: nodeAbsolute.x + ceiled.x, y: nodeAbsolute.y + ceiled.y,
                                                width: size.width, height: size.height))
                }
                if includeSpecs {
                    separate(&w)
                    openEntry(&w, id: id, type: child.typeName,
                              frame: Frame(x: ceiled.x - entryOrigin.x, y: ceiled.y - entryOrigin.y, width: size.width, height: size.height))
                    w.append(#","children":["#)
                    walk(&w, &frames, parent: child, layout: subLayout, accumulated: raw, entryOrigin: ceiled, nodeAbsolute: nodeAbsolute)
                    w.append("]}")
                } else {
                    walk(&w, &frames, parent: child, layout: subLayout, accumulated: raw, entryOrigin: entryOrigin, nodeAbsolute: nodeAbsolute)
                }
            }
    }
}
