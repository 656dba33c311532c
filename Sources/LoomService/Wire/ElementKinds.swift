import LoomLayout

/// One element kind of the wire format: its `type` name, the engine class it builds, the
/// members it accepts, and where its children are written. How it is built and how its
/// canonical record is written are its cases of `build(_:_:seen:)` and `record(_:_:)` below.
///
/// Adding a kind is one entry in `ElementKinds.all`, its case of `ElementKind.ID`, and its
/// cases of the two switches below (the compiler asks for both), all in this file, plus the
/// engine's class and `openapi.yaml`; a member no kind had before is also a case of
/// `ElementField`. Only plain values: the table is copied and read without reference counting.
struct ElementKind {
    /// Each kind, in the table's order (`rawValue` is its index in `ElementKinds.all`).
    enum ID: Int, CaseIterable {
        case stack, inset, overlay, background, center, relative, ratio, absolute, `static`, corner, wrapper, spacer
        case node, image, text, button
    }
    let id: ID
    /// The `type` on the wire, in the response and in the SVG.
    let name: StaticString
    /// The engine class of its elements: an element's kind is found by its class.
    let elementClass: AnyClass
    /// The members it accepts besides `type`, `id` and `style`, as `ElementField` bits.
    let fields: UInt64
    /// Where its `layoutChildren` are written on the wire (for error paths).
    let children: ChildMembers

    init(_ id: ID, _ name: StaticString, _ elementClass: AnyClass, fields: [ElementField], children: ChildMembers) {
        self.id = id
        self.name = name
        self.elementClass = elementClass
        self.fields = ElementField.mask(fields)
        self.children = children
    }

    /// The members that hold an element's `layoutChildren`.
    enum ChildMembers {
        /// None (a leaf).
        case none
        /// `children[k]`.
        case children
        /// `child`.
        case child
        /// `child`, then the member named (overlay, background, corner).
        case childAnd(StaticString)
        /// `layout` (a node's own spec).
        case layout
        /// `layout`, or `yogaChildren[k]` for a Yoga container (a `node`).
        case layoutOrYogaChildren
        /// Made by the element itself (a button's stack): named by the element's path.
        case inside
    }
}

extension ElementKinds {
    /// Every kind.
    static let all: [ElementKind] = [
        ElementKind(.stack, "stack", StackLayoutSpec.self,
                    fields: [.direction, .spacing, .justifyContent, .alignItems, .flexWrap, .alignContent, .lineSpacing,
                             .horizontalAlignment, .verticalAlignment, .concurrent, .children],
                    children: .children),
        ElementKind(.inset, "inset", InsetLayoutSpec.self, fields: [.insets, .child], children: .child),
        ElementKind(.overlay, "overlay", OverlayLayoutSpec.self, fields: [.child, .overlay], children: .childAnd("overlay")),
        ElementKind(.background, "background", BackgroundLayoutSpec.self, fields: [.child, .background],
                    children: .childAnd("background")),
        ElementKind(.center, "center", CenterLayoutSpec.self, fields: [.centeringOptions, .sizingOptions, .child], children: .child),
        ElementKind(.relative, "relative", RelativeLayoutSpec.self,
                    fields: [.horizontalPosition, .verticalPosition, .sizingOption, .child], children: .child),
        ElementKind(.ratio, "ratio", RatioLayoutSpec.self, fields: [.ratio, .child], children: .child),
        ElementKind(.absolute, "absolute", AbsoluteLayoutSpec.self, fields: [.sizing, .children], children: .children),
        // Texture 1.x's name for an absolute spec that sizes to fit.
        ElementKind(.static, "static", StaticLayoutSpec.self, fields: [.children], children: .children),
        ElementKind(.corner, "corner", CornerLayoutSpec.self, fields: [.child, .corner, .cornerLocation, .offset, .wrapsCorner],
                    children: .childAnd("corner")),
        ElementKind(.wrapper, "wrapper", WrapperLayoutSpec.self, fields: [.children], children: .children),
        ElementKind(.spacer, "spacer", LayoutSpec.self, fields: [], children: .none),
        ElementKind(.node, "node", DisplayNode.self, fields: [.layout, .intrinsicSize, .yogaChildren], children: .layoutOrYogaChildren),
        ElementKind(.image, "image", ImageNode.self, fields: [.intrinsicSize, .url], children: .layout),
        ElementKind(.text, "text", TextNode.self, fields: ElementField.textFields, children: .layout),
        ElementKind(.button, "button", ButtonNode.self,
                    fields: [.title, .image, .contentSpacing, .laysOutHorizontally, .contentHorizontalAlignment,
                             .contentVerticalAlignment, .contentEdgeInsets, .imageAlignment],
                    children: .inside),
    ]
}

