/// `ASStaticLayoutSpec` (Texture 1.x): an absolute spec that sizes to fit its children.
/// It lays out exactly as `AbsoluteLayoutSpec(sizing: .sizeToFit)`; it is its own class so
/// that a client can tell the two apart by class.
public final class StaticLayoutSpec: AbsoluteLayoutSpec {
    public init(children: [LayoutElement], style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        super.init(sizing: .sizeToFit, children: children, style: style, id: id)
    }
}
