/// A plain `ASLayoutSpec` (the wire format's `spacer`): its size is the minimum of its range;
/// it measures no children. In a stack it grows only through `flexGrow`.
open class LayoutSpec: LayoutElement {
    override open func calculateLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        makeLayout(used.min, context: context)
    }
}
