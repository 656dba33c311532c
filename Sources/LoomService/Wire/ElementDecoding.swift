import LoomLayout

/// Elements: an element object is read member by member into `ElementFields`, then built
/// by its kind (`ElementKinds`) and checked against the members that kind accepts. A `node`
/// whose `type` comes first is made at once and its `id` and `style` read straight into it:
/// the most common element there is needs no `ElementFields`.
extension DecodeState {
    /// Where the reading of an element's members is: the members seen (`ElementField` bits),
    /// the first unknown one, the last one read (for `MemberOrder`'s guess).
    struct MemberProgress {
        var seen: UInt64 = 0
        var unknown: String?
        var previous: Int
    }

    /// A `node` read the fast way so far, handed to the general way: the node (its `id` and
    /// `style`), the Yoga style read with them, `fractionalLimitStyles` when it began.
    struct NodeSoFar {
        let node: DisplayNode
        let yogaBox: LayoutElement.YogaStyleBox?
        let yogaFirstField: Int
        let fractionalLimitStylesBefore: Int
    }

    mutating func element() throws -> LayoutElement {
        depth += 1
        defer { depth -= 1 }
        try countElement()
        guard try reader.beginObject("an element") else { throw reader.fail("an element needs a 'type'") }
        var progress = MemberProgress(previous: elementOrder.start)
        let type = ElementField.type.rawValue
        guard reader.scanner.memberName(type, of: elementNames) else {
            return try generalElement(nil, &progress, firstMember: true)
        }
        // `type` first, as clients write it: the kind is known from here on.
        progress.seen = ElementField.type.bit
        progress.previous = type
        reader.path.push(elementNames.staticNames[type])
        let kind = try kind()
        reader.path.pop()
        if kind == .node { return try node(&progress) }
        return try generalElement(kind, &progress)
    }

    /// The general way, from where `progress` is: the members into an `ElementFields` (made
    /// here, in a frame of its own, so that the fast way's frames stay small on the path of
    /// nested elements), then the element they describe. `firstMember`: no member was read
    /// yet. `node`: what the fast way read, and `pending` the member it met (its name read).
    @inline(never) private mutating func generalElement(_ kind: ElementKind.ID?, _ progress: inout MemberProgress,
                                                        firstMember: Bool = false, node: NodeSoFar? = nil,
                                                        pending: ElementField? = nil) throws -> LayoutElement {
        var fields = ElementFields()
        fields.kind = kind
        fields.fractionalLimitStylesBefore = node?.fractionalLimitStylesBefore ?? fractionalLimitStyles
        if let node {
            fields.style = node.node.style
            fields.id = node.node.id
            fields.yogaBox = node.yogaBox
            fields.yogaFirstField = node.yogaFirstField
        }
        let names = elementNames  // a local, as in `style(into:)`
        if firstMember { try nextMember(&fields, &progress, names) }
        if let pending { try member(pending, &fields) }
        while try reader.scanner.nextMember() {
            try nextMember(&fields, &progress, names)
        }
        guard let kind = fields.kind else { throw reader.fail("an element needs a 'type'") }
        return try checkedElement(kind, &fields, seen: progress.seen, unknown: progress.unknown)
    }

    /// Reads the member at the cursor into `fields` (`names`: `elementNames`).
    @inline(__always) private mutating func nextMember(_ fields: inout ElementFields, _ progress: inout MemberProgress,
                                                       _ names: NameTable<ElementField>) throws {
        // Members are guessed by the element's kind once its type is read.
        let context = elementOrder.context(fields.kind?.rawValue ?? ElementKind.ID.allCases.count)
        guard let k = try reader.member(names, seen: &progress.seen, unknown: &progress.unknown, order: elementOrder,
                                        context: context, previous: &progress.previous)
        else { return }
        try member(names.values[k], &fields)
    }

    /// A `node` element after its `type`: made at once, as a leaf, and its `id` and `style`
    /// read straight into it (a style read elsewhere and copied in costs more than reading it).
    /// Any other member (or an unknown one) hands what was read to the general way, and the
    /// node made here is dropped.
    private mutating func node(_ progress: inout MemberProgress) throws -> LayoutElement {
        let before = fractionalLimitStyles
        let node = DisplayNode()
        var yogaBox: LayoutElement.YogaStyleBox?, yogaFirstField = -1
        let context = elementOrder.context(ElementKind.ID.node.rawValue)
        let elementNames = self.elementNames  // a local, as in `style(into:)`
        while try reader.scanner.nextMember() {
            let k = try reader.member(elementNames, seen: &progress.seen, unknown: &progress.unknown, order: elementOrder,
                                      context: context, previous: &progress.previous)
            let field = k.map { elementNames.values[$0] }
            guard let k, field == .style || field == .id else {
                // Any other member (its name read), or an unknown one (its value skipped): the
                // general way reads the rest, and reports an unknown member after its checks.
                let soFar = NodeSoFar(node: node, yogaBox: yogaBox, yogaFirstField: yogaFirstField, fractionalLimitStylesBefore: before)
                return try generalElement(.node, &progress, node: soFar, pending: field)
            }
            reader.path.push(elementNames.staticNames[k])
            if field == .style {
                try style(into: &node.style, yogaBox: &yogaBox, yogaFirstField: &yogaFirstField)
            } else {
                node.id = try id()
            }
            reader.path.pop()
        }
        if let yogaBox { node.yogaStyleBox = yogaBox }
        return node
    }

