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

    /// An infinite inset counts as 0 where insets are added up.
    @inline(__always) private static func finiteOrZero(_ x: Double) -> Double { x.isInfinite ? 0 : x }
    @inline(__always) private static func finite(_ x: Double, or alternative: Double) -> Double {
        x.isInfinite ? alternative : x
    }

    override public func computeLayoutThatFits(_ c: SizeRange, parentSize: Size, context: LayoutContext) -> Layout {
        let top = insets.top, left = insets.left, bottom = insets.bottom, right = insets.right
        let horizontal = Self.finiteOrZero(left) + Self.finiteOrZero(right)
        let vertical = Self.finiteOrZero(top) + Self.finiteOrZero(bottom)
        let minWidth = (left.isInfinite || right.isInfinite) ? 0 : c.min.width
        let minHeight = (top.isInfinite || bottom.isInfinite) ? 0 : c.min.height
        let childRange = SizeRange(
            min: Size(width: cgMax(0, minWidth - horizontal), height: cgMax(0, minHeight - vertical)),
            max: Size(width: cgMax(0, c.max.width - horizontal), height: cgMax(0, c.max.height - vertical)))
        let childParent = Size(width: cgMax(0, parentSize.width - horizontal), height: cgMax(0, parentSize.height - vertical))
        let childLayout = child.layoutThatFits(childRange, parentSize: childParent, context: context)
        let childSize = childLayout.size
        let size = c.clamp(Size(width: Self.finite(childSize.width + left + right, or: c.max.width),
                                height: Self.finite(childSize.height + top + bottom, or: c.max.height)))
        // An infinite inset pins the child to the other side; both infinite centre it.
        let grid = context.grid
        let centredX = grid.round((c.max.width - childSize.width) / 2)
        let centredY = grid.round((c.max.height - childSize.height) / 2)
        let x = Self.finite(left, or: c.max.width - (Self.finite(right, or: centredX) + childSize.width))
        let y = Self.finite(top, or: c.max.height - (Self.finite(bottom, or: centredY) + childSize.height))
        return makeLayout(size, [Sublayout(slot: 0, position: Point(x: x, y: y), layout: childLayout)], context: context)
    }
}
