// The Yoga tree the engine lays out: one `YogaNode` per display node of a Yoga tree, holding
// the node's style as Yoga stores it (floats, percentages, undefined) and Yoga's per-node
// layout state (measured sizes, positions, computed flex basis and the measurement caches),
// which lives as long as the tree: a Yoga root keeps its tree for the whole request (§2).
//
// Undefined is NaN, as in Yoga; arithmetic with it stays undefined.

/// A node of a Yoga tree: its style and its layout state.
final class YogaNode {
    // The fields every pass over a container's children reads come first, so that such a
    // pass touches the first two cache lines of each node; the rest follow.

    // Flags and small style values read per child.
    let isAbsolute: Bool
    let alignSelf: YogaAlign
    /// A measured leaf: Texture's measure and baseline functions are set (§5).
    let hasMeasure: Bool
    /// Whether it has a Yoga parent (Yoga's owner).
    let hasOwner: Bool
    /// Whether a min or max size may be set: without one, bounding a size leaves it as it is.
    private(set) var hasMinOrMax: Bool
    var isDirty = true
    var hadOverflow = false
    var lastOwnerDirection: Int8 = -1
    var layoutDirection = YogaResolvedDirection.inherit
    /// The edges, lent (also what a sibling compares its own with while the tree is built).
    let edgesRef: Unmanaged<YogaNodeEdges>
    let children: [YogaNode]
    let dimensions: (YogaValue, YogaValue)
    let flexGrow: Float
    let flexShrink: Float
    let aspectRatio: Float

    // Layout state (`YGLayout`).
    var computedFlexBasis: Float = .nan
    var layoutPosition = YogaFloat4()
    var layoutDimensions: (Float, Float) = (.nan, .nan)
    var measuredDimensions: (Float, Float) = (.nan, .nan)
    var generation = 0
    var lineIndex = 0
    var cachedLayout = YogaCacheEntry()

    // Read by containers, or rarely.
    /// Min sizes; the root's are overwritten before each pass (§2).
    var minDimensions: (YogaValue, YogaValue) { didSet { hasMinOrMax = true } }
    let maxDimensions: (YogaValue, YogaValue)
    let flexBasis: YogaValue
    let flexDirection: YogaAxis
    let direction: YogaResolvedDirection
    let justifyContent: YogaJustify
    let alignItems: YogaAlign
    let wrap: YogaWrap
    /// The alignItems of the Yoga parent as Texture sees it, for the baseline function (§5.2).
    let parentAlignItems: StackLayoutAlignItems?
    /// The display node this Yoga node stands for. Not retained: the Yoga root's display
    /// node owns the tree (`DisplayNode.yogaTree`) and, through its Yoga children, every
    /// display node the tree stands for, so each outlives its Yoga node. Retaining it made
    /// a cycle that kept every Yoga request's whole tree alive after the answer.
    unowned(unsafe) let element: DisplayNode
    /// Margin, padding, border and position: shared with the previous sibling when equal
    /// (and by every node without any), which keeps the node small. Read through a lent
    /// reference (`edgesRef`): a retain per node, all on one shared object, cost more than
    /// the rest of storing a leaf. `ownEdges` holds the ones this node made; shared ones are
    /// held by the sibling that made them, which lives as long as this node.
    private let ownEdges: YogaNodeEdges?
    @inline(__always) var margin: YogaEdgeValues { edgesRef._withUnsafeGuaranteedRef { $0.margin } }
    @inline(__always) var padding: YogaEdgeValues { edgesRef._withUnsafeGuaranteedRef { $0.padding } }
    @inline(__always) var border: YogaEdgeValues { edgesRef._withUnsafeGuaranteedRef { $0.border } }
    @inline(__always) var position: YogaEdgeValues { edgesRef._withUnsafeGuaranteedRef { $0.position } }
    /// Grows to `maxCachedMeasurements` entries as measurements come (most nodes need none).
    var cachedMeasurements: [YogaCacheEntry] = []
    var nextCachedMeasurement = 0
    /// A container's memos, made on its first layout (leaves never have one).
    var memo: YogaNodeMemo?

