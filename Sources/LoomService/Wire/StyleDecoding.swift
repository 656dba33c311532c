import LoomLayout

/// An element's `style` object (`LayoutElementStyle`).
extension DecodeState {
    enum StyleField: Int, CaseIterable {
        case width, height, minWidth, maxWidth, minHeight, maxHeight, preferredSize, minSize, maxSize
        case flexGrow, flexShrink, flexBasis, alignSelf, spacingBefore, spacingAfter, ascender, descender
        case layoutPosition, sizeRange
        // Yoga (docs/yoga.md §6): read into `ElementFields.YogaFields`.
        case flexDirection, direction, justifyContent, alignItems, flexWrap, positionType
        case position, margin, padding, border, aspectRatio
    }
    /// Case names, and `preferredFrameSize` (Texture's older name for preferredSize).
    static let styleFields = NameTable(StyleField.allCases.map { ("\($0)", $0) } + [("preferredFrameSize", .preferredSize)])

    @inline(never) mutating func style(into fields: inout ElementFields) throws {
        var seen: UInt64 = 0, unknown: String?, previous = styleOrder.start
        guard try reader.beginObject("style") else { return }
        // Fields apply in the order written, as successive setters do.
        repeat {
            guard let k = try reader.member(styleNames, seen: &seen, unknown: &unknown, order: styleOrder, previous: &previous)
            else { continue }
            reader.path.push(styleNames.staticNames[k])
            switch styleNames.values[k] {
            case .width: fields.style.width = try reader.dimension()
            case .height: fields.style.height = try reader.dimension()
            case .minWidth: fields.style.minWidth = try reader.dimension()
            case .maxWidth: fields.style.maxWidth = try reader.dimension()
            case .minHeight: fields.style.minHeight = try reader.dimension()
            case .maxHeight: fields.style.maxHeight = try reader.dimension()
            case .preferredSize: fields.style.setPreferredSize(try reader.size(styleNames.names[k]))
            case .minSize: fields.style.setMinSize(try reader.size("minSize"))
            case .maxSize: fields.style.setMaxSize(try reader.size("maxSize"))
            case .flexGrow: fields.style.flexGrow = try reader.flexFactor()
            case .flexShrink: fields.style.flexShrink = try reader.flexFactor()
            case .flexBasis: fields.style.flexBasis = try reader.dimension()
            case .alignSelf: fields.style.alignSelf = try reader.name(alignSelfNames)
            case .spacingBefore: fields.style.spacingBefore = try reader.number()
            case .spacingAfter: fields.style.spacingAfter = try reader.number()
            case .ascender: fields.style.ascender = try reader.number()
            case .descender: fields.style.descender = try reader.number()
            case .layoutPosition: fields.style.layoutPosition = try reader.point("layoutPosition")
            case .sizeRange: try relativeSizeRange(into: &fields.style)
            case .flexDirection, .direction, .justifyContent, .alignItems, .flexWrap, .positionType, .position, .margin, .padding,
                 .border, .aspectRatio:
                try yogaStyleField(k, &fields)
            }
            reader.path.pop()
        } while try reader.scanner.nextMember()
        try reader.finish(unknown, "style")
        if fields.style.minWidth.isFraction || fields.style.maxWidth.isFraction || fields.style.minHeight.isFraction
            || fields.style.maxHeight.isFraction {
            fractionalLimitStyles += 1
        }
    }

    /// One Yoga style field (`styleNames` entry `k`), into the element's Yoga style.
    @inline(never) private mutating func yogaStyleField(_ k: Int, _ fields: inout ElementFields) throws {
        hasYoga = true
        let extras = fields.madeExtras()
        let yoga: ElementFields.YogaFields
        if let made = extras.yoga {
            yoga = made
        } else {
            yoga = ElementFields.YogaFields(firstField: styleNames.names[k])
            extras.yoga = yoga
        }
        try yogaStyleValue(styleNames.values[k], &yoga.style)
    }

