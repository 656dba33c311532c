/// Texture's glue around Yoga (docs/yoga.md §2, §4.2, §5.4): a Yoga root measured by the
/// spec engine runs one Yoga pass over its tree, which it keeps for the whole request so
/// that Yoga's caches and computed flex bases carry from pass to pass as in Texture.

/// A Yoga assertion hit while laying out a Yoga root (Texture would crash). The service
/// answers `invalid_spec` with the path of `root`.
public struct YogaFailure: Sendable, Equatable {
    /// The Yoga root whose tree failed.
    public let root: ObjectIdentifier
    /// Yoga's assertion message.
    public let reason: String
    public init(root: ObjectIdentifier, reason: String) { self.root = root; self.reason = reason }
}

/// One Yoga root's tree and its pass count (Yoga's generation).
final class YogaTree {
    let root: YogaNode
    private var generation = 0
    /// The context of the pass under way (set for each pass; elements never outlive it).
    unowned(unsafe) var context: LayoutContext

    init(_ element: DisplayNode, context: LayoutContext) {
        root = YogaNode.build(element, hasOwner: false, parentAlignItems: nil)
        self.context = context
    }

    /// `calculateLayoutFromYogaRoot:` for the range the spec engine resolved (§2).
    func layout(_ used: SizeRange, context: LayoutContext) -> Layout {
        self.context = context
        let minWidth = YogaTree.minValue(used.min.width), minHeight = YogaTree.minValue(used.min.height)
        if minWidth != root.minDimensions.0 || minHeight != root.minDimensions.1 {
            root.minDimensions = (minWidth, minHeight)
            root.markDirty()
        }
        do {
            try calculateLayout(ownerWidth: yogaFloat(used.max.width), ownerHeight: yogaFloat(used.max.height))
        } catch YogaInterruption.fatal(let reason) {
            context.reportYogaFailure(YogaFailure(root: ObjectIdentifier(root.element), reason: reason))
            return Layout(size: .zero, ascender: root.element.style.ascender, descender: root.element.style.descender, grid: context.grid)
        } catch {
            return context.placeholder
        }
        return makeLayout(root)
    }

    private static func minValue(_ v: Double) -> YogaValue {
        let f = yogaFloat(v)
        return f.isNaN ? .undefined : .point(f)
    }

    /// `YGNodeCalculateLayout(root, W, H, inherit)`: the root's own size and mode per axis,
    /// the layout, then position and rounding when anything was computed.
    private func calculateLayout(ownerWidth: Float, ownerHeight: Float) throws {
        generation += 1
        let pass = YogaLayoutPass(scale: Float(context.grid.scale), generation: generation, host: self, context: context,
                                  charged: root.element)
        let (width, widthMode) = rootSize(pass, .row, ownerWidth, ownerWidth: ownerWidth)
        let (height, heightMode) = rootSize(pass, .column, ownerHeight, ownerWidth: ownerWidth)
        if try pass.layoutNode(root, width, height, .inherit, widthMode, heightMode, ownerWidth, ownerHeight, performLayout: true) {
            root.setPosition(root.layoutDirection, mainSize: ownerWidth, crossSize: ownerHeight, ownerWidth: ownerWidth)
            YogaRounding.roundTree(root, scale: Double(Float(context.grid.scale)), absoluteLeft: 0, absoluteTop: 0)
        }
    }

    /// A style size (plus margins) is exact; else a style max is at most; else the available
    /// size is exact (undefined when it is undefined).
    private func rootSize(_ pass: YogaLayoutPass, _ axis: YogaAxis, _ owner: Float, ownerWidth: Float) -> (Float, YogaMeasureMode) {
        let d = axis.dimension
        if pass.isStyleDimDefined(root, axis, owner) {
            return (root.resolvedDimension(d).resolve(owner) + root.marginForAxis(axis, ownerWidth), .exactly)
        }
        let mx = root.maxDimension(d).resolve(owner)
        if !mx.isNaN { return (mx, .atMost) }
        return (owner, owner.isNaN ? .undefined : .exactly)
    }

    // MARK: Texture's layouts from Yoga's numbers (§4.2, §5.4)

    /// A node's layout: Yoga's size (invalid → 0×0) and its children at their positions
    /// (invalid → origin), both pixel-ceiled from the float values; a measured leaf's own
    /// layout laid out again at its final size.
    private func makeLayout(_ node: YogaNode) -> Layout {
        let grid = context.grid
        let size = Size(width: Double(node.layoutDimensions.0), height: Double(node.layoutDimensions.1))
        if node.hasMeasure {
            let final = validSize(size) ? grid.ceil(size) : .zero
            let own = node.element.layoutThatFits(SizeRange(exactly: final), parentSize: final, context: context)
            return Layout(size: size, sublayouts: own.sublayouts, ascender: own.ascender, descender: own.descender, text: own.text, grid: grid)
        }
        let count = node.children.count
        var sublayouts: [Sublayout] = []
        // (Reserving nothing would still allocate a buffer, once per leaf.)
        if count > 0 { sublayouts.reserveCapacity(count) }
        for slot in 0..<count { node.withChild(slot) { child in
            let x = Double(child.layoutPosition[YogaEdge.left]), y = Double(child.layoutPosition[YogaEdge.top])
            let position = YogaTree.validPosition(x) && YogaTree.validPosition(y) ? Point(x: grid.ceil(x), y: grid.ceil(y)) : Point(x: 0, y: 0)
            sublayouts.append(Sublayout(slot: slot, position: position, layout: makeLayout(child)))
        } }
        // Read through a lent reference: the node does not hold its element.
        let (ascender, descender) = Unmanaged.passUnretained(node.element)._withUnsafeGuaranteedRef {
            ($0.style.ascender, $0.style.descender)
        }
        return Layout(size: size, sublayouts: sublayouts, ascender: ascender, descender: descender, grid: grid)
    }

    private static func validPosition(_ v: Double) -> Bool { v.isFinite && v < 1e7 }
}

extension DisplayNode {
    /// The spec engine's entry into Yoga: this node is a Yoga root measured in `used`.
    func yogaRootLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        let tree: YogaTree
        if let t = yogaTree as? YogaTree { tree = t } else { tree = YogaTree(self, context: context); yogaTree = tree }
        return tree.layout(used, context: context)
    }
}
