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
/// With a `textLines` measurer (`options.includeText`), each text entry also carries its
/// lines (`textLines`, TextLinesWriting.swift), laid out again by it.
public struct ResponseEncoder {
    public let grid: PixelGrid
    public let includeSpecs: Bool
    public let output: ResponseOutput
    /// Lays text nodes' lines out for `options.includeText` (nil: no lines).
    public let textLines: TextMeasuring?

    public init(scale: Double, includeSpecs: Bool, output: ResponseOutput = .both, textLines: TextMeasuring? = nil) {
        self.grid = PixelGrid(scale: scale)
        self.includeSpecs = includeSpecs
        self.output = output
        self.textLines = textLines
    }

    /// A flattened entry before it is written.
    struct Frame { var x: Double, y: Double, width: Double, height: Double }

    public func encode(root: LayoutElement, layout: Layout) -> [UInt8] {
        let entries = layout.subtreeCount
        let tree = output.hasLayout, map = output.hasFrames
        var writer = EntryWriter(includeSpecs: includeSpecs, layoutTree: tree, framesMap: map, textLines: textLines,
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
        if map { writer.frames.append("}") }
        // The root's own notes come first (the walk noted those below it).
        if let text = layout.text, !text.missingCodePoints.isEmpty {
            writer.notes.insert((root, .missingGlyphs(text.missingCodePoints)), at: 0)
        }
        if layout.replacedInvalidSize { writer.notes.insert((root, .invalidSize), at: 0) }
        if !writer.notes.isEmpty {
            LayoutWarning.write(LayoutWarning.list(writer.notes, in: root), into: &writer.frames)
        }
        writer.frames.append("}")
        return writer.out.makeArray(followedBy: writer.frames)
    }
}

/// One item of a response's `warnings` array: something about the request that did not stop
/// the layout but that the client should know (`code`, the element's wire `path`, a
/// `message`, and for `missing_glyphs` the `codePoints` as "U+XXXX" strings). The array is
/// left out when there is none, so answers without warnings are as before.
struct LayoutWarning: Equatable {
    var code: String
    var path: String
    var message: String
    var codePoints: [UInt32] = []

    /// What the encoder's walk noticed about one element.
    enum Note {
        /// A text whose characters no font has (each measured as its font's .notdef box).
        case missingGlyphs([UInt32])
        /// A computed size that is not a valid size, laid out as 0×0.
        case invalidSize
        /// A position with a non-finite component, written as 0.
        case invalidPosition
    }

    /// At most this many warnings are listed; one more item says how many were left out.
    static let limit = 100

    /// The warnings of the notes, in walk order, with the elements' wire paths (found in one
    /// walk of the tree).
    static func list(_ notes: [(element: LayoutElement, note: Note)], in root: LayoutElement) -> [LayoutWarning] {
        let shown = notes.prefix(limit)
        let paths = ElementPath.of(Set(shown.map { ObjectIdentifier($0.element) }), in: root)
        var out = shown.map { item -> LayoutWarning in
            let path = paths[ObjectIdentifier(item.element)] ?? "root"
            switch item.note {
            case .missingGlyphs(let codePoints):
                let names = codePoints.map(LayoutWarning.name)
                let list = names.count > 8 ? names.prefix(8).joined(separator: ", ") + ", …" : names.joined(separator: ", ")
                return LayoutWarning(code: "missing_glyphs", path: path,
                                     message: "no available font has \(list): measured as missing-glyph boxes",
                                     codePoints: codePoints)
            case .invalidSize:
                return LayoutWarning(code: "invalid_size", path: path,
                                     message: "the computed size is not a valid size (a side NaN, negative, or 1e7 or more): "
                                         + "laid out as 0×0, as Texture does in release builds (a debug build asserts)")
            case .invalidPosition:
                return LayoutWarning(code: "invalid_position", path: path,
                                     message: "the computed position is not finite: written as 0, as Texture does in "
                                         + "release builds (a debug build asserts)")
            }
        }
        if notes.count > limit {
            out.append(LayoutWarning(code: "more_warnings", path: "root",
                                     message: "\(notes.count - limit) more warnings are not listed"))
        }
        return out
    }

