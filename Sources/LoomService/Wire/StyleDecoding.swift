import LoomLayout

/// An element's `style` object (`LayoutElementStyle`).
extension DecodeState {
    enum StyleField: Int, CaseIterable {
        case width, height, minWidth, maxWidth, minHeight, maxHeight, preferredSize, minSize, maxSize
        case flexGrow, flexShrink, flexBasis, alignSelf, spacingBefore, spacingAfter, ascender, descender
        case layoutPosition, sizeRange
        // Yoga (docs/yoga.md §6): read into `yogaScratch`, then stored (`ElementFields.yogaBox`).
        case flexDirection, direction, justifyContent, alignItems, flexWrap, positionType
        case position, margin, padding, border, aspectRatio
    }
    /// Case names, and `preferredFrameSize` (Texture's older name for preferredSize).
    static let styleFields = NameTable(StyleField.allCases.map { ("\($0)", $0) } + [("preferredFrameSize", .preferredSize)])

    /// Reads a `style` object into `style`; Yoga fields, if it has any, into `yogaBox` (stored,
    /// possibly shared with the previous element's) with the first one's entry in `styleNames`
    /// in `yogaFirstField` (a spec must have none).
    @inline(never) mutating func style(into style: inout LayoutElementStyle, yogaBox: inout LayoutElement.YogaStyleBox?,
                                       yogaFirstField: inout Int) throws {
        var seen: UInt64 = 0, unknown: String?, previous = styleOrder.start
        var yogaFields = false
        // The table as a local: read from `self` inside the loop, whose reader each member
        // mutates, it was copied (16 words) at every member.
        let styleNames = self.styleNames
        guard try reader.beginObject("style") else { return }
        // Fields apply in the order written, as successive setters do.
        repeat {
            guard let k = try reader.member(styleNames, seen: &seen, unknown: &unknown, order: styleOrder, previous: &previous)
            else { continue }
            reader.path.push(styleNames.staticNames[k])
            switch styleNames.values[k] {
            case .width: style.width = try reader.dimension()
            case .height: style.height = try reader.dimension()
            case .minWidth: style.minWidth = try reader.dimension()
            case .maxWidth: style.maxWidth = try reader.dimension()
            case .minHeight: style.minHeight = try reader.dimension()
            case .maxHeight: style.maxHeight = try reader.dimension()
            case .preferredSize: style.setPreferredSize(try reader.size(styleNames.names[k]))
            case .minSize: style.setMinSize(try reader.size("minSize"))
            case .maxSize: style.setMaxSize(try reader.size("maxSize"))
            case .flexGrow: style.flexGrow = try reader.flexFactor()
            case .flexShrink: style.flexShrink = try reader.flexFactor()
            case .flexBasis: style.flexBasis = try reader.dimension()
            case .alignSelf: style.alignSelf = try reader.name(alignSelfNames)
            case .spacingBefore: style.spacingBefore = try reader.number()
            case .spacingAfter: style.spacingAfter = try reader.number()
            case .ascender: style.ascender = try reader.number()
            case .descender: style.descender = try reader.number()
            case .layoutPosition: style.layoutPosition = try reader.point("layoutPosition")
            case .sizeRange: try relativeSizeRange(into: &style)
            case .flexDirection, .direction, .justifyContent, .alignItems, .flexWrap, .positionType, .position, .margin, .padding,
                 .border, .aspectRatio:
                if !yogaFields {
                    yogaFields = true
                    hasYoga = true
                    yogaScratch = YogaStyle()
                    yogaFirstField = k
                }
                try yogaStyleValue(styleNames.values[k])
            }
            reader.path.pop()
        } while try reader.scanner.nextMember()
        try reader.finish(unknown, "style")
        if yogaFields { yogaBox = storedYogaStyle() }
        if style.minWidth.isFraction || style.maxWidth.isFraction || style.minHeight.isFraction
            || style.maxHeight.isFraction {
            fractionalLimitStyles += 1
        }
    }

    /// `yogaScratch` stored: the previous stored style when equal, else a new one.
    @inline(never) private mutating func storedYogaStyle() -> LayoutElement.YogaStyleBox {
        let box = LayoutElement.YogaStyleBox.stored(yogaScratch, sharing: lastYogaBox)
        lastYogaBox = box
        return box
    }

    /// The value of Yoga style field `field`, into `yogaScratch`.
    private mutating func yogaStyleValue(_ field: StyleField) throws {
        switch field {
        case .flexDirection: yogaScratch.flexDirection = try reader.name(ValueNames.yogaFlexDirections)
        case .direction: yogaScratch.direction = try reader.name(ValueNames.yogaDirections)
        case .justifyContent: yogaScratch.justifyContent = try reader.name(justifyNames)
        case .alignItems: yogaScratch.alignItems = try reader.name(alignItemsNames)
        case .flexWrap: yogaScratch.flexWrap = try reader.name(ValueNames.yogaWraps)
        case .positionType: yogaScratch.positionType = try reader.name(ValueNames.yogaPositionTypes)
        case .position: yogaScratch.position = try edges("position", points: false)
        case .margin: yogaScratch.margin = try edges("margin", points: false)
        case .padding: yogaScratch.padding = try edges("padding", points: false)
        case .border: yogaScratch.border = try edges("border", points: true)
        case .aspectRatio:
            let ratio = try reader.number()
            guard ratio > 0 else { throw reader.fail("aspectRatio must be > 0 (width ÷ height)") }
            yogaScratch.aspectRatio = ratio
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
