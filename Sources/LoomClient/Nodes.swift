// The nodes, named as Texture names them.

/// `ASDisplayNode`: a plain node, one with an intrinsic size (what a manual
/// `calculateSizeThatFits:` returns), one with its own `layoutSpecThatFits:`, or a Yoga
/// container (`setYogaChildren:`).
public struct DisplayNode: LayoutElement {
    public let element: Element

    public init() { element = Element(.node(intrinsicSize: nil, layout: nil, yogaChildren: [])) }
    public init(intrinsicSize: Size) { element = Element(.node(intrinsicSize: intrinsicSize, layout: nil, yogaChildren: [])) }
    /// A node whose subtree is laid out by `layout` (its `layoutSpecThatFits:`).
    public init(layout: any LayoutElement) { element = Element(.node(intrinsicSize: nil, layout: layout.element, yogaChildren: [])) }
    /// A Yoga container; its children are laid out by Yoga from their styles' Yoga fields.
    public init(@ElementBuilder yogaChildren: () -> [Element]) {
        element = Element(.node(intrinsicSize: nil, layout: nil, yogaChildren: yogaChildren()))
    }
}

/// `ASTextNode`, measured on the server with real fonts.
public struct TextNode: LayoutElement {
    public let element: Element

    public struct Content: Sendable, Hashable {
        var text: String?
        var spans: [Span]?
        public var font: Font?
        public var lineHeight: Double?
        public var lineSpacing: Double?
        public var letterSpacing: Double?
        public var alignment: Alignment?
        public var maximumNumberOfLines: Int?
        public var truncationMode: TruncationMode?
        public var truncationText: String?
        public var textContainerInset: EdgeInsets?
    }

    public init(_ text: String, font: Font? = nil, maximumNumberOfLines: Int? = nil,
                truncationMode: TruncationMode? = nil, _ more: (inout Content) -> Void = { _ in }) {
        var c = Content(text: text)
        c.font = font; c.maximumNumberOfLines = maximumNumberOfLines; c.truncationMode = truncationMode
        more(&c)
        element = Element(.text(c))
    }

    /// An attributed string.
    public init(spans: [Span], font: Font? = nil, maximumNumberOfLines: Int? = nil,
                _ more: (inout Content) -> Void = { _ in }) {
        var c = Content(spans: spans)
        c.font = font; c.maximumNumberOfLines = maximumNumberOfLines
        more(&c)
        element = Element(.text(c))
    }

    public enum Alignment: String, Sendable { case left, center, right, justified, natural }
    public enum TruncationMode: String, Sendable { case tail, head, middle, clip, wordWrap, charWrap }
}

/// `ASImageNode` / `ASNetworkImageNode`: measured as its image's size; `url` is never fetched.
public struct ImageNode: LayoutElement {
    public let element: Element
    public init(intrinsicSize: Size? = nil, url: String? = nil) { element = Element(.image(intrinsicSize: intrinsicSize, url: url)) }
}

/// `ASButtonNode`: a title and an image laid out as Texture's button lays them out.
public struct ButtonNode: LayoutElement {
    public let element: Element

    public struct Content: Sendable, Hashable {
        public var title: TextNode.Content?
        public var imageSize: Size?
        public var imageURL: String?
        public var contentSpacing: Double?
        public var laysOutHorizontally: Bool?
        public var contentEdgeInsets: EdgeInsets?
        public var imageAlignment: ImageAlignment?
    }

    public init(title: String? = nil, font: Font? = nil, imageSize: Size? = nil, imageURL: String? = nil,
                contentSpacing: Double? = nil,
                laysOutHorizontally: Bool? = nil, contentEdgeInsets: EdgeInsets? = nil,
                imageAlignment: ImageAlignment? = nil) {
        var c = Content()
        if let title {
            var t = TextNode.Content(text: title)
            t.font = font
            c.title = t
        }
        c.imageSize = imageSize; c.imageURL = imageURL; c.contentSpacing = contentSpacing; c.laysOutHorizontally = laysOutHorizontally
        c.contentEdgeInsets = contentEdgeInsets; c.imageAlignment = imageAlignment
        element = Element(.button(c))
    }

    public enum ImageAlignment: String, Sendable { case beginning, end }
}
