/// `flexDirection` (`ASStackLayoutDirection` names): column, row and their reverses.
public enum YogaFlexDirection: String, Hashable, Sendable, CaseIterable { case vertical, horizontal, verticalReverse, horizontalReverse }
/// `YGDirection`.
public enum YogaDirection: String, Hashable, Sendable, CaseIterable { case inherit, ltr, rtl }
/// `YGWrap`.
public enum YogaWrap: String, Hashable, Sendable, CaseIterable { case noWrap, wrap, wrapReverse }
/// `YGPositionType` (relative and static lay out alike).
public enum YogaPositionType: String, Hashable, Sendable, CaseIterable { case relative, absolute }

/// Texture's ASEdgeInsets for Yoga: each side a Dimension, nil = unset (Yoga undefined).
public struct YogaEdges: Hashable, Sendable {
    public var top, left, bottom, right, start, end, horizontal, vertical, all: Dimension?
    public init(top: Dimension? = nil, left: Dimension? = nil, bottom: Dimension? = nil, right: Dimension? = nil,
                start: Dimension? = nil, end: Dimension? = nil, horizontal: Dimension? = nil, vertical: Dimension? = nil,
                all: Dimension? = nil) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
        self.start = start; self.end = end; self.horizontal = horizontal; self.vertical = vertical; self.all = all
    }
}

/// The Yoga-only style fields of a node (docs/yoga.md §6). The shared ones (width, height,
/// min/max, flexGrow, flexShrink, flexBasis, alignSelf, ascender, descender) stay in
/// LayoutElementStyle.
public struct YogaStyle: Hashable, Sendable {
    public var flexDirection: YogaFlexDirection = .vertical
    public var direction: YogaDirection = .inherit
    /// spaceEvenly is not in the enum (Texture cannot set it).
    public var justifyContent: StackLayoutJustifyContent = .start
    /// baselineFirst and baselineLast are both Yoga's baseline; the baseline function tells them apart (§5.2).
    public var alignItems: StackLayoutAlignItems = .stretch
    public var flexWrap: YogaWrap = .noWrap
    public var positionType: YogaPositionType = .relative
    public var position = YogaEdges(), margin = YogaEdges(), padding = YogaEdges(), border = YogaEdges()
    /// width ÷ height, > 0; nil = undefined.
    public var aspectRatio: Double? = nil
    public init() {}
}