    /// The value of Yoga style field `field`, into `yoga`.
    private mutating func yogaStyleValue(_ field: StyleField, _ yoga: inout YogaStyle) throws {
        switch field {
        case .flexDirection: yoga.flexDirection = try reader.name(ValueNames.yogaFlexDirections)
        case .direction: yoga.direction = try reader.name(ValueNames.yogaDirections)
        case .justifyContent: yoga.justifyContent = try reader.name(justifyNames)
        case .alignItems: yoga.alignItems = try reader.name(alignItemsNames)
        case .flexWrap: yoga.flexWrap = try reader.name(ValueNames.yogaWraps)
        case .positionType: yoga.positionType = try reader.name(ValueNames.yogaPositionTypes)
        case .position: yoga.position = try edges("position", points: false)
        case .margin: yoga.margin = try edges("margin", points: false)
        case .padding: yoga.padding = try edges("padding", points: false)
        case .border: yoga.border = try edges("border", points: true)
        case .aspectRatio:
            let ratio = try reader.number()
            guard ratio > 0 else { throw reader.fail("aspectRatio must be > 0 (width ÷ height)") }
            yoga.aspectRatio = ratio
        default: preconditionFailure("not a Yoga style field")
        }
    }

    enum EdgeField: Int, CaseIterable { case top, left, bottom, right, start, end, horizontal, vertical, all }
    static let edgeFields = NameTable(EdgeField.allCases.map { ("\($0)", $0) })

    /// A Yoga edges object (Texture's `ASEdgeInsets`): each side a Dimension, `"auto"` or
    /// left out = unset. `points`: percentages are not allowed (border widths).
    private mutating func edges(_ what: StaticString, points: Bool) throws -> YogaEdges {
        var edges = YogaEdges()
        var seen: UInt64 = 0, unknown: String?
        if try reader.beginObject("\(what)") {
            repeat {
                guard let k = try reader.member(Self.edgeFields, seen: &seen, unknown: &unknown) else { continue }
                reader.path.push(Self.edgeFields.staticNames[k])
                let d = try reader.dimension()
                if points && d.isFraction { throw reader.fail("\(what) widths are in points, not a percentage") }
                let side: Dimension? = d.isAuto ? nil : d
                switch Self.edgeFields.values[k] {
                case .top: edges.top = side
                case .left: edges.left = side
                case .bottom: edges.bottom = side
                case .right: edges.right = side
                case .start: edges.start = side
                case .end: edges.end = side
                case .horizontal: edges.horizontal = side
                case .vertical: edges.vertical = side
                case .all: edges.all = side
                }
                reader.path.pop()
            } while try reader.scanner.nextMember()
        }
        if let unknown {
            throw reader.fail("unknown edge '\(unknown)' in \(what) (top, left, bottom, right, start, end, horizontal, vertical, all)",
                              at: unknown)
        }
        return edges
    }

    /// 1.x `ASRelativeSizeRange`: min → minWidth/minHeight, max → maxWidth/maxHeight.
    private mutating func relativeSizeRange(into style: inout LayoutElementStyle) throws {
        var min = (Dimension.auto, Dimension.auto), max = (Dimension.auto, Dimension.auto)
        let (_, rangeUnknown) = try reader.members(Self.rangeFields, "sizeRange") { reader, field in
            let name = field == .min ? "min" : "max"
            var width = Dimension.auto, height = Dimension.auto
            let (_, sizeUnknown) = try reader.members(WireReader.sizeFields, name) { reader, side in
                if side == .width { width = try reader.dimension() } else { height = try reader.dimension() }
            }
            try reader.finish(sizeUnknown, name)
            if field == .min { min = (width, height) } else { max = (width, height) }
        }
        try reader.finish(rangeUnknown, "sizeRange")
        style.minWidth = min.0; style.minHeight = min.1
        style.maxWidth = max.0; style.maxHeight = max.1
    }
}
