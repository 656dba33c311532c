/// `ASStackLayoutDirection`.
public enum StackLayoutDirection: String, Hashable, Sendable, CaseIterable { case horizontal, vertical }
/// `ASStackLayoutJustifyContent`.
public enum StackLayoutJustifyContent: String, Hashable, Sendable, CaseIterable {
    case start, center, end, spaceBetween, spaceAround
}
/// `ASStackLayoutAlignItems`.
public enum StackLayoutAlignItems: String, Hashable, Sendable, CaseIterable {
    case start, end, center, stretch, baselineFirst, baselineLast
}
/// `ASStackLayoutFlexWrap`.
public enum StackLayoutFlexWrap: String, Hashable, Sendable, CaseIterable { case noWrap, wrap }
/// `ASStackLayoutAlignContent`.
public enum StackLayoutAlignContent: String, Hashable, Sendable, CaseIterable {
    case start, center, end, spaceBetween, spaceAround, stretch
}
/// `ASHorizontalAlignment`.
public enum HorizontalAlignment: String, Hashable, Sendable, CaseIterable { case none, left, middle, right }
/// `ASVerticalAlignment`.
public enum VerticalAlignment: String, Hashable, Sendable, CaseIterable { case none, top, center, bottom }

/// `ASStackLayoutSpec` (§7.2): lays its children out along one axis, flexing, wrapping,
/// stretching and aligning them. The algorithm lives in `StackLayoutAlgorithm.swift`.
public final class StackLayoutSpec: LayoutSpec {
    public let direction: StackLayoutDirection
    public let spacing: Double
    /// Effective values, after `horizontalAlignment`/`verticalAlignment` were applied (§7.2.2).
    public let justifyContent: StackLayoutJustifyContent
    public let alignItems: StackLayoutAlignItems
    public let flexWrap: StackLayoutFlexWrap
    public let alignContent: StackLayoutAlignContent
    public let lineSpacing: Double
    public let horizontalAlignment: HorizontalAlignment
    public let verticalAlignment: VerticalAlignment
    /// Measure children on several threads (same result).
    public let concurrent: Bool
    public let children: [LayoutElement]

    public init(direction: StackLayoutDirection = .horizontal, spacing: Double = 0,
                justifyContent: StackLayoutJustifyContent = .start, alignItems: StackLayoutAlignItems = .stretch,
                flexWrap: StackLayoutFlexWrap = .noWrap, alignContent: StackLayoutAlignContent = .start,
                lineSpacing: Double = 0, horizontalAlignment: HorizontalAlignment = .none,
                verticalAlignment: VerticalAlignment = .none, concurrent: Bool = false,
                children: [LayoutElement], style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.direction = direction
        self.spacing = spacing
        self.flexWrap = flexWrap
        self.alignContent = alignContent
        self.lineSpacing = lineSpacing
        self.horizontalAlignment = horizontalAlignment
        self.verticalAlignment = verticalAlignment
        self.concurrent = concurrent
        self.children = children
        let resolved = StackLayoutSpec.applyAlignments(direction: direction, justifyContent: justifyContent,
                                                       alignItems: alignItems, horizontal: horizontalAlignment,
                                                       vertical: verticalAlignment)
        self.justifyContent = resolved.0
        self.alignItems = resolved.1
        super.init(style: style, id: id, layoutChildren: children)
    }

    /// §7.2.2, resolved declaratively: the explicit (or default) justify/alignItems, then the
    /// non-`none` alignments mapped with the final direction win.
    public static func applyAlignments(direction: StackLayoutDirection, justifyContent: StackLayoutJustifyContent,
                                       alignItems: StackLayoutAlignItems, horizontal: HorizontalAlignment,
                                       vertical: VerticalAlignment) -> (StackLayoutJustifyContent, StackLayoutAlignItems) {
        var justify = justifyContent, align = alignItems
        let h: (StackLayoutJustifyContent, StackLayoutAlignItems)?
        switch horizontal {
        case .none: h = nil
        case .left: h = (.start, .start)
        case .middle: h = (.center, .center)
        case .right: h = (.end, .end)
        }
        let v: (StackLayoutJustifyContent, StackLayoutAlignItems)?
        switch vertical {
        case .none: v = nil
        case .top: v = (.start, .start)
        case .center: v = (.center, .center)
        case .bottom: v = (.end, .end)
        }
        switch direction {
        case .horizontal:
            if let h { justify = h.0 }
            if let v { align = v.1 }
        case .vertical:
            if let h { align = h.1 }
            if let v { justify = v.0 }
        }
        return (justify, align)
    }

    override public func calculateLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        StackLayoutAlgorithm(spec: self, used: used, context: context).run()
    }
}
