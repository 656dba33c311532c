import LoomLayout

/// One element kind of the wire format: its `type` name, the engine class it builds, the
/// members it accepts, how it is built from them, and its canonical record for hashing.
///
/// Adding a kind is one entry in `ElementKinds.all` (plus the engine's class and
/// `openapi.yaml`); a member no kind had before is also a case of `ElementField`.
struct ElementKind {
    /// The `type` on the wire, in the response and in the SVG.
    let name: StaticString
    /// The engine class of its elements: an element's kind is found by its class.
    let elementClass: AnyClass
    /// The members it accepts besides `type`, `id` and `style`.
    let fields: [ElementField]
    /// Where its `layoutChildren` are written on the wire (for error paths).
    let children: ChildMembers
    /// The element, from the members read (the members were checked against `fields`
    /// after this, so a missing member is reported before a misplaced one).
    let build: (_ decoding: inout DecodeState, _ fields: inout ElementFields, _ seen: UInt64) throws -> LayoutElement
    /// Its canonical record: a tag byte, the style, the fields that can change a frame.
    let record: (_ element: LayoutElement, _ bytes: inout CanonicalBytes) -> Void
    /// The URL it carries to the response, if its kind has one (ids and URLs are hashed
    /// apart from the records: they never change a frame).
    var url: ((_ element: LayoutElement) -> String?)? = nil

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
        /// Made by the element itself (a button's stack): named by the element's path.
        case inside
    }
}