extension DecodeState {
    /// The element of kind `kind` from the members read (the members are checked against
    /// the kind's after this, so a missing member is reported before a misplaced one).
    /// A switch rather than a function per entry: it is called once per element.
    mutating func build(_ kind: ElementKind.ID, _ fields: inout ElementFields, seen: UInt64) throws -> LayoutElement {
        switch kind {
        case .stack: return try stack(&fields)
        case .inset: return InsetLayoutSpec(insets: fields.insets, child: try required(.child, fields.child), style: fields.style)
        case .overlay:
            let child = try required(.child, fields.child)
            return OverlayLayoutSpec(child: child, overlay: try required(.overlay, fields.second), style: fields.style)
        case .background:
            let child = try required(.child, fields.child)
            return BackgroundLayoutSpec(child: child, background: try required(.background, fields.second), style: fields.style)
        case .center:
            return CenterLayoutSpec(centeringOptions: fields.centeringOptions, sizingOptions: fields.sizingOptions,
                                    child: try required(.child, fields.child), style: fields.style)
        case .relative:
            return RelativeLayoutSpec(horizontalPosition: fields.horizontalPosition, verticalPosition: fields.verticalPosition,
                                      sizingOption: fields.sizingOption, child: try required(.child, fields.child), style: fields.style)
        case .ratio:
            guard seen & ElementField.ratio.bit != 0 else {
                throw reader.fail("a ratio spec needs 'ratio' (height ÷ width, > 0)", at: "ratio")
            }
            return RatioLayoutSpec(ratio: fields.ratio, child: try required(.child, fields.child), style: fields.style)
        case .absolute: return AbsoluteLayoutSpec(sizing: fields.sizing, children: fields.children ?? [], style: fields.style)
        case .static: return StaticLayoutSpec(children: fields.children ?? [], style: fields.style)
        case .corner:
            let child = try required(.child, fields.child)
            return CornerLayoutSpec(child: child, corner: try required(.corner, fields.second), cornerLocation: fields.cornerLocation,
                                    offset: fields.offset, wrapsCorner: fields.wrapsCorner, style: fields.style)
        case .wrapper: return WrapperLayoutSpec(children: fields.children ?? [], style: fields.style)
        case .spacer: return LayoutSpec(style: fields.style)
        case .node:
            if fields.layout != nil && fields.intrinsicSize != nil {
                throw reader.fail("a node has either 'layout' or 'intrinsicSize', not both", at: "intrinsicSize")
            }
            let node = DisplayNode(layoutSpec: fields.layout, intrinsicSize: fields.intrinsicSize, style: fields.style)
            if let yogaChildren = fields.extras?.yogaChildren, !yogaChildren.isEmpty {
                try yogaContainer(node, yogaChildren, &fields)
            }
            return node
        case .image: return ImageNode(intrinsicSize: fields.intrinsicSize, url: fields.extras?.url, style: fields.style)
        case .text: return try textNode(&fields, seen: seen)
        case .button: return DecodeState.button(fields.extras?.button ?? DecodeState.ButtonFields(), fields.style)
        }
    }
}

