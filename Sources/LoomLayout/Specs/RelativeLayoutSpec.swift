/// `ASRelativeLayoutSpecPosition`.
public enum RelativeLayoutSpecPosition: String, Hashable, Sendable, CaseIterable {
    case none, start, center, end
    var factor: Double {
        switch self {
        case .none, .start: return 0
        case .center: return 0.5
        case .end: return 1
        }
    }
}

/// `ASRelativeLayoutSpecSizingOption`.
public struct RelativeLayoutSpecSizingOption: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let minimumWidth = RelativeLayoutSpecSizingOption(rawValue: 1)
    public static let minimumHeight = RelativeLayoutSpecSizingOption(rawValue: 2)
    public static let minimumSize: RelativeLayoutSpecSizingOption = [.minimumWidth, .minimumHeight]
}

/// `ASRelativeLayoutSpec` (§7.6): places its child at the start, centre or end of each axis
/// of its own size (the max size, or the child's with the minimum options).
public class RelativeLayoutSpec: LayoutSpec {
    public let horizontalPosition: RelativeLayoutSpecPosition
    public let verticalPosition: RelativeLayoutSpecPosition
    public let sizingOption: RelativeLayoutSpecSizingOption
    public let child: LayoutElement

    public init(horizontalPosition: RelativeLayoutSpecPosition, verticalPosition: RelativeLayoutSpecPosition,
                sizingOption: RelativeLayoutSpecSizingOption, child: LayoutElement,
                style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.horizontalPosition = horizontalPosition
        self.verticalPosition = verticalPosition
        self.sizingOption = sizingOption
        self.child = child
        super.init(style: style, id: id, layoutChildren: [child])
    }

    override public func calculateLayout(_ c: SizeRange, context: LayoutContext) -> Layout {
        let s0 = c.parentSizeForChildren
        let childMin = Size(width: horizontalPosition != .none ? 0 : c.min.width,
                            height: verticalPosition != .none ? 0 : c.min.height)
        let childLayout = child.layoutThatFits(SizeRange(min: childMin, max: c.max), parentSize: s0, context: context)
        let cs = childLayout.size
        let s1 = c.clamp(Size(width: s0.width.isFinite ? s0.width : cs.width,
                              height: s0.height.isFinite ? s0.height : cs.height))
        let s2 = c.clamp(Size(width: sizingOption.contains(.minimumWidth) ? cgMin(s1.width, cs.width) : s1.width,
                              height: sizingOption.contains(.minimumHeight) ? cgMin(s1.height, cs.height) : s1.height))
        let grid = context.grid
        let position = Point(x: grid.round((s2.width - cs.width) * horizontalPosition.factor),
                             y: grid.round((s2.height - cs.height) * verticalPosition.factor))
        return makeLayout(s2, [Sublayout(slot: 0, position: position, layout: childLayout)], context: context)
    }
}
