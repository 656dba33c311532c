/// `ASButtonNodeImageAlignment`.
public enum ButtonNodeImageAlignment: String, Hashable, Sendable, CaseIterable { case beginning, end }

/// `ASButtonNode` (§10): a title text node and an image node in a stack (horizontal unless
/// `laysOutHorizontally` is false) with `contentSpacing`, aligned by the content alignments,
/// wrapped in an inset spec when `contentEdgeInsets` is not zero. The title gets `flexShrink = 1`.
public final class ButtonNode: DisplayNode {
    public let titleNode: TextNode?
    public let imageNode: ImageNode?
    public let contentSpacing: Double
    public let laysOutHorizontally: Bool
    public let contentHorizontalAlignment: HorizontalAlignment
    public let contentVerticalAlignment: VerticalAlignment
    public let contentEdgeInsets: EdgeInsets
    public let imageAlignment: ButtonNodeImageAlignment

    public init(title: TextNode?, image: ImageNode?, contentSpacing: Double = 8, laysOutHorizontally: Bool = true,
                contentHorizontalAlignment: HorizontalAlignment = .middle,
                contentVerticalAlignment: VerticalAlignment = .center,
                contentEdgeInsets: EdgeInsets = .zero, imageAlignment: ButtonNodeImageAlignment = .beginning,
                style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.titleNode = title
        self.imageNode = image
        self.contentSpacing = contentSpacing
        self.laysOutHorizontally = laysOutHorizontally
        self.contentHorizontalAlignment = contentHorizontalAlignment
        self.contentVerticalAlignment = contentVerticalAlignment
        self.contentEdgeInsets = contentEdgeInsets
        self.imageAlignment = imageAlignment

        // ASButtonNode gives its title node flexShrink = 1 (§10); a caller may change it afterwards.
        title?.style.flexShrink = 1

        var children: [LayoutElement] = []
        if let image, image.intrinsicSize != nil { children.append(image) }
        if let title, !title.attributes.string.isEmpty {
            if imageAlignment == .beginning { children.append(title) } else { children.insert(title, at: 0) }
        }
        let stack = StackLayoutSpec(direction: laysOutHorizontally ? .horizontal : .vertical, spacing: contentSpacing,
                                    horizontalAlignment: contentHorizontalAlignment,
                                    verticalAlignment: contentVerticalAlignment, children: children)
        let spec: LayoutElement = contentEdgeInsets.isZero ? stack : InsetLayoutSpec(insets: contentEdgeInsets, child: stack)
        super.init(layoutSpec: spec, style: style, id: id)
    }
}