extension CanonicalBytes {
    /// The canonical record of `e`, of kind `kind`: a tag byte, the style, the fields that
    /// can change a frame. Ids and URLs are hashed apart (`ElementKind.ID.url`): they never
    /// change a frame.
    mutating func record(_ kind: ElementKind.ID, _ e: LayoutElement) {
        switch kind {
        case .node:
            let n = unsafeDowncast(e, to: DisplayNode.self)
            // The most common record, written at one pointer: tag, style, size, and what its
            // children are (0 none, 1 its spec, 2 its Yoga children).
            fixed(1 + styleRoom + CanonicalBytes.maxOptionalSizeBytes + 1) { p in
                CanonicalBytes.putByte(1, &p)
                CanonicalBytes.style(e.style, &p)
                CanonicalBytes.putOptionalSize(n.intrinsicSize, &p)
                // Without a spec, a node's laid-out children are its Yoga children.
                CanonicalBytes.putByte(n.layoutSpec != nil ? 1 : n.layoutChildren.isEmpty ? 0 : 2, &p)
            }
        case .stack:
            let s = unsafeDowncast(e, to: StackLayoutSpec.self)
            byte(2); style(e.style)
            name(s.direction.rawValue); double(s.spacing); name(s.justifyContent.rawValue)
            name(s.alignItems.rawValue); name(s.flexWrap.rawValue); name(s.alignContent.rawValue)
            double(s.lineSpacing)
            // `concurrent` and the alignment sugar never change a frame (the effective
            // justify/alignItems above already include the alignments).
        case .inset: byte(3); style(e.style); insets(unsafeDowncast(e, to: InsetLayoutSpec.self).insets)
        case .image: byte(4); style(e.style); optionalSize(unsafeDowncast(e, to: ImageNode.self).intrinsicSize)
        case .text:
            let n = unsafeDowncast(e, to: TextNode.self)
            byte(5); style(e.style); text(n.attributes); insets(n.textContainerInset)
        case .overlay: byte(6); style(e.style)
        case .background: byte(7); style(e.style)
        case .ratio: byte(8); style(e.style); double(unsafeDowncast(e, to: RatioLayoutSpec.self).ratio)
        case .center:
            let s = unsafeDowncast(e, to: CenterLayoutSpec.self)
            byte(9); style(e.style); name(s.centeringOptions.rawValue); name(s.sizingOptions.rawValue)
        case .relative:
            let s = unsafeDowncast(e, to: RelativeLayoutSpec.self)
            byte(10); style(e.style)
            name(s.horizontalPosition.rawValue); name(s.verticalPosition.rawValue); u64(UInt64(s.sizingOption.rawValue))
        // `absolute` and `static` are each answered with their own name, so each is its own kind.
        case .absolute: absolute(e, kind: "absolute")
        case .static: absolute(e, kind: "static")
        case .corner:
            let s = unsafeDowncast(e, to: CornerLayoutSpec.self)
            byte(12); style(e.style)
            name(s.cornerLocation.rawValue); double(s.offset.x); double(s.offset.y); byte(s.wrapsCorner ? 1 : 0)
        case .button:
            let n = unsafeDowncast(e, to: ButtonNode.self)
            byte(13); style(e.style)
            double(n.contentSpacing); byte(n.laysOutHorizontally ? 1 : 0)
            name(n.contentHorizontalAlignment.rawValue); name(n.contentVerticalAlignment.rawValue)
            insets(n.contentEdgeInsets); name(n.imageAlignment.rawValue)
            byte(n.titleNode != nil ? 1 : 0); byte(n.imageNode != nil ? 1 : 0)
        // Specs without fields of their own.
        case .wrapper: fieldless(e, kind: "wrapper")
        case .spacer: fieldless(e, kind: "spacer")
        }
    }

    /// Before a node element's record: its Yoga style fields that differ from the defaults,
    /// as a record of their own (nothing without any: keys of trees without Yoga stay).
    @inline(never) mutating func yogaStyle(of e: LayoutElement) {
        unsafeDowncast(e, to: DisplayNode.self).withYogaStyle { yoga($0) }
    }

    /// The record of an absolute spec (`absolute` or `static`).
    private mutating func absolute(_ e: LayoutElement, kind: StaticString) {
        byte(11); style(e.style); name(unsafeDowncast(e, to: AbsoluteLayoutSpec.self).sizing.rawValue); name(kind)
    }
    /// The record of a spec without fields of its own.
    private mutating func fieldless(_ e: LayoutElement, kind: StaticString) {
        byte(0); style(e.style); name(kind)
    }
}

extension ElementKind.ID {
    /// A node element (`DisplayNode` or a subclass): may take the Yoga style fields and be a Yoga child.
    @inline(__always) var isNode: Bool {
        switch self {
        case .node, .image, .text, .button: return true
        default: return false
        }
    }
    /// The URL an element of this kind carries to the response, if its kind has one.
    @inline(__always) func url(of e: LayoutElement) -> String? {
        self == .image ? unsafeDowncast(e, to: ImageNode.self).url : nil
    }
}