extension ElementKinds {
    /// Every kind.
    static let all: [ElementKind] = [
        ElementKind(name: "stack", elementClass: StackLayoutSpec.self,
                    fields: [.direction, .spacing, .justifyContent, .alignItems, .flexWrap, .alignContent, .lineSpacing,
                             .horizontalAlignment, .verticalAlignment, .concurrent, .children],
                    children: .children,
                    build: { decoding, fields, _ in try decoding.stack(&fields) },
                    record: { e, w in
                        let s = unsafeDowncast(e, to: StackLayoutSpec.self)
                        w.byte(2); w.style(e.style)
                        w.name(s.direction.rawValue); w.double(s.spacing); w.name(s.justifyContent.rawValue)
                        w.name(s.alignItems.rawValue); w.name(s.flexWrap.rawValue); w.name(s.alignContent.rawValue)
                        w.double(s.lineSpacing)
                        // `concurrent` and the alignment sugar never change a frame (the effective
                        // justify/alignItems above already include the alignments).
                    }),
        ElementKind(name: "inset", elementClass: InsetLayoutSpec.self, fields: [.insets, .child], children: .child,
                    build: { decoding, fields, _ in
                        InsetLayoutSpec(insets: fields.insets, child: try decoding.required(.child, fields.child), style: fields.style)
                    },
                    record: { e, w in w.byte(3); w.style(e.style); w.insets(unsafeDowncast(e, to: InsetLayoutSpec.self).insets) }),
        ElementKind(name: "overlay", elementClass: OverlayLayoutSpec.self, fields: [.child, .overlay], children: .childAnd("overlay"),
                    build: { decoding, fields, _ in
                        let child = try decoding.required(.child, fields.child)
                        return OverlayLayoutSpec(child: child, overlay: try decoding.required(.overlay, fields.second), style: fields.style)
                    },
                    record: { e, w in w.byte(6); w.style(e.style) }),
        ElementKind(name: "background", elementClass: BackgroundLayoutSpec.self, fields: [.child, .background],
                    children: .childAnd("background"),
                    build: { decoding, fields, _ in
                        let child = try decoding.required(.child, fields.child)
                        return BackgroundLayoutSpec(child: child, background: try decoding.required(.background, fields.second),
                                                    style: fields.style)
                    },
                    record: { e, w in w.byte(7); w.style(e.style) }),
        ElementKind(name: "center", elementClass: CenterLayoutSpec.self, fields: [.centeringOptions, .sizingOptions, .child],
                    children: .child,
                    build: { decoding, fields, _ in
                        CenterLayoutSpec(centeringOptions: fields.centeringOptions, sizingOptions: fields.sizingOptions,
                                         child: try decoding.required(.child, fields.child), style: fields.style)
                    },
                    record: { e, w in
                        let s = unsafeDowncast(e, to: CenterLayoutSpec.self)
                        w.byte(9); w.style(e.style); w.name(s.centeringOptions.rawValue); w.name(s.sizingOptions.rawValue)
                    }),
        ElementKind(name: "relative", elementClass: RelativeLayoutSpec.self,
                    fields: [.horizontalPosition, .verticalPosition, .sizingOption, .child], children: .child,
                    build: { decoding, fields, _ in
                        RelativeLayoutSpec(horizontalPosition: fields.horizontalPosition, verticalPosition: fields.verticalPosition,
                                           sizingOption: fields.sizingOption, child: try decoding.required(.child, fields.child),
                                           style: fields.style)
                    },
                    record: { e, w in
                        let s = unsafeDowncast(e, to: RelativeLayoutSpec.self)
                        w.byte(10); w.style(e.style)
                        w.name(s.horizontalPosition.rawValue); w.name(s.verticalPosition.rawValue); w.u64(UInt64(s.sizingOption.rawValue))
                    }),
        ElementKind(name: "ratio", elementClass: RatioLayoutSpec.self, fields: [.ratio, .child], children: .child,
                    build: { decoding, fields, seen in
                        guard seen & ElementField.ratio.bit != 0 else {
                            throw decoding.reader.fail("a ratio spec needs 'ratio' (height ÷ width, > 0)", at: "ratio")
                        }
                        return RatioLayoutSpec(ratio: fields.ratio, child: try decoding.required(.child, fields.child), style: fields.style)
                    },
                    record: { e, w in w.byte(8); w.style(e.style); w.double(unsafeDowncast(e, to: RatioLayoutSpec.self).ratio) }),
        ElementKind(name: "absolute", elementClass: AbsoluteLayoutSpec.self, fields: [.sizing, .children], children: .children,
                    build: { _, fields, _ in AbsoluteLayoutSpec(sizing: fields.sizing, children: fields.children ?? [], style: fields.style) },
                    record: { e, w in w.absolute(e, kind: "absolute") }),
        // Texture 1.x's name for an absolute spec that sizes to fit.
        ElementKind(name: "static", elementClass: StaticLayoutSpec.self, fields: [.children], children: .children,
                    build: { _, fields, _ in StaticLayoutSpec(children: fields.children ?? [], style: fields.style) },
                    record: { e, w in w.absolute(e, kind: "static") }),
        ElementKind(name: "corner", elementClass: CornerLayoutSpec.self,
                    fields: [.child, .corner, .cornerLocation, .offset, .wrapsCorner], children: .childAnd("corner"),
                    build: { decoding, fields, _ in
                        let child = try decoding.required(.child, fields.child)
                        return CornerLayoutSpec(child: child, corner: try decoding.required(.corner, fields.second),
                                                cornerLocation: fields.cornerLocation, offset: fields.offset,
                                                wrapsCorner: fields.wrapsCorner, style: fields.style)
                    },
                    record: { e, w in
                        let s = unsafeDowncast(e, to: CornerLayoutSpec.self)
                        w.byte(12); w.style(e.style)
                        w.name(s.cornerLocation.rawValue); w.double(s.offset.x); w.double(s.offset.y); w.byte(s.wrapsCorner ? 1 : 0)
                    }),
        ElementKind(name: "wrapper", elementClass: WrapperLayoutSpec.self, fields: [.children], children: .children,
                    build: { _, fields, _ in WrapperLayoutSpec(children: fields.children ?? [], style: fields.style) },
                    record: { e, w in w.fieldless(e, kind: "wrapper") }),
        ElementKind(name: "spacer", elementClass: LayoutSpec.self, fields: [], children: .none,
                    build: { _, fields, _ in LayoutSpec(style: fields.style) },
                    record: { e, w in w.fieldless(e, kind: "spacer") }),
        ElementKind(name: "node", elementClass: DisplayNode.self, fields: [.layout, .intrinsicSize], children: .layout,
                    build: { decoding, fields, _ in
                        if fields.layout != nil && fields.intrinsicSize != nil {
                            throw decoding.reader.fail("a node has either 'layout' or 'intrinsicSize', not both", at: "intrinsicSize")
                        }
                        return DisplayNode(layoutSpec: fields.layout, intrinsicSize: fields.intrinsicSize, style: fields.style)
                    },
                    record: { e, w in
                        let n = unsafeDowncast(e, to: DisplayNode.self)
                        // The most common record, written at one pointer: tag, style, size, spec flag.
                        w.fixed(1 + w.styleRoom + CanonicalBytes.maxOptionalSizeBytes + 1) { p in
                            CanonicalBytes.putByte(1, &p)
                            CanonicalBytes.style(e.style, &p)
                            CanonicalBytes.putOptionalSize(n.intrinsicSize, &p)
                            CanonicalBytes.putByte(n.layoutSpec != nil ? 1 : 0, &p)
                        }
                    }),
        ElementKind(name: "image", elementClass: ImageNode.self, fields: [.intrinsicSize, .url], children: .layout,
                    build: { _, fields, _ in ImageNode(intrinsicSize: fields.intrinsicSize, url: fields.extras?.url, style: fields.style) },
                    record: { e, w in w.byte(4); w.style(e.style); w.optionalSize(unsafeDowncast(e, to: ImageNode.self).intrinsicSize) },
                    url: { e in unsafeDowncast(e, to: ImageNode.self).url }),
        ElementKind(name: "text", elementClass: TextNode.self, fields: ElementField.textFields, children: .layout,
                    build: { decoding, fields, seen in try decoding.textNode(fields, seen: seen) },
                    record: { e, w in
                        let n = unsafeDowncast(e, to: TextNode.self)
                        w.byte(5); w.style(e.style); w.text(n.attributes); w.insets(n.textContainerInset)
                    }),
        ElementKind(name: "button", elementClass: ButtonNode.self,
                    fields: [.title, .image, .contentSpacing, .laysOutHorizontally, .contentHorizontalAlignment,
                             .contentVerticalAlignment, .contentEdgeInsets, .imageAlignment],
                    children: .inside,
                    build: { decoding, fields, _ in decoding.button(fields.extras?.button ?? DecodeState.ButtonFields(), fields.style) },
                    record: { e, w in
                        let n = unsafeDowncast(e, to: ButtonNode.self)
                        w.byte(13); w.style(e.style)
                        w.double(n.contentSpacing); w.byte(n.laysOutHorizontally ? 1 : 0)
                        w.name(n.contentHorizontalAlignment.rawValue); w.name(n.contentVerticalAlignment.rawValue)
                        w.insets(n.contentEdgeInsets); w.name(n.imageAlignment.rawValue)
                        w.byte(n.titleNode != nil ? 1 : 0); w.byte(n.imageNode != nil ? 1 : 0)
                    }),
    ]
}

