/// `ASOverlayLayoutSpec` (§7.4). Ignores its own style size. The overlay is measured at
/// exactly the child's size and drawn on top of it.
public final class OverlayLayoutSpec: LayoutSpec {
    public let child: LayoutElement
    public let overlay: LayoutElement
    public init(child: LayoutElement, overlay: LayoutElement, style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.child = child
        self.overlay = overlay
        super.init(style: style, id: id, layoutChildren: [child, overlay])
    }
    override public var childrenReceivingParentSize: [LayoutElement] { [child] }

    override public func computeLayoutThatFits(_ c: SizeRange, parentSize: Size, context: LayoutContext) -> Layout {
        let childLayout = child.layoutThatFits(c, parentSize: parentSize, context: context)
        let s = childLayout.size
        let overlayLayout = overlay.layoutThatFits(SizeRange(exactly: s), parentSize: s, context: context)
        return makeLayout(s, [Sublayout(slot: 0, position: .zero, layout: childLayout),
                              Sublayout(slot: 1, position: .zero, layout: overlayLayout)], context: context)
    }
}
