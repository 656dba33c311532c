// From the builder's elements to the generated request types (openapi.yaml), with the
// ids the builder derives from positions.

typealias Schemas = Components.Schemas

/// A layout request: a tree and the size range its root is laid out in.
public struct LayoutRequest: Sendable {
    public var root: Element
    public var minSize: Size
    /// nil on an axis: unbounded.
    public var maxWidth: Double?
    public var maxHeight: Double?
    public var scale: Double?
    public var includeSpecs: Bool
    /// Which parts of the answer the server encodes: both (default), only the layout tree,
    /// or only the frames (a part left out reads as empty in `LayoutResult`).
    public var output: Output
    /// Text entries carry their laid-out lines (`LayoutTree.textLines`).
    public var includeText: Bool

    public enum Output: String, Sendable { case both, layout, frames }

    public init(_ root: any LayoutElement, minSize: Size = Size(width: 0, height: 0), maxWidth: Double? = nil,
                maxHeight: Double? = nil, scale: Double? = nil, includeSpecs: Bool = false, output: Output = .both,
                includeText: Bool = false) {
        self.root = root.element
        self.minSize = minSize; self.maxWidth = maxWidth; self.maxHeight = maxHeight
        self.scale = scale; self.includeSpecs = includeSpecs; self.output = output; self.includeText = includeText
    }

    /// A width-constrained request, as a feed cell is laid out: min and max width equal.
    public static func width(_ width: Double, _ root: any LayoutElement, scale: Double? = nil) -> LayoutRequest {
        LayoutRequest(root, minSize: Size(width: width, height: 0), maxWidth: width, scale: scale)
    }

    /// The generated request value and the id of every element (by its path).
    public func wire() throws -> Components.Schemas.LayoutRequest {
        var ids = IdAssignment()
        ids.collect(root, path: "root")
        try ids.check()
        let range = Schemas.SizeRange(
            min: .init(width: minSize.width, height: minSize.height),
            max: .init(width: maxWidth, height: maxHeight))
        return Schemas.LayoutRequest(
            sizeRange: range, root: try ids.element(root, path: "root"), scale: scale,
            options: includeSpecs || output != .both || includeText
                ? .init(includeSpecs: includeSpecs ? true : nil, output: output == .both ? nil : .init(rawValue: output.rawValue),
                        includeText: includeText ? true : nil)
                : nil)
    }
}

/// A request the builder cannot make (the server would refuse it too; found before sending).
public struct ElementError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

/// Ids: given ones must be unique; missing ones are `@` + the element's path.
struct IdAssignment {
    private var given: [String: String] = [:]
    private var duplicate: ElementError?

    mutating func collect(_ e: Element, path: String) {
        if let id = e.id {
            if given[id] != nil, duplicate == nil {
                duplicate = ElementError(path: path + ".id", message: "duplicate id \"\(id)\"")
            }
            given[id] = path
        }
        forEachChild(e, path) { collect($0, path: $1) }
    }

    func check() throws { if let duplicate { throw duplicate } }

    func id(_ e: Element, _ path: String) throws -> String {
        if let id = e.id { return id }
        let made = "@" + path
        if let other = given[made] {
            throw ElementError(path: other + ".id", message: "id \"\(made)\" collides with a generated one")
        }
        return made
    }

    private func forEachChild(_ e: Element, _ path: String, _ body: (Element, String) -> Void) {
        switch e.kind {
        case .stack(_, let c), .absolute(_, let c), .staticLayout(let c), .wrapper(let c):
            for (i, x) in c.enumerated() { body(x, "\(path).children[\(i)]") }
        case .inset(_, let c), .center(_, _, let c), .relative(_, _, _, let c), .ratio(_, let c):
            body(c, path + ".child")
        case .overlay(let c, let o): body(c, path + ".child"); body(o, path + ".overlay")
        case .background(let c, let b): body(c, path + ".child"); body(b, path + ".background")
        case .corner(let c, let k, _, _, _): body(c, path + ".child"); body(k, path + ".corner")
        case .node(_, let layout, let yoga):
            if let layout { body(layout, path + ".layout") }
            for (i, x) in yoga.enumerated() { body(x, "\(path).yogaChildren[\(i)]") }
        case .spacer, .text, .image, .button: break
        }
    }

