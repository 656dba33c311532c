/// `ASBackgroundLayoutSpec` (§7.5). Ignores its own style size. The background is measured
/// at exactly the child's size (with the spec's own parent size) and drawn behind it.
public final class BackgroundLayoutSpec: LayoutSpec {
    public let child: LayoutElement
    public let background: LayoutElement
    public init(child: LayoutElement, background: LayoutElement, style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.child = child
        self.background = background
        super.init(style: style, id: id, layoutChildren: [child, background])
    }
    override public var childrenReceivingParentSize: [LayoutElement] { [child, background] }

    override public func computeLayoutThatFits(_ c: SizeRange, parentSize: Size, context: LayoutContext) -> Layout {
        let childLayout = child.layoutThatFits(c, parentSize: parentSize, context: context)
        let s = childLayout.size
        let backgroundLayout = background.layoutThatFits(SizeRange(exactly: s), parentSize: parentSize, context: context)
        // Background first: sublayout order is back-to-front.
        return makeLayout(s, [Sublayout(slot: 1, position: .zero, layout: backgroundLayout),
                              Sublayout(slot: 0, position: .zero, layout: childLayout)], context: context)
    }
}
