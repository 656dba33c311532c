import LoomLayout

/// Writes a `LayoutResponse`: the root size, the layout tree flattened as Texture flattens
/// it (nodes only, frames relative to the parent node, positions pixel-ceiled from the
/// accumulated position inside the enclosing node), or with `includeSpecs` the specs kept
/// as entries of their own; and the `frames` map of every id in root coordinates.
///
/// The text is what `JSONWriter` would write for the same calls (no spaces, keys in the
/// order below); it is written straight into raw byte buffers: the layout tree into one,
/// the frames map (filled during the same walk, in the same order) into another, joined at
/// the end. `output` leaves out the layout tree or the frames map (`options.output`).
public struct ResponseEncoder {
    public let grid: PixelGrid
    public let includeSpecs: Bool
    public let output: ResponseOutput

    public init(scale: Double, includeSpecs: Bool, output: ResponseOutput = .both) {
        self.grid = PixelGrid(scale: scale)
        self.includeSpecs = includeSpecs
        self.output = output
    }

    /// A flattened entry before it is written.
    struct Frame { var x: Double, y: Double, width: Double, height: Double }

    public func encode(root: LayoutElement, layout: Layout) -> [UInt8] {
        let entries = layout.subtreeCount
        let tree = output.hasLayout, map = output.hasFrames
        var writer = EntryWriter(includeSpecs: includeSpecs, layoutTree: tree, framesMap: map,
                                 out: ByteSink(capacity: 128 + (tree ? entries * 128 : 0)),
                                 frames: ByteSink(capacity: 32 + (map ? entries * 80 : 0)))
        defer {
            writer.out.release()
            writer.frames.release()
        }
        writer.out.append(#"{"size":{"width":"#)
        writer.out.number(layout.size.width)
        writer.out.append(#","height":"#)
        writer.out.number(layout.size.height)
        writer.out.append(tree ? #"},"layout":"# : "}")
        if map { writer.frames.append(#","frames":{"#) }
        let rootFrame = Frame(x: 0, y: 0, width: layout.size.width, height: layout.size.height)
        if map, let id = root.id { writer.addFrame(id, rootFrame) }
        if tree { writer.openNodeEntry(root, layout, rootFrame) }
        // The root's children are placed in its space, whether it is a node or a spec.
        LayoutFlattening(grid: grid).walk(&writer, below: root, layout: layout, scope: .zero)
        if tree { writer.out.append("]}") }
        writer.frames.append(map ? "}}" : "}")
        return writer.out.makeArray(followedBy: writer.frames)
    }
}

/// Writes the entries the flattening walk shows: the layout tree into `out` and, during the
/// same walk and in the same order, the frames map into `frames`.
private struct EntryWriter: FlatLayoutVisitor {
    let includeSpecs: Bool
    /// Which of the two parts are written (`ResponseOutput`).
    let layoutTree: Bool
    let framesMap: Bool
    var out: ByteSink
    var frames: ByteSink
    /// Held here rather than read from its lazy global per element.
    let kinds = ElementKinds.shared

    typealias Frame = ResponseEncoder.Frame

    /// The scope is the in-node origin of the entry whose children are being written: their
    /// frames are relative to it.
    mutating func enter(_ element: LayoutElement, _ layout: Layout, isNode: Bool, _ place: FlatPlacement, _ scope: Point) -> Point {
        let size = place.size
        if framesMap, let id = element.id {
            addFrame(id, Frame(x: place.origin.x, y: place.origin.y, width: size.width, height: size.height))
        }
        guard layoutTree && (isNode || includeSpecs) else { return scope }
        let frame = Frame(x: place.inNode.x - scope.x, y: place.inNode.y - scope.y, width: size.width, height: size.height)
        separate()
        if isNode {
            openNodeEntry(element, layout, frame)
            return Point(x: 0, y: 0)  // not `.zero`: a global, checked at every read
        }
        openEntry(element, kinds.kind(of: element), frame)
        out.append(#","children":["#)
        return place.inNode
    }

    mutating func leave(_ element: LayoutElement, isNode: Bool, _ scope: Point) {
        if layoutTree && (isNode || includeSpecs) { out.append("]}") }
    }

    /// `"id":{frame}` in the frames map (a comma first unless it is the first member).
    @inline(__always) mutating func addFrame(_ id: String, _ f: Frame) {
        if frames.last != UInt8(ascii: "{") { frames.append(UInt8(ascii: ",")) }
        frames.string(id)
        frames.append(UInt8(ascii: ":"))
        Self.write(&frames, f)
    }

    @inline(__always) private static func write(_ w: inout ByteSink, _ f: Frame) {
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
    @inline(__always) private mutating func separate() {
        if out.last != UInt8(ascii: "[") { out.append(UInt8(ascii: ",")) }
    }

    /// `{"id":…,"type":…,"frame":…` (the id only when there is one).
    @inline(__always) private mutating func openEntry(_ element: LayoutElement, _ kind: ElementKind.ID, _ frame: Frame) {
        if let id = element.id {
            out.append(#"{"id":"#)
            out.string(id)
            out.append(#","type":""#)
        } else {
            out.append(#"{"type":""#)
        }
        let name = kinds.entries[kind.rawValue].name  // a plain ASCII name: nothing to escape
        out.append(name.utf8Start, count: name.utf8CodeUnitCount)
        out.append(#"","frame":"#)
        Self.write(&out, frame)
    }

    /// A node's entry (or the root's) up to its children: the entry, its text's line count
    /// and truncation, its image URL.
    mutating func openNodeEntry(_ element: LayoutElement, _ layout: Layout, _ frame: Frame) {
        let kind = kinds.kind(of: element)
        openEntry(element, kind, frame)
        if let text = layout.text {
            out.append(#","lines":"#)
            out.int(text.lineCount)
            out.append(#","truncated":"#)
            out.bool(text.truncated)
        }
        if let url = kind.url(of: element) {
            out.append(#","url":"#)
            out.string(url)
        }
        out.append(#","children":["#)
    }
}