extension CanonicalBytes {
    /// The record of an absolute spec (`absolute` or `static`: each answered with its own
    /// name, so each its own kind).
    fileprivate mutating func absolute(_ e: LayoutElement, kind: StaticString) {
        byte(11); style(e.style); name(unsafeDowncast(e, to: AbsoluteLayoutSpec.self).sizing.rawValue); name(kind)
    }
    /// The record of a spec without fields of its own.
    fileprivate mutating func fieldless(_ e: LayoutElement, kind: StaticString) {
        byte(0); style(e.style); name(kind)
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
    static let allowedFields = all.map { ElementField.mask($0.fields) | ElementField.mask([.type, .id, .style]) }

    /// The kinds, by index (never freed: the table is made once).
    let entries: UnsafeBufferPointer<ElementKind>
    /// Open addressing on the class's address: `(class address, kind index)`, address 0 = empty.
    private let slots: UnsafeBufferPointer<(address: UInt, kind: Int)>
    private let shift: UInt
    private let mask: UInt

    init(_ kinds: [ElementKind]) {
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
        let table = UnsafeMutablePointer<(address: UInt, kind: Int)>.allocate(capacity: size)
        table.initialize(repeating: (0, 0), count: size)
        for (kind, address) in addresses.enumerated() {
            var slot = Int((address >> shift) & UInt(size - 1))
            while table[slot].address != 0 { slot = (slot + 1) & (size - 1) }
            table[slot] = (address, kind)
        }
        slots = UnsafeBufferPointer(start: table, count: size)
        self.shift = shift
        mask = UInt(size - 1)
    }

    /// The index of `element`'s kind.
    @inline(__always) func index(of element: LayoutElement) -> Int {
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
    @inline(never) private func inherited(_ element: LayoutElement) -> Int {
        var superclass: AnyClass? = _getSuperclass(type(of: element))
        while let c = superclass {
            if let k = entries.firstIndex(where: { ObjectIdentifier($0.elementClass) == ObjectIdentifier(c) }) { return k }
            superclass = _getSuperclass(c)
        }
        return entries.firstIndex { "\($0.name)" == "spacer" }!
    }

    @inline(__always) subscript(of element: LayoutElement) -> ElementKind { entries[index(of: element)] }
}