    /// The depth and element-count limits, checked as an element begins.
    @inline(__always) private mutating func countElement() throws {
        if depth > limits.maxDepth {
            throw WireError.tooLarge("the tree is nested deeper than \(limits.maxDepth) elements", path: reader.path.rendered)
        }
        elementCount += 1
        if elementCount > limits.maxNodes {
            throw WireError.tooLarge("the tree has more than \(limits.maxNodes) elements", path: reader.path.rendered)
        }
    }

    /// Reads one member's value into `fields`. Only members holding elements recurse, and
    /// this frame stays small: every other member is read in `valueMember`'s frame, so 512
    /// nested elements fit in a thread's stack even in a debug build.
    private mutating func member(_ field: ElementField, _ fields: inout ElementFields) throws {
        reader.path.push(elementNames.staticNames[field.rawValue])
        defer { reader.path.pop() }
        switch field {
        case .children: fields.children = try children()
        case .child: fields.child = try child(.child)
        case .overlay, .background, .corner: fields.second = try child(field)
        case .layout: fields.layout = try element()
        case .yogaChildren: fields.madeExtras().yogaChildren = try yogaChildren()
        default: try valueMember(field, &fields)
        }
    }

    /// A `children` array.
    @inline(__always) private mutating func children() throws -> [LayoutElement] {
        let b = try reader.scanner.valueStart()
        guard b == UInt8(ascii: "[") else { throw reader.typeError("'children' must be an array of elements", b) }
        var children: [LayoutElement] = []
        if try reader.scanner.beginArray() {
            var k = 0
            repeat {
                reader.path.push(k)
                children.append(try element())
                reader.path.pop()
                k += 1
            } while try reader.scanner.nextItem()
        }
        return children
    }

    /// A `yogaChildren` array: node elements only (`node`, `text`, `image`, `button`).
    private mutating func yogaChildren() throws -> [DisplayNode] {
        let b = try reader.scanner.valueStart()
        guard b == UInt8(ascii: "[") else { throw reader.typeError("'yogaChildren' must be an array of node elements", b) }
        var children: [DisplayNode] = []
        if try reader.scanner.beginArray() {
            var k = 0
            repeat {
                reader.path.push(k)
                let child = try element()
                guard child.isDisplayNode else {
                    throw reader.fail("a Yoga child must be a node element (node, text, image or button), not a \(kinds[of: child].name) spec",
                                      at: "type")
                }
                children.append(unsafeDowncast(child, to: DisplayNode.self))
                reader.path.pop()
                k += 1
            } while try reader.scanner.nextItem()
        }
        return children
    }

    /// A member that holds one element.
    private mutating func child(_ field: ElementField) throws -> LayoutElement {
        if try reader.scanner.valueStart() == UInt8(ascii: "[") { throw reader.fail("'\(field.name)' is one element, not an array") }
        return try element()
    }

