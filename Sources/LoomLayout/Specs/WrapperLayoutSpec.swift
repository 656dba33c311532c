/// `ASWrapperLayoutSpec` (§7.1): every child measured with the wrapper's range at (0,0);
/// size per axis MAX(min, largest child).
public final class WrapperLayoutSpec: LayoutSpec {
    public let children: [LayoutElement]
    public init(children: [LayoutElement], style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.children = children
        super.init(style: style, id: id, layoutChildren: children)
    }

    override public func calculateLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        var size = used.min
        var subs: [Sublayout] = []
        subs.reserveCapacity(children.count)
        for (i, child) in children.enumerated() {
            let l = child.layoutThatFits(used, parentSize: used.max, context: context)
            size.width = cgMax(size.width, l.size.width)
            size.height = cgMax(size.height, l.size.height)
            subs.append(Sublayout(slot: i, position: .zero, layout: l))
        }
        return makeLayout(size, subs, context: context)
    }
}
