/// `ASRatioLayoutSpec` (§7.8): gives its child the size closest to `ratio` (height ÷ width)
/// that fits its range.
public final class RatioLayoutSpec: LayoutSpec {
    public let ratio: Double
    public let child: LayoutElement
    public init(ratio: Double, child: LayoutElement, style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        precondition(ratio > 0, "ratio must be > 0")
        self.ratio = ratio
        self.child = child
        super.init(style: style, id: id, layoutChildren: [child])
    }

    private func error(_ s: Size) -> Double { abs(s.height / s.width - ratio) }

    override public func calculateLayout(_ c: SizeRange, context: LayoutContext) -> Layout {
        let grid = context.grid
        var options: [Size] = []
        if validForSize(c.max.width) {
            options.append(c.clamp(Size(width: c.max.width, height: grid.floor(ratio * c.max.width))))
        }
        if validForSize(c.max.height) {
            options.append(c.clamp(Size(width: grid.floor(c.max.height / ratio), height: c.max.height)))
        }
        // std::max_element with "a's error > b's error": a later option replaces the best
        // only if the best's error is strictly greater (NaN errors never compare greater).
        var best = options.first
        for option in options.dropFirst() where error(best!) > error(option) { best = option }
        let childRange: SizeRange, childParent: Size
        if let best {
            childRange = c.intersect(SizeRange(exactly: best))
            childParent = best
        } else {
            childRange = c
            childParent = .undefined
        }
        let childLayout = child.layoutThatFits(childRange, parentSize: childParent, context: context)
        return makeLayout(childLayout.size, [Sublayout(slot: 0, position: .zero, layout: childLayout)], context: context)
    }
}