    /// Reads a member that holds no element.
    @inline(never) private mutating func valueMember(_ field: ElementField, _ fields: inout ElementFields) throws {
        switch field {
        case .type: fields.kind = try kind()
        case .id: fields.id = try id()
        case .style: try style(into: &fields.style, yogaBox: &fields.yogaBox, yogaFirstField: &fields.yogaFirstField)
        case .direction: fields.direction = try reader.name(directionNames)
        case .spacing: fields.spacing = try reader.number()
        case .justifyContent: fields.justifyContent = try reader.name(justifyNames)
        case .alignItems: fields.alignItems = try reader.name(alignItemsNames)
        case .flexWrap: fields.flexWrap = try reader.name(ValueNames.flexWraps)
        case .alignContent: fields.alignContent = try reader.name(ValueNames.alignContents)
        case .lineSpacing: fields.lineSpacing = try reader.number()  // >= 0 for text: checked in `textNode`
        case .horizontalAlignment: fields.horizontalAlignment = try reader.name(ValueNames.horizontalAlignments)
        case .verticalAlignment: fields.verticalAlignment = try reader.name(ValueNames.verticalAlignments)
        case .concurrent: fields.concurrent = try reader.bool()
        case .insets: fields.insets = try reader.insets(allowInfinite: true)
        case .centeringOptions: fields.centeringOptions = try reader.name(ValueNames.centeringOptions)
        case .sizingOptions: fields.sizingOptions = try reader.name(ValueNames.centerSizingOptions)
        case .horizontalPosition: fields.horizontalPosition = try reader.name(ValueNames.relativePositions)
        case .verticalPosition: fields.verticalPosition = try reader.name(ValueNames.relativePositions)
        case .sizingOption: fields.sizingOption = try reader.name(ValueNames.relativeSizingOptions)
        case .ratio:
            fields.ratio = try reader.number()
            guard fields.ratio > 0 else { throw reader.fail("ratio must be > 0") }
        case .sizing: fields.sizing = try reader.name(ValueNames.absoluteSizings)
        case .cornerLocation: fields.cornerLocation = try reader.name(ValueNames.cornerLocations)
        case .offset: fields.offset = try reader.point("offset")
        case .wrapsCorner: fields.wrapsCorner = try reader.bool()
        case .intrinsicSize: fields.intrinsicSize = try reader.size("intrinsicSize")
        case .url: fields.madeExtras().url = try reader.string()
        case .text, .spans, .font, .lineHeight, .letterSpacing, .alignment, .maximumNumberOfLines, .truncationMode, .truncationText,
             .textContainerInset:
            let extras = fields.madeExtras()
            if extras.text == nil { extras.text = TextFields() }
            try textMember(field, &extras.text!)
        case .title, .image, .contentSpacing, .laysOutHorizontally, .contentHorizontalAlignment, .contentVerticalAlignment,
             .contentEdgeInsets, .imageAlignment:
            let extras = fields.madeExtras()
            if extras.button == nil { extras.button = ButtonFields() }
            try buttonMember(field, &extras.button!)
        case .children, .child, .overlay, .background, .corner, .layout, .yogaChildren:
            preconditionFailure("\(field) holds elements: read by member(_:_:)")
        }
    }

    /// The `type` member: the kind.
    @inline(__always) private mutating func kind() throws -> ElementKind.ID {
        let b = try reader.scanner.valueStart()
        guard b == UInt8(ascii: "\"") else { throw reader.typeError("must be a string", b) }
        // Most elements are of the previous element's kind (the children of a stack, say).
        if reader.scanner.stringValue(lastKind.rawValue, of: kindNames) { return lastKind }
        let token = try reader.scanner.stringToken()
        guard let k = reader.scanner.index(of: token, in: kindNames) else {
            let name = reader.scanner.string(token)
            throw reader.fail("unknown element type '\(name)'" + ElementKinds.unknownTypeHint(name))
        }
        lastKind = ElementKind.ID(rawValue: kindNames.values[k])!
        return lastKind
    }

    /// The `id` member, unique in the request.
    private mutating func id() throws -> String {
        let id = try reader.string()
        // Sized once from the body at the first id (feeds name an element every 200-300
        // bytes), not grown through every power of two.
        if ids.isEmpty { ids.reserveCapacity(Swift.min(4096, 16 + reader.scanner.bytes.count / 200)) }
        guard ids.insert(id).inserted else { throw reader.fail("duplicate id '\(id)'") }
        return id
    }

    /// The element `fields` describes, built by its kind (`build(_:_:seen:)`), after checking
    /// its members against the kind.
    @inline(never) private mutating func checkedElement(_ kind: ElementKind.ID, _ fields: inout ElementFields, seen: UInt64,
                                                        unknown: String?) throws -> LayoutElement {
        let misplaced = seen & ~allowedFieldMasks[kind.rawValue]
        let element = try build(kind, &fields, seen: seen)
        // Then members this kind does not have, and names no kind has.
        if misplaced != 0 || unknown != nil {
            if misplaced & ElementField.yogaChildren.bit != 0 {
                throw reader.fail("'yogaChildren' is only for elements of type \"node\", not \(kinds[kind].name)", at: "yogaChildren")
            }
            let first = ElementField.allCases.first { misplaced & $0.bit != 0 }
            let name = first.map(\.name) ?? unknown!
            throw reader.fail("unknown field '\(name)' in a \(kinds[kind].name) element", at: name)
        }
        if let box = fields.yogaBox { try applyYogaStyle(kind, box, firstField: fields.yogaFirstField, to: element) }
        element.id = fields.id
        return element
    }

    // MARK: Yoga