/// The table of element kinds, and the kind of an element found from its class in one
/// probe (a hash of the class's address into a small table made once). Plain pointers and
/// numbers: the encoders and the hashing copy it per call at no cost.
struct ElementKinds {
    static let shared = ElementKinds(all)
    /// Each kind's name for the decoder (the value is the kind's index).
    static let names = NameTable(all.enumerated().map { ("\($0.element.name)", $0.offset) })
    /// Per kind: the members it accepts, as `ElementField` bits, with type, id and style.
    static let allowedFields = all.map { $0.fields | ElementField.mask([.type, .id, .style]) }

    /// The kinds, by index (never freed: the table is made once).
    let entries: UnsafeBufferPointer<ElementKind>
    /// Open addressing on the class's address: `(class address, kind)`, address 0 = empty.
    private let slots: UnsafeBufferPointer<(address: UInt, kind: ElementKind.ID)>
    private let shift: UInt
    private let mask: UInt

    init(_ kinds: [ElementKind]) {
        for (k, kind) in kinds.enumerated() { precondition(kind.id.rawValue == k, "ElementKinds.all is in ElementKind.ID's order") }
        let copy = UnsafeMutablePointer<ElementKind>.allocate(capacity: kinds.count)
        copy.initialize(from: kinds, count: kinds.count)
        entries = UnsafeBufferPointer(start: copy, count: kinds.count)
        // The smallest table, and the shift of the addresses, where no two classes collide.
        let addresses = kinds.map { UInt(bitPattern: ObjectIdentifier($0.elementClass)) }
        var size = 32, shift: UInt = 0
        search: while true {
            for s: UInt in 0 ..< 16 where Set(addresses.map { ($0 >> s) & UInt(size - 1) }).count == addresses.count {
                shift = s
                break search
            }
            size *= 2
            if size > 4096 { break }  // never in practice: linear probing copes with collisions
        }
        let table = UnsafeMutablePointer<(address: UInt, kind: ElementKind.ID)>.allocate(capacity: size)
        table.initialize(repeating: (0, .spacer), count: size)
        for (kind, address) in zip(kinds.map(\.id), addresses) {
            var slot = Int((address >> shift) & UInt(size - 1))
            while table[slot].address != 0 { slot = (slot + 1) & (size - 1) }
            table[slot] = (address, kind)
        }
        slots = UnsafeBufferPointer(start: table, count: size)
        self.shift = shift
        mask = UInt(size - 1)
    }

    /// `element`'s kind.
    @inline(__always) func kind(of element: LayoutElement) -> ElementKind.ID {
        let address = UInt(bitPattern: ObjectIdentifier(type(of: element)))
        var slot = Int((address >> shift) & mask)
        while true {
            let entry = slots[slot]
            if entry.address == address { return entry.kind }
            if entry.address == 0 { return inherited(element) }
            slot = (slot + 1) & Int(mask)
        }
    }

    /// An element of a class no kind names (built by hand, not decoded): the kind of its
    /// nearest superclass that has one, else `spacer` (a spec without fields).
    @inline(never) private func inherited(_ element: LayoutElement) -> ElementKind.ID {
        var superclass: AnyClass? = _getSuperclass(type(of: element))
        while let c = superclass {
            if let kind = entries.first(where: { ObjectIdentifier($0.elementClass) == ObjectIdentifier(c) }) { return kind.id }
            superclass = _getSuperclass(c)
        }
        return .spacer
    }

    @inline(__always) subscript(kind: ElementKind.ID) -> ElementKind { entries[kind.rawValue] }
    @inline(__always) subscript(of element: LayoutElement) -> ElementKind { entries[kind(of: element).rawValue] }
}

extension ElementKinds {
    /// The end of the message for an unknown `type`: the nearest kind's name when `name` is
    /// likely a typo of it ("; did you mean 'stack'?"), else every kind's name. Only on the
    /// error path.
    static func unknownTypeHint(_ name: String) -> String {
        let names = all.map { "\($0.name)" }
        let typed = Array(name.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for candidate in names {
            let d = editDistance(typed, Array(candidate.unicodeScalars))
            if best == nil || d < best!.distance { best = (candidate, d) }
        }
        if let best, best.distance <= (typed.count <= 4 ? 1 : 2) { return "; did you mean '\(best.name)'?" }
        return " (the types: \(names.joined(separator: ", ")))"
    }

    /// Edits (insert, delete, replace, swap two neighbours) from `a` to `b`.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