    /// "U+00E9", "U+1F600": at least four hex digits, upper case.
    static func name(_ v: UInt32) -> String {
        let hex = String(v, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `,"warnings":[…]` after the members already written.
    static func write(_ warnings: [LayoutWarning], into sink: inout ByteSink) {
        sink.append(#","warnings":["#)
        for (k, w) in warnings.enumerated() {
            if k > 0 { sink.append(UInt8(ascii: ",")) }
            sink.append(#"{"code":"#)
            sink.string(w.code)
            sink.append(#","path":"#)
            sink.string(w.path)
            sink.append(#","message":"#)
            sink.string(w.message)
            if !w.codePoints.isEmpty {
                sink.append(#","codePoints":["#)
                for (j, v) in w.codePoints.enumerated() {
                    if j > 0 { sink.append(UInt8(ascii: ",")) }
                    sink.string(name(v))
                }
                sink.append(UInt8(ascii: "]"))
            }
            sink.append(UInt8(ascii: "}"))
        }
        sink.append(UInt8(ascii: "]"))
    }
}

/// Writes the entries the flattening walk shows: the layout tree into `out` and, during the
/// same walk and in the same order, the frames map into `frames`.
private struct EntryWriter: FlatLayoutVisitor {
    let includeSpecs: Bool
    /// Which of the two parts are written (`ResponseOutput`).
    let layoutTree: Bool
    let framesMap: Bool
    let textLines: TextMeasuring?
    var out: ByteSink
    var frames: ByteSink
    /// What to warn about, in walk order (empty for nearly every tree).
    var notes: [(element: LayoutElement, note: LayoutWarning.Note)] = []
    /// Held here rather than read from their lazy globals per element.
    let kinds = ElementKinds.shared
    let typeMembers = EntryWriter.typeMember

    /// By kind, `"type":"<name>","frame":` in a block of `typeMemberBlock` bytes (padded),
    /// and its length: an entry copies the whole block and keeps the length.
    static let typeMember: (blocks: UnsafePointer<UInt8>, lengths: UnsafePointer<Int>) = {
        let entries = ElementKinds.shared.entries
        let blocks = UnsafeMutablePointer<UInt8>.allocate(capacity: entries.count * typeMemberBlock)
        blocks.initialize(repeating: 0, count: entries.count * typeMemberBlock)
        let lengths = UnsafeMutablePointer<Int>.allocate(capacity: entries.count)
        for (k, kind) in entries.enumerated() {
            let text = Array(#""type":""#.utf8) + Array(UnsafeBufferPointer(start: kind.name.utf8Start, count: kind.name.utf8CodeUnitCount))
                + Array(#"","frame":"#.utf8)
            precondition(text.count <= typeMemberBlock, "a kind name longer than the type member's block")
            (blocks + k * typeMemberBlock).initialize(from: text, count: text.count)
            lengths[k] = text.count
        }
        return (UnsafePointer(blocks), UnsafePointer(lengths))
    }()
    static let typeMemberBlock = 32

    typealias Frame = ResponseEncoder.Frame

    /// The scope is the in-node origin of the entry whose children are being written: their
    /// frames are relative to it.
    mutating func enter(_ element: LayoutElement, _ layout: Layout, isNode: Bool, _ place: FlatPlacement, _ scope: Point) -> Point {
        let size = place.size
        if _slowPath(layout.replacedInvalidSize) { notes.append((element, .invalidSize)) }
        if _slowPath(place.replacedPosition) { notes.append((element, .invalidPosition)) }
        if isNode, let text = layout.text, _slowPath(!text.missingCodePoints.isEmpty) {
            notes.append((element, .missingGlyphs(text.missingCodePoints)))
        }
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
        w.frame(x: f.x, y: f.y, width: f.width, height: f.height)
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
            out.append(UInt8(ascii: ","))
        } else {
            out.append(UInt8(ascii: "{"))
        }
        // The kind's name is plain ASCII: nothing to escape.
        out.block(typeMembers.blocks + kind.rawValue &* Self.typeMemberBlock, of: Self.typeMemberBlock,
                  keeping: typeMembers.lengths[kind.rawValue])
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
            if let measurer = textLines, let node = element as? TextNode {
                TextLinesWriting.write(node, text, frameWidth: frame.width, measurer: measurer, into: &out)
            }
        }
        if let url = kind.url(of: element) {
            out.append(#","url":"#)
            out.string(url)
        }
        out.append(#","children":["#)
    }
}
