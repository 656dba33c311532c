/// `ASAbsoluteLayoutSpecSizing`.
public enum AbsoluteLayoutSpecSizing: String, Hashable, Sendable, CaseIterable {
    case `default`, sizeToFit
}

/// `ASAbsoluteLayoutSpec` (§7.9), and the 1.x `ASStaticLayoutSpec` (= sizeToFit): children
/// at their `style.layoutPosition`, each sized from its own style against the spec with the
/// space left to the right/bottom as its automatic maximum.
public class AbsoluteLayoutSpec: LayoutSpec {
    public let sizing: AbsoluteLayoutSpecSizing
    public let children: [LayoutElement]

    public init(sizing: AbsoluteLayoutSpecSizing, children: [LayoutElement],
                style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.sizing = sizing
        self.children = children
        super.init(style: style, id: id, layoutChildren: children)
    }

    override public func calculateLayout(_ c: SizeRange, context: LayoutContext) -> Layout {
        var s = c.parentSizeForChildren
        var subs: [Sublayout] = []
        subs.reserveCapacity(children.count)
        var maxX = -Double.infinity, maxY = -Double.infinity
        for (i, child) in children.enumerated() {
            let pos = child.style.layoutPosition
            let autoMax = Size(width: c.max.width - pos.x, height: c.max.height - pos.y)
            let childRange = child.style.resolveSize(parent: s, autoRange: SizeRange(min: .zero, max: autoMax))
            let l = child.layoutThatFits(childRange, parentSize: s, context: context)
            subs.append(Sublayout(slot: i, position: pos, layout: l))
            maxX = Swift.max(maxX, pos.x + l.size.width)
            maxY = Swift.max(maxY, pos.y + l.size.height)
        }
        if sizing == .sizeToFit || s.width.isNaN { s.width = cgMax(c.min.width, maxX) }
        if sizing == .sizeToFit || s.height.isNaN { s.height = cgMax(c.min.height, maxY) }
        return makeLayout(c.clamp(s), subs, context: context)
    }
}