    func element(_ e: Element, path: String) throws -> Schemas.Element {
        let id = try id(e, path)
        func children(_ list: [Element]) throws -> [Schemas.Element] {
            try list.enumerated().map { try element($1, path: "\(path).children[\($0)]") }
        }
        func spec() throws -> Schemas.Style? {
            if e.style.hasYogaFields {
                throw ElementError(path: path + ".style", message: "Yoga fields are read on nodes only")
            }
            return StyleWire.spec(e.style)
        }
        switch e.kind {
        case .stack(let o, let c):
            var s = Schemas.StackSpec(_type: .stack, id: id, style: try spec())
            s.direction = .init(rawValue: o.direction.rawValue)
            if o.spacing != 0 { s.spacing = o.spacing }
            s.justifyContent = .init(rawValue: o.justifyContent.rawValue)
            s.alignItems = .init(rawValue: o.alignItems.rawValue)
            if o.flexWrap != .noWrap { s.flexWrap = .init(rawValue: o.flexWrap.rawValue) }
            if o.alignContent != .start { s.alignContent = .init(rawValue: o.alignContent.rawValue) }
            if o.lineSpacing != 0 { s.lineSpacing = o.lineSpacing }
            s.children = try children(c)
            return .stack(s)
        case .inset(let insets, let c):
            return .inset(.init(_type: .inset, id: id, style: try spec(), insets: StyleWire.insets(insets),
                                child: try element(c, path: path + ".child")))
        case .overlay(let c, let o):
            return .overlay(.init(_type: .overlay, id: id, style: try spec(), child: try element(c, path: path + ".child"),
                                  overlay: try element(o, path: path + ".overlay")))
        case .background(let c, let b):
            return .background(.init(_type: .background, id: id, style: try spec(),
                                     child: try element(c, path: path + ".child"),
                                     background: try element(b, path: path + ".background")))
        case .center(let centering, let sizing, let c):
            return .center(.init(_type: .center, id: id, style: try spec(),
                                 centeringOptions: .init(rawValue: centering.rawValue),
                                 sizingOptions: .init(rawValue: sizing.rawValue),
                                 child: try element(c, path: path + ".child")))
        case .relative(let h, let v, let sizing, let c):
            return .relative(.init(_type: .relative, id: id, style: try spec(),
                                   horizontalPosition: .init(rawValue: h.rawValue),
                                   verticalPosition: .init(rawValue: v.rawValue),
                                   sizingOption: .init(rawValue: sizing.rawValue),
                                   child: try element(c, path: path + ".child")))
        case .ratio(let r, let c):
            return .ratio(.init(_type: .ratio, id: id, style: try spec(), ratio: r, child: try element(c, path: path + ".child")))
        case .absolute(let sizing, let c):
            return .absolute(.init(_type: .absolute, id: id, style: try spec(), sizing: .init(rawValue: sizing.rawValue),
                                   children: try children(c)))
        case .staticLayout(let c):
            return ._static(.init(_type: ._static, id: id, style: try spec(), children: try children(c)))
        case .corner(let c, let k, let location, let offset, let wraps):
            return .corner(.init(_type: .corner, id: id, style: try spec(), child: try element(c, path: path + ".child"),
                                 corner: try element(k, path: path + ".corner"),
                                 cornerLocation: .init(rawValue: location.rawValue),
                                 offset: offset == Point(x: 0, y: 0) ? nil : .init(x: offset.x, y: offset.y),
                                 wrapsCorner: wraps ? true : nil))
        case .wrapper(let c):
            return .wrapper(.init(_type: .wrapper, id: id, style: try spec(), children: try children(c)))
        case .spacer:
            return .spacer(.init(_type: .spacer, id: id, style: try spec()))
        default:
            return try nodeElement(e, id: id, path: path).asElement
        }
    }

    func nodeElement(_ e: Element, id: String, path: String) throws -> Schemas.NodeElement {
        let style = StyleWire.node(e.style)
        switch e.kind {
        case .node(let size, let layout, let yoga):
            var n = Schemas.Node(_type: .node, id: id, style: style)
            n.intrinsicSize = size.map(StyleWire.size)
            if let layout { n.layout = try element(layout, path: path + ".layout") }
            if !yoga.isEmpty {
                n.yogaChildren = try yoga.enumerated().map { i, child in
                    let childPath = "\(path).yogaChildren[\(i)]"
                    guard child.isNode else {
                        throw ElementError(path: childPath, message: "a Yoga child is a node, not a layout spec")
                    }
                    return try nodeElement(child, id: try self.id(child, childPath), path: childPath)
                }
            }
            return .node(n)
        case .text(let c):
            var t = Schemas.TextNode(_type: .text, id: id, style: style)
            t.text = c.text
            t.spans = c.spans?.map(StyleWire.span)
            t.font = c.font.map(StyleWire.font)
            t.lineHeight = c.lineHeight; t.lineSpacing = c.lineSpacing; t.letterSpacing = c.letterSpacing
            t.alignment = c.alignment.flatMap { .init(rawValue: $0.rawValue) }
            t.maximumNumberOfLines = c.maximumNumberOfLines
            t.truncationMode = c.truncationMode.flatMap { .init(rawValue: $0.rawValue) }
            t.truncationText = c.truncationText
            t.textContainerInset = c.textContainerInset.map(StyleWire.finite)
            return .text(t)
        case .image(let size, let url):
            return .image(.init(_type: .image, id: id, style: style, intrinsicSize: size.map(StyleWire.size), url: url))
        case .button(let c):
            var b = Schemas.ButtonNode(_type: .button, id: id, style: style)
            if let t = c.title {
                b.title = .init(text: t.text, spans: t.spans?.map(StyleWire.span), font: t.font.map(StyleWire.font),
                                lineHeight: t.lineHeight, lineSpacing: t.lineSpacing, letterSpacing: t.letterSpacing,
                                alignment: t.alignment.flatMap { .init(rawValue: $0.rawValue) },
                                maximumNumberOfLines: t.maximumNumberOfLines,
                                truncationMode: t.truncationMode.flatMap { .init(rawValue: $0.rawValue) },
                                truncationText: t.truncationText,
                                textContainerInset: t.textContainerInset.map(StyleWire.finite))
            }
            if c.imageSize != nil || c.imageURL != nil {
                b.image = .init(intrinsicSize: c.imageSize.map(StyleWire.size), url: c.imageURL)
            }
            b.contentSpacing = c.contentSpacing
            b.laysOutHorizontally = c.laysOutHorizontally
            b.contentEdgeInsets = c.contentEdgeInsets.map(StyleWire.finite)
            b.imageAlignment = c.imageAlignment.flatMap { .init(rawValue: $0.rawValue) }
            return .button(b)
        default:
            throw ElementError(path: path, message: "not a node")
        }
    }
}

extension Schemas.NodeElement {
    var asElement: Schemas.Element {
        switch self {
        case .node(let n): return .node(n)
        case .text(let t): return .text(t)
        case .image(let i): return .image(i)
        case .button(let b): return .button(b)
        }
    }
}
