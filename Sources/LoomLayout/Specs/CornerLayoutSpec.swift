/// `ASCornerLayoutSpecLocation`.
public enum CornerLayoutSpecLocation: String, Hashable, Sendable, CaseIterable {
    case topLeft, topRight, bottomLeft, bottomRight
}

/// `ASCornerLayoutSpec` (§7.10): a corner element centred on a corner of the child, moved by
/// `offset`; with `wrapsCorner` the spec grows to include the corner.
public final class CornerLayoutSpec: LayoutSpec {
    public let child: LayoutElement
    public let corner: LayoutElement
    public let cornerLocation: CornerLayoutSpecLocation
    public let offset: Point
    public let wrapsCorner: Bool

    public init(child: LayoutElement, corner: LayoutElement, cornerLocation: CornerLayoutSpecLocation = .topLeft,
                offset: Point = .zero, wrapsCorner: Bool = false,
                style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.child = child
        self.corner = corner
        self.cornerLocation = cornerLocation
        self.offset = offset
        self.wrapsCorner = wrapsCorner
        super.init(style: style, id: id, layoutChildren: [child, corner])
    }

    override public func calculateLayout(_ c: SizeRange, context: LayoutContext) -> Layout {
        let s = c.parentSizeForChildren
        let childLayout = child.layoutThatFits(c, parentSize: s, context: context)
        let cornerLayout = corner.layoutThatFits(c, parentSize: s, context: context)
        let cs = childLayout.size, ks = cornerLayout.size
        let right = cornerLocation == .topRight || cornerLocation == .bottomRight
        let bottom = cornerLocation == .bottomLeft || cornerLocation == .bottomRight
        var cornerPos = Point(x: (right ? cs.width : 0) - ks.width / 2 + offset.x,
                              y: (bottom ? cs.height : 0) - ks.height / 2 + offset.y)
        var childPos = Point.zero
        var frameOrigin = Point.zero
        var frameSize = cs
        if wrapsCorner {
            // Union of the child frame (0,0,cs) and the corner frame.
            let minX = Swift.min(0, cornerPos.x), minY = Swift.min(0, cornerPos.y)
            let maxX = Swift.max(cs.width, cornerPos.x + ks.width), maxY = Swift.max(cs.height, cornerPos.y + ks.height)
            frameOrigin = Point(x: minX, y: minY)
            frameSize = c.clamp(Size(width: maxX - minX, height: maxY - minY))
        }
        if frameOrigin.x != 0 { childPos.x -= frameOrigin.x; cornerPos.x -= frameOrigin.x }
        if frameOrigin.y != 0 { childPos.y -= frameOrigin.y; cornerPos.y -= frameOrigin.y }
        return makeLayout(frameSize, [Sublayout(slot: 0, position: childPos, layout: childLayout),
                                      Sublayout(slot: 1, position: cornerPos, layout: cornerLayout)], context: context)
    }
}