    /// A node's non-empty `yogaChildren` (docs/yoga.md §7): its size and its children's
    /// frames come from Yoga alone, so a `layout` or `intrinsicSize` beside them is an error
    /// (Texture would silently ignore it).
    mutating func yogaContainer(_ node: DisplayNode, _ children: [DisplayNode], _ fields: inout ElementFields) throws {
        if fields.layout != nil {
            throw reader.fail("a node with yogaChildren is laid out by Yoga alone: its 'layout' would be ignored", at: "layout")
        }
        if fields.intrinsicSize != nil {
            throw reader.fail("a node with yogaChildren is sized by Yoga alone: its 'intrinsicSize' would be ignored",
                              at: "intrinsicSize")
        }
        node.yogaChildren = children
    }

    /// The Yoga style fields read in an element's `style`: node elements keep them (outside
    /// a Yoga tree they are ignored, as in Texture); a layout spec must not have them.
    // Mutating, like every step of the decoder that is not inlined: a non-mutating call from
    // a mutating one copies the whole decoder state (nearly 2 KB) for the call.
    @inline(never) private mutating func applyYogaStyle(_ kind: ElementKind.ID, _ box: LayoutElement.YogaStyleBox, firstField: Int,
                                               to element: LayoutElement) throws {
        guard kind.isNode else {
            let name = styleNames.names[firstField]
            throw reader.fail("'\(name)' is a Yoga style field, for node elements (node, text, image, button), not for a \(kinds[kind].name) spec",
                              at: "style.\(name)")
        }
        unsafeDowncast(element, to: DisplayNode.self).yogaStyleBox = box
    }

    /// The element a spec needs in `field`.
    func required(_ field: ElementField, _ value: LayoutElement?) throws -> LayoutElement {
        guard let value else { throw reader.fail("this spec needs '\(field.name)' (one element)", at: field.name) }
        return value
    }

    // MARK: stack

    mutating func stack(_ fields: inout ElementFields) throws -> LayoutElement {
        let alignItems = fields.alignItems ?? .stretch
        let effective = StackLayoutSpec.applyAlignments(direction: fields.direction, justifyContent: fields.justifyContent,
                                                         alignItems: alignItems, horizontal: fields.horizontalAlignment,
                                                         vertical: fields.verticalAlignment)
        if fields.direction == .vertical && (effective.1 == .baselineFirst || effective.1 == .baselineLast) {
            throw reader.fail("baseline alignment is only for horizontal stacks", at: "alignItems")
        }
        // Only a style read inside this stack can have made a child's min or max fractional.
        if fractionalLimitStyles != fields.fractionalLimitStylesBefore, let children = fields.children {
            try rejectFractionalStretchChildren(children, effectiveAlignItems: effective.1)
        }
        return StackLayoutSpec(direction: fields.direction, spacing: fields.spacing, justifyContent: fields.justifyContent,
                               alignItems: alignItems, flexWrap: fields.flexWrap, alignContent: fields.alignContent,
                               lineSpacing: fields.lineSpacing, horizontalAlignment: fields.horizontalAlignment,
                               verticalAlignment: fields.verticalAlignment, concurrent: fields.concurrent,
                               children: fields.children ?? [], style: fields.style)
    }

    /// Stretch children resolve their style against an undefined parent (§7.2.11):
    /// fractional min/max there is NaN in Texture (a debug assertion). Rejected.
    private mutating func rejectFractionalStretchChildren(_ children: [LayoutElement],
                                                          effectiveAlignItems: StackLayoutAlignItems) throws {
        for k in children.indices {
            let s = children[k].style
            let stretch = s.alignSelf == .stretch || (s.alignSelf == .auto && effectiveAlignItems == .stretch)
            if stretch && (s.minWidth.isFraction || s.maxWidth.isFraction || s.minHeight.isFraction || s.maxHeight.isFraction) {
                throw fractionalStretchChild(k, s)
            }
        }
    }

    /// The error for stack child `k`, stretched, with style `s` (a fractional min or max).
    @inline(never) private mutating func fractionalStretchChild(_ k: Int, _ s: LayoutElementStyle) -> WireError {
        let (name, _) = [("minWidth", s.minWidth), ("maxWidth", s.maxWidth), ("minHeight", s.minHeight), ("maxHeight", s.maxHeight)]
            .first { $0.1.isFraction }!
        reader.path.push("children"); reader.path.push(k); reader.path.push("style")
        defer { reader.path.pop(); reader.path.pop(); reader.path.pop() }
        return reader.fail("a fractional \(name) is undefined on a stretch-aligned stack child (Texture asserts); use points or alignSelf",
                           at: name)
    }
}
