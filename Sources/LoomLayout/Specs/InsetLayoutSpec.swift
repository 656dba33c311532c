/// `ASInsetLayoutSpec` (§7.3). Ignores its own style size. An infinite inset lets the child
/// take its intrinsic size on that axis and pins it to the opposite side of the spec's max
/// size (centres it when both sides are infinite).
public final class InsetLayoutSpec: LayoutSpec {
    public let insets: EdgeInsets
    public let child: LayoutElement
    public init(insets: EdgeInsets, child: LayoutElement, style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.insets = insets
        self.child = child
        super.init(style: style, id: id, layoutChildren: [child])
    }
    override public var childrenReceivingParentSize: [LayoutElement] { [child] }

    @inline(__always) private static func fin0(_ x: Double) -> Double { x.isInfinite ? 0 : x }
    @inline(__always) private static func fin(_ x: Double, _ alt: Double) -> Double { x.isInfinite ? alt : x }

    override public func computeLayoutThatFits(_ c: SizeRange, parentSize p: Size, context: LayoutContext) -> Layout {
        let t = insets.top, l = insets.left, b = insets.bottom, r = insets.right
        let iX = Self.fin0(l) + Self.fin0(r)
        let iY = Self.fin0(t) + Self.fin0(b)
        let minW = (l.isInfinite || r.isInfinite) ? 0 : c.min.width
        let minH = (t.isInfinite || b.isInfinite) ? 0 : c.min.height
        let childRange = SizeRange(
            min: Size(width: cgMax(0, minW - iX), height: cgMax(0, minH - iY)),
            max: Size(width: cgMax(0, c.max.width - iX), height: cgMax(0, c.max.height - iY)))
        let childParent = Size(width: cgMax(0, p.width - iX), height: cgMax(0, p.height - iY))
        let childLayout = child.layoutThatFits(childRange, parentSize: childParent, context: context)
        let cs = childLayout.size
        let size = c.clamp(Size(width: Self.fin(cs.width + l + r, c.max.width),
                                height: Self.fin(cs.height + t + b, c.max.height)))
        let grid = context.grid
        let x = Self.fin(l, c.max.width - (Self.fin(r, grid.round((c.max.width - cs.width) / 2)) + cs.width))
        let y = Self.fin(t, c.max.height - (Self.fin(b, grid.round((c.max.height - cs.height) / 2)) + cs.height))
        return makeLayout(size, [Sublayout(slot: 0, position: Point(x: x, y: y), layout: childLayout)], context: context)
    }
}
