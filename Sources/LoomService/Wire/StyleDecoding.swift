import LoomLayout

/// An element's `style` object (`LayoutElementStyle`).
extension DecodeState {
    enum StyleField: Int, CaseIterable {
        case width, height, minWidth, maxWidth, minHeight, maxHeight, preferredSize, minSize, maxSize
        case flexGrow, flexShrink, flexBasis, alignSelf, spacingBefore, spacingAfter, ascender, descender
        case layoutPosition, sizeRange
    }
    /// Case names, and `preferredFrameSize` (Texture's older name for preferredSize).
    static let styleFields = NameTable(StyleField.allCases.map { ("\($0)", $0) } + [("preferredFrameSize", .preferredSize)])

    @inline(never) mutating func style(into style: inout LayoutElementStyle) throws {
        var seen: UInt64 = 0, unknown: String?
        guard try reader.beginObject("style") else { return }
        // Fields apply in the order written, as successive setters do.
        repeat {
            guard let k = try reader.member(styleNames, seen: &seen, unknown: &unknown) else { continue }
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
            }
            reader.path.pop()
        } while try reader.scanner.nextMember()
        try reader.finish(unknown, "style")
        if style.minWidth.isFraction || style.maxWidth.isFraction || style.minHeight.isFraction || style.maxHeight.isFraction {
            fractionalLimitStyles += 1
        }
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