    /// The last layout the measure function got for this leaf (its baseline metrics).
    var lastMeasuredLayout: Layout?

    /// A subtree whose measurements are pure functions of their inputs and, on an at-most
    /// axis, of nothing but the mode once the size exceeds `slack` (`YogaLayoutPass.measureKey`):
    /// no measured leaves, percentages, min/max, flex basis, aspect ratio, wrapping,
    /// absolute children or baselines anywhere in it.
    let isPure: Bool
    /// Above this at-most size no node of the subtree sees a size of 0 or less: the sum of
    /// the largest margin, padding and border sides down the deepest path, twice.
    let slack: Float

    static let maxCachedMeasurements = 16

    /// The Yoga node of `element` and, depth first, of its Yoga children. A static function
    /// rather than an initializer, and every reference lent rather than retained: an
    /// initializer takes its arguments +1, and each retain and release costs an atomic
    /// operation per node, about as much as the rest of building it.
    static func build(_ element: DisplayNode, hasOwner: Bool, parentAlignItems: StackLayoutAlignItems?,
                      underBaseline: Bool = false, sibling: Unmanaged<YogaNodeEdges>? = nil) -> YogaNode {
        // The Yoga style and children live in `rare`, which the element holds for the tree's life.
        let rare = element.rare.map { Unmanaged.passUnretained($0) }
        var y = Fields()
        var edges = Unmanaged.passUnretained(YogaNodeEdges.none)
        var madeEdges: YogaNodeEdges?
        var childCount = 0
        rare?._withUnsafeGuaranteedRef { r in
            childCount = r.yogaChildren.count
            guard let box = r.yogaStyle.map({ Unmanaged.passUnretained($0) }) else { return }
            box._withUnsafeGuaranteedRef { box in
                // Read in place: a copy of the whole Yoga style per field read costs more.
                y = fields(box)
                (edges, madeEdges) = YogaNodeEdges.of(box, sibling: sibling)
            }
        }
        let style = resolved(element, y, hasMeasure: childCount == 0 && element.isMeasuredYogaLeaf)
        let baselineBelow = underBaseline || style.alignItems == .baseline
        var made: [YogaNode] = []
        if childCount > 0, let rare {
            let childAlign = y.alignItems
            // Each child element lent without reference counting (the array holds them), each
            // new node moved into place (appending would retain and release it).
            made = rare._withUnsafeGuaranteedRef { r in r.yogaChildren.withUnsafeBufferPointer { buffer in
                let refs = UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Unmanaged<DisplayNode>.self)
                return [YogaNode](unsafeUninitializedCapacity: buffer.count) { slots, initialized in
                    var previous: Unmanaged<YogaNodeEdges>?
                    for i in 0..<buffer.count {
                        let node = refs[i]._withUnsafeGuaranteedRef {
                            build($0, hasOwner: true, parentAlignItems: childAlign, underBaseline: baselineBelow, sibling: previous)
                        }
                        previous = node.edgesRef
                        slots.initializeElement(at: i, to: node)
                        initialized = i + 1
                    }
                }
            } }
        }
        // Purity, from the style and the children just made (read without retaining them).
        let (hasPercent, largestPoints) = edges._withUnsafeGuaranteedRef { ($0.hasPercent, $0.largestPoints) }
        var pure = !style.hasMeasure && !baselineBelow && !style.isAbsolute && style.wrap == .noWrap && style.aspectRatio.isNaN
            && style.flexBasis.isUndefined && !style.dimensions.0.isPercent && !style.dimensions.1.isPercent
            && style.minDimensions.0.isUndefined && style.minDimensions.1.isUndefined
            && style.maxDimensions.0.isUndefined && style.maxDimensions.1.isUndefined && !hasPercent
        var deepest: Float = 0
        if pure {
            made.withUnsafeBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                let refs = UnsafeRawPointer(base).assumingMemoryBound(to: Unmanaged<YogaNode>.self)
                for i in 0..<buffer.count where pure {
                    refs[i]._withUnsafeGuaranteedRef { child in
                        pure = child.isPure
                        deepest = Swift.max(deepest, child.slack)
                    }
                }
            }
        }
        let slack: Float = pure ? 2 * largestPoints + deepest : 0
        return YogaNode(Unmanaged.passUnretained(element), hasOwner: hasOwner, parentAlignItems: parentAlignItems,
                        style: style, edges: edges, ownEdges: madeEdges, children: made, isPure: pure, slack: slack)
    }

    private init(_ element: Unmanaged<DisplayNode>, hasOwner: Bool, parentAlignItems: StackLayoutAlignItems?, style r: Resolved,
                 edges: Unmanaged<YogaNodeEdges>, ownEdges: YogaNodeEdges?, children: [YogaNode], isPure: Bool, slack: Float) {
        self.element = element.takeUnretainedValue()
        self.hasOwner = hasOwner
        self.parentAlignItems = parentAlignItems
        self.ownEdges = ownEdges
        edgesRef = edges
        self.children = children
        hasMeasure = r.hasMeasure
        flexDirection = r.flexDirection
        direction = r.direction
        justifyContent = r.justifyContent
        alignItems = r.alignItems
        alignSelf = r.alignSelf
        wrap = r.wrap
        isAbsolute = r.isAbsolute
        dimensions = r.dimensions
        minDimensions = r.minDimensions
        maxDimensions = r.maxDimensions
        hasMinOrMax = !(r.minDimensions.0.isUndefined && r.minDimensions.1.isUndefined
                        && r.maxDimensions.0.isUndefined && r.maxDimensions.1.isUndefined)
        flexBasis = r.flexBasis
        flexGrow = r.flexGrow
        flexShrink = r.flexShrink
        aspectRatio = r.aspectRatio
        self.isPure = isPure
        self.slack = slack
    }

    /// The node's style as the pass reads it (`build`).
    struct Resolved {
        var flexDirection: YogaAxis
        var direction: YogaResolvedDirection
        var justifyContent: YogaJustify
        var alignItems: YogaAlign
        var alignSelf: YogaAlign
        var wrap: YogaWrap
        var isAbsolute: Bool
        var dimensions, minDimensions, maxDimensions: (YogaValue, YogaValue)
        var flexBasis: YogaValue
        var flexGrow, flexShrink, aspectRatio: Float
        var hasMeasure: Bool
    }

    /// The Yoga-only fields `y` and the shared style fields of `element`, as Yoga keeps them.
    @inline(__always)
    private static func resolved(_ element: DisplayNode, _ y: Fields, hasMeasure: Bool) -> Resolved {
        let flexDirection: YogaAxis, direction: YogaResolvedDirection, justifyContent: YogaJustify
        let alignItems: YogaAlign, alignSelf: YogaAlign
        switch y.flexDirection {
        case .vertical: flexDirection = .column
        case .verticalReverse: flexDirection = .columnReverse
        case .horizontal: flexDirection = .row
        case .horizontalReverse: flexDirection = .rowReverse
        }
        switch y.direction {
        case .inherit: direction = .inherit
        case .ltr: direction = .ltr
        case .rtl: direction = .rtl
        }
        switch y.justifyContent {
        case .start: justifyContent = .flexStart
        case .center: justifyContent = .center
        case .end: justifyContent = .flexEnd
        case .spaceBetween: justifyContent = .spaceBetween
        case .spaceAround: justifyContent = .spaceAround
        }
        let yogaAlignItems = y.alignItems
        switch yogaAlignItems {
        case .start: alignItems = .flexStart
        case .end: alignItems = .flexEnd
        case .center: alignItems = .center
        case .stretch: alignItems = .stretch
        case .baselineFirst, .baselineLast: alignItems = .baseline
        }
        switch element.style.alignSelf {
        case .auto: alignSelf = .auto
        case .start: alignSelf = .flexStart
        case .end: alignSelf = .flexEnd
        case .center: alignSelf = .center
        case .stretch: alignSelf = .stretch
        }
        let st = element.style
        let aspectRatio: Float
        if let r = y.aspectRatio, Float(r) > Float.ulpOfOne { aspectRatio = Float(r) } else { aspectRatio = .nan }
        return Resolved(flexDirection: flexDirection, direction: direction, justifyContent: justifyContent,
                        alignItems: alignItems, alignSelf: alignSelf, wrap: y.flexWrap, isAbsolute: y.isAbsolute,
                        dimensions: (YogaValue(st.width), YogaValue(st.height)),
                        minDimensions: (YogaValue(st.minWidth), YogaValue(st.minHeight)),
                        maxDimensions: (YogaValue(st.maxWidth), YogaValue(st.maxHeight)),
                        flexBasis: YogaValue(st.flexBasis), flexGrow: Float(st.flexGrow), flexShrink: Float(st.flexShrink),
                        aspectRatio: aspectRatio, hasMeasure: hasMeasure)
    }

    /// The Yoga-only style fields as the node keeps them.
    struct Fields {
        var flexDirection = YogaFlexDirection.vertical
        var direction = YogaDirection.inherit
        var justifyContent = StackLayoutJustifyContent.start
        var alignItems = StackLayoutAlignItems.stretch
        var flexWrap = YogaWrap.noWrap
        var isAbsolute = false
        var aspectRatio: Double?
    }

    /// The box's fields, read where they are.
    @inline(__always) private static func fields(_ box: LayoutElement.YogaStyleBox) -> Fields {
        var f = Fields()
        f.flexDirection = box.style.flexDirection
        f.direction = box.style.direction
        f.justifyContent = box.style.justifyContent
        f.alignItems = box.style.alignItems
        f.flexWrap = box.style.flexWrap
        f.isAbsolute = box.style.positionType == .absolute
        f.aspectRatio = box.style.aspectRatio
        return f
    }

    /// Child `i`, lent to `body` without reference counting (the node holds its children for
    /// as long as it lives): the pass's loops over children would otherwise retain each one.
    @inline(__always) func withChild<R>(_ i: Int, _ body: (YogaNode) throws -> R) rethrows -> R {
        try children.withUnsafeBufferPointer { buffer in
            try UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped).assumingMemoryBound(to: Unmanaged<YogaNode>.self)[i]
                ._withUnsafeGuaranteedRef(body)
        }
    }

    // MARK: Style accessors (`YGNode`)

    @inline(__always) func minDimension(_ d: Int) -> YogaValue { d == 0 ? minDimensions.0 : minDimensions.1 }
    @inline(__always) func maxDimension(_ d: Int) -> YogaValue { d == 0 ? maxDimensions.0 : maxDimensions.1 }
    @inline(__always) func measured(_ d: Int) -> Float { d == 0 ? measuredDimensions.0 : measuredDimensions.1 }
    @inline(__always) func setMeasured(_ d: Int, _ v: Float) { if d == 0 { measuredDimensions.0 = v } else { measuredDimensions.1 = v } }

    /// `resolveDimension`: a max equal to the min stands for the size.
    @inline(__always) func resolvedDimension(_ d: Int) -> YogaValue {
        if hasMinOrMax {
            let mx = maxDimension(d)
            if !mx.isUndefined && mx == minDimension(d) { return mx }
        }
        return d == 0 ? dimensions.0 : dimensions.1
    }

    /// `resolveDirection`.
    @inline(__always) func resolveDirection(_ owner: YogaResolvedDirection) -> YogaResolvedDirection {
        if direction == .inherit { return owner.rawValue > 0 ? owner : .ltr }
        return direction
    }

    @inline(__always) var resolvedFlexGrow: Float { hasOwner ? flexGrow : 0 }
    @inline(__always) var resolvedFlexShrink: Float { hasOwner ? flexShrink : 0 }
    @inline(__always) var isFlexible: Bool { !isAbsolute && (resolvedFlexGrow != 0 || resolvedFlexShrink != 0) }

    /// `resolveFlexBasisPtr`: auto unless set (Texture never sets `flex`).
    @inline(__always) var resolvedFlexBasis: YogaValue { flexBasis }

    // MARK: Edges

    @inline(__always) func leadingMargin(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        edgesRef._withUnsafeGuaranteedRef { $0.margin(axis, leading: true, widthSize) }
    }
    @inline(__always) func trailingMargin(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        edgesRef._withUnsafeGuaranteedRef { $0.margin(axis, leading: false, widthSize) }
    }
    @inline(__always) func marginForAxis(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        leadingMargin(axis, widthSize) + trailingMargin(axis, widthSize)
    }
    @inline(__always) func leadingPadding(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        let v = padding.side(axis, leading: true)
        return v.isUndefined ? 0 : ygMax(v.resolve(widthSize), 0)
    }
    @inline(__always) func trailingPadding(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        let v = padding.side(axis, leading: false)
        return v.isUndefined ? 0 : ygMax(v.resolve(widthSize), 0)
    }
    @inline(__always) func leadingBorder(_ axis: YogaAxis) -> Float {
        let v = border.side(axis, leading: true)
        if case .point(let p) = v { return ygMax(p, 0) }
        return 0
    }
    @inline(__always) func trailingBorder(_ axis: YogaAxis) -> Float {
        let v = border.side(axis, leading: false)
        if case .point(let p) = v { return ygMax(p, 0) }
        return 0
    }
    @inline(__always) func leadingPaddingAndBorder(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        leadingPadding(axis, widthSize) + leadingBorder(axis)
    }
    @inline(__always) func trailingPaddingAndBorder(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        trailingPadding(axis, widthSize) + trailingBorder(axis)
    }
    /// `YGNodePaddingAndBorderForAxis`.
    @inline(__always) func paddingAndBorder(_ axis: YogaAxis, _ widthSize: Float) -> Float {
        guard edgesRef._withUnsafeGuaranteedRef({ $0.hasPaddingOrBorder }) else { return 0 }
        return leadingPaddingAndBorder(axis, widthSize) + trailingPaddingAndBorder(axis, widthSize)
    }

    @inline(__always) func isLeadingPositionDefined(_ axis: YogaAxis) -> Bool { !position.side(axis, leading: true).isUndefined }
    @inline(__always) func isTrailingPositionDefined(_ axis: YogaAxis) -> Bool { !position.side(axis, leading: false).isUndefined }
    /// Unset sides are 0.
    @inline(__always) func leadingPosition(_ axis: YogaAxis, _ axisSize: Float) -> Float {
        let v = position.side(axis, leading: true)
        return v.isUndefined ? 0 : v.resolve(axisSize)
    }
    @inline(__always) func trailingPosition(_ axis: YogaAxis, _ axisSize: Float) -> Float {
        let v = position.side(axis, leading: false)
        return v.isUndefined ? 0 : v.resolve(axisSize)
    }
    /// `relativePosition`: the leading offset, else minus the trailing one.
    @inline(__always) func relativePosition(_ axis: YogaAxis, _ axisSize: Float) -> Float {
        guard edgesRef._withUnsafeGuaranteedRef({ $0.hasPosition }) else { return 0 }
        if isLeadingPositionDefined(axis) { return leadingPosition(axis, axisSize) }
        let t = position.side(axis, leading: false)
        if t.isUndefined { return 0 }
        return -t.resolve(axisSize)
    }

    /// `setPosition`: margins plus relative offsets on the node's own axes.
    func setPosition(_ direction: YogaResolvedDirection, mainSize: Float, crossSize: Float, ownerWidth: Float) {
        let dir = hasOwner ? direction : .ltr
        let mainAxis = flexDirection.resolved(dir)
        let crossAxis = mainAxis.cross(dir)
        let relMain = relativePosition(mainAxis, mainSize)
        let relCross = relativePosition(crossAxis, crossSize)
        layoutPosition[mainAxis.leading] = leadingMargin(mainAxis, ownerWidth) + relMain
        layoutPosition[mainAxis.trailing] = trailingMargin(mainAxis, ownerWidth) + relMain
        layoutPosition[crossAxis.leading] = leadingMargin(crossAxis, ownerWidth) + relCross
        layoutPosition[crossAxis.trailing] = trailingMargin(crossAxis, ownerWidth) + relCross
    }

    /// `markDirtyAndPropagate` for the root (it has no owner).
    func markDirty() {
        if !isDirty {
            isDirty = true
            computedFlexBasis = .nan
        }
    }
}

