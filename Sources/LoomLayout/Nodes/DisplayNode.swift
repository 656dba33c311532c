/// `ASDisplayNode` (§4): a plain node, a node with a manual `calculateSizeThatFits:`
/// (`intrinsicSize`), or a node with its own `layoutSpecThatFits:` (`layoutSpec`).
/// Display nodes own a flattened layout: the nodes their spec placed become their children.
open class DisplayNode: LayoutElement {
    /// The node's own layout spec; its subtree's frames are relative to this node.
    public let layoutSpec: LayoutElement?
    /// What a manual `calculateSizeThatFits:` returns, whatever it is offered.
    public let intrinsicSize: Size?
    /// Yoga children (Texture's `yogaChildren`); empty = none. A Yoga container's laid-out
    /// children are its Yoga children. Set them before the node is given to a parent.
    public var yogaChildren: [DisplayNode] {
        get { rare?.yogaChildren ?? [] }
        set {
            madeRare().yogaChildren = newValue
            storedChildren = newValue.isEmpty ? (layoutSpec.map { [$0] } ?? []) : newValue
            isPathDependent = !newValue.isEmpty || layoutChildren.contains { $0.isPathDependent }
        }
    }
    /// The Yoga tree of a Yoga root, kept for the request (`YogaTree`).
    var yogaTree: AnyObject? {
        get { rare?.yogaTree }
        set { if newValue != nil || rare != nil { madeRare().yogaTree = newValue } }
    }
    /// The Yoga style fields; nil = all defaults. Kept out of line (`rare`): few nodes have
    /// one, and it is large (about 600 bytes), which every node would otherwise carry.
    public var yogaStyle: YogaStyle? {
        get { rare?.yogaStyle?.style }
        set { if newValue != nil || rare != nil { madeRare().yogaStyle = newValue.map(YogaStyleBox.init) } }
    }
    /// The stored Yoga style (nil = all defaults); nodes with equal styles may share one.
    public var yogaStyleBox: YogaStyleBox? {
        get { rare?.yogaStyle }
        set { if newValue != nil || rare != nil { madeRare().yogaStyle = newValue } }
    }
    /// Sets the Yoga style to `style`, sharing `other`'s stored copy when the two are equal
    /// (the items of a feed usually are): one copy in memory instead of one per node, and a
    /// Yoga tree compares and reads it once. Returns whether it was shared.
    @discardableResult
    public func setYogaStyle(_ style: borrowing YogaStyle, sharingWith other: DisplayNode?) -> Bool {
        let previous = other?.rare?.yogaStyle
        let box = YogaStyleBox.stored(style, sharing: previous)
        madeRare().yogaStyle = box
        return box === previous
    }
    /// Reads the Yoga style in place, if the node has one, without copying it out as
    /// `yogaStyle`'s getter does: the canonical hash reads every node's.
    public func withYogaStyle(_ body: (borrowing YogaStyle) -> Void) {
        if let box = rare?.yogaStyle { body(box.style) }
    }
    /// Whether this node has Yoga children (is a Yoga container).
    public final var isYogaContainer: Bool {
        if let rare { return !rare.yogaChildren.isEmpty }
        return false
    }

    public init(layoutSpec: LayoutElement? = nil, intrinsicSize: Size? = nil,
                style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.layoutSpec = layoutSpec
        self.intrinsicSize = intrinsicSize
        super.init(style: style, id: id, layoutChildren: layoutSpec.map { [$0] } ?? [])
    }

    override public final var isDisplayNode: Bool { true }

    override public func resetMemo() {
        rare?.yogaTree = nil
        super.resetMemo()
    }

    /// `calculateSizeThatFits:` of a leaf node: the offered max if it is a valid size,
    /// otherwise 0×0 (§4.2); a fixed intrinsic size regardless of the offer (§4.3).
    open func calculateSizeThatFits(_ constrainedSize: Size, context: LayoutContext) -> Size {
        if let intrinsicSize { return intrinsicSize }
        return validSize(constrainedSize) ? constrainedSize : .zero
    }

    override open func calculateLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        if _slowPath(isYogaContainer) { return yogaRootLayout(used, context: context) }
        if let spec = layoutSpec {
            // §4.1 step 3: the spec measured with the node's range, parent size = used.max;
            // the node takes the spec's size and holds the spec layout at (0,0).
            let specLayout = spec.layoutThatFits(used, parentSize: used.max, context: context)
            return makeLayout(specLayout.size, [Sublayout(slot: 0, position: .zero, layout: specLayout)], context: context)
        }
        return makeLayout(used.clamp(calculateSizeThatFits(used.max, context: context)), context: context)
    }
}

/// `ASImageNode` / `ASNetworkImageNode`: a leaf whose size is the image's size in points,
/// clamped into its range (§4.3). `url` is carried to the output, never fetched.
public final class ImageNode: DisplayNode {
    public let url: String?
    public init(intrinsicSize: Size?, url: String? = nil, style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil) {
        self.url = url
        super.init(intrinsicSize: intrinsicSize, style: style, id: id)
    }
}