extension DisplayNode {
    /// A Yoga leaf with a layout method of its own (§1): anything but a bare node.
    var isMeasuredYogaLeaf: Bool {
        layoutSpec != nil || intrinsicSize != nil || type(of: self) != DisplayNode.self
    }
}

/// A node's edge values, shared between nodes whose styles set the same edges.
final class YogaNodeEdges {
    let margin: YogaEdgeValues
    let padding: YogaEdgeValues
    let border: YogaEdgeValues
    let position: YogaEdgeValues
    /// Whether a margin, padding or position side reads a percentage.
    let hasPercent: Bool
    /// The margins in points (unset sides 0), what a margin reads unless one is a percentage.
    private let marginPoints: YogaFloat6
    private let marginHasPercent: Bool
    /// Whether a padding or border side is set (without one, both are 0 on every side).
    let hasPaddingOrBorder: Bool
    /// Whether a position side is set.
    let hasPosition: Bool
    /// The largest margin, padding and border sides, summed (`YogaNode.slack`).
    let largestPoints: Float
    /// The style these were made from (nil: none), which a sibling's is compared with.
    private let source: LayoutElement.YogaStyleBox?

    private init(margin: YogaEdgeValues, padding: YogaEdgeValues, border: YogaEdgeValues, position: YogaEdgeValues,
                 source: LayoutElement.YogaStyleBox?) {
        self.margin = margin; self.padding = padding; self.border = border; self.position = position
        self.source = source
        hasPercent = margin.hasPercent || padding.hasPercent || position.hasPercent
        marginPoints = margin.points
        marginHasPercent = margin.hasPercent
        hasPaddingOrBorder = !padding.isEmpty || !border.isEmpty
        hasPosition = !position.isEmpty
        largestPoints = margin.largestPoints + padding.largestPoints + border.largestPoints
    }

    /// A margin side as Yoga reads it: unset is 0, a percentage is of `widthSize`.
    @inline(__always) func margin(_ axis: YogaAxis, leading: Bool, _ widthSize: Float) -> Float {
        if !marginHasPercent { return marginPoints[YogaEdgeValues.slot(axis, leading: leading)] }
        let v = margin.side(axis, leading: leading)
        return v.isUndefined ? 0 : v.resolve(widthSize)
    }

    /// No edge set.
    static let none = YogaNodeEdges(margin: YogaEdgeValues(), padding: YogaEdgeValues(), border: YogaEdgeValues(),
                                    position: YogaEdgeValues(), source: nil)

    /// The edges of `box`: the previous sibling's when its style sets the same ones (compared
    /// as set, before their conversion, which costs more than the comparison), else made.
    @inline(__always) static func of(_ box: LayoutElement.YogaStyleBox, sibling: Unmanaged<YogaNodeEdges>?)
        -> (Unmanaged<YogaNodeEdges>, YogaNodeEdges?) {
        // Read through `box` in place: a local copy of the style would cost more than this.
        if let sibling, sibling._withUnsafeGuaranteedRef({ $0.sameEdges(as: box) }) { return (sibling, nil) }
        let margin = YogaEdgeValues(box.style.margin), padding = YogaEdgeValues(box.style.padding)
        let border = YogaEdgeValues(box.style.border), position = YogaEdgeValues(box.style.position)
        if margin.isEmpty && padding.isEmpty && border.isEmpty && position.isEmpty { return (Unmanaged.passUnretained(none), nil) }
        let made = YogaNodeEdges(margin: margin, padding: padding, border: border, position: position, source: box)
        return (Unmanaged.passUnretained(made), made)
    }

    /// Whether `box` sets the edges these were made from.
    @inline(__always) private func sameEdges(as box: LayoutElement.YogaStyleBox) -> Bool {
        guard let other = source.map({ Unmanaged.passUnretained($0) }) else {
            return box.style.margin.isEmpty && box.style.padding.isEmpty && box.style.border.isEmpty && box.style.position.isEmpty
        }
        return other._withUnsafeGuaranteedRef { other in
            other === box || (other.style.margin == box.style.margin && other.style.padding == box.style.padding
                              && other.style.border == box.style.border && other.style.position == box.style.position)
        }
    }
}
