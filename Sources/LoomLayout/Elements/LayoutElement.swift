/// `ASLayoutElement`: anything that can be measured with a size range, a layout spec or a
/// display node. Each subclass has one job: `calculateLayout(_:context:)`, its layout for
/// the range it was given after its own style was applied.
///
/// An element tree is built once per request and then only read, except for the small
/// per-element memo of recent measurements (Texture's `_calculatedDisplayNodeLayout`), which
/// is touched only by the thread measuring that element.
open class LayoutElement {
    /// The element's style (`ASLayoutElementStyle`). Inlinable accessors, as `id`'s; read
    /// in place (`_read`), so that reading a field or handing the style on does not copy it.
    @inlinable public final var style: LayoutElementStyle {
        _read { yield storedStyle }
        _modify { yield &storedStyle }
    }
    @usableFromInline final var storedStyle: LayoutElementStyle
    /// The client's id, carried to the output. Never part of the layout. Read and written
    /// through inlinable accessors, as `layoutChildren` is: the encoder and the hash read it
    /// for every element, and through a plain public property each read was a call.
    @inlinable public final var id: String? {
        get { storedId }
        set { storedId = newValue }
    }
    @usableFromInline final var storedId: String?
    /// Digest of the subtree for the shared subtree cache; nil = do not share.
    public var digest: ElementDigest?

    /// Recent measurements: a few inline, then a table for elements measured under many
    /// ranges (nested flexing and stretching re-measure children under several ranges).
    private var memoKey0: MemoKey?
    private var memoLayout0: Layout?
    private var memoKey1: MemoKey?
    private var memoLayout1: Layout?
    private var memoKeys: [MemoKey] = []
    private var memoLayouts: [Layout] = []
    /// What few elements have (a large memo table, Texture's path memo, Yoga's fields), out
    /// of line: one reference, so that every element stays as small as before Yoga.
    final var rare: Rare?
    fileprivate struct MemoKey: Hashable {
        let bits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)
        init(_ c: SizeRange, _ p: Size) {
            bits = (c.min.width.bitPattern, c.min.height.bitPattern, c.max.width.bitPattern, c.max.height.bitPattern,
                    p.width.bitPattern, p.height.bitPattern)
        }
        static func == (a: MemoKey, b: MemoKey) -> Bool { a.bits == b.bits }
        func hash(into h: inout Hasher) {
            h.combine(bits.0); h.combine(bits.1); h.combine(bits.2); h.combine(bits.3); h.combine(bits.4); h.combine(bits.5)
        }
    }
    private static let inlineMemoCapacity = 6

    final class Rare {
        /// The memo beyond the inline slots; nil until needed.
        fileprivate var memoTable: [MemoKey: Layout]?
        /// Texture's own memo for path-dependent elements: only a call equal to the previous
        /// one (NaN never equal) returns the previous layout; every other call measures again.
        fileprivate var pathLast: (constrained: SizeRange, parentSize: Size, layout: Layout)?
        /// Calls answered from the shared subtree cache while the element was fresh: measured
        /// again, in order, before the next call that computes.
        fileprivate var pathReplay: [(SizeRange, Size)] = []
        /// A node's Yoga children, Yoga tree and Yoga style (`DisplayNode`).
        var yogaChildren: [DisplayNode] = []
        var yogaTree: AnyObject?
        /// Boxed: a field of it is then read in place, without copying the whole struct.
        var yogaStyle: YogaStyleBox?
    }
    /// A node's Yoga style, stored once and shareable between nodes with equal styles
    /// (`DisplayNode.yogaStyleBox`). Immutable.
    public final class YogaStyleBox {
        public let style: YogaStyle
        public init(_ style: borrowing YogaStyle) { self.style = copy style }
        /// `previous` when it stores a style equal to `style`, else a new box: how nodes come
        /// to share one stored style.
        public static func stored(_ style: borrowing YogaStyle, sharing previous: YogaStyleBox?) -> YogaStyleBox {
            if let previous, previous.style == style { return previous }
            return YogaStyleBox(style)
        }
    }
    /// `rare`, made on first use.
    final func madeRare() -> Rare {
        if let rare { return rare }
        let made = Rare()
        rare = made
        return made
    }

    /// Whether this element's layout can depend on the parent size it is measured with: its
    /// own style uses fractions, or it hands its parent size to a child that does (inset,
    /// overlay and background pass it on; every other container derives its children's
    /// parent size from its own range). When false, measurements are shared across parent
    /// sizes, which gives the same layouts with far fewer computations.
    public private(set) lazy var usesParentSize: Bool = {
        let s = style
        if s.width.isFraction || s.height.isFraction || s.minWidth.isFraction || s.maxWidth.isFraction
            || s.minHeight.isFraction || s.maxHeight.isFraction { return true }
        return childrenReceivingParentSize.contains { $0.usesParentSize }
    }()

    /// Whether measuring this element changes state a later measurement reads: it is or
    /// holds a Yoga root, whose Yoga tree keeps caches between passes (docs/yoga.md §2).
    /// Known when the element is made, from its children (a node's Yoga children are set
    /// before it is given to a parent). Declared here, it fills `usesParentSize`'s padding.
    @exclusivity(unchecked) public final internal(set) var isPathDependent: Bool

    /// The children this element measures with its own parent size (derived or not).
    open var childrenReceivingParentSize: [LayoutElement] { [] }

    public init(style: LayoutElementStyle = LayoutElementStyle(), id: String? = nil, layoutChildren: [LayoutElement] = []) {
        storedStyle = style
        storedId = id
        storedChildren = layoutChildren
        isPathDependent = layoutChildren.contains { $0.isPathDependent }
    }

    /// Display nodes own a flattened layout; specs disappear when flattening.
    open var isDisplayNode: Bool { false }

    /// The elements this element lays out; `Sublayout.slot` indexes this array.
    @inlinable public final var layoutChildren: [LayoutElement] { storedChildren }
    /// `layoutChildren`'s storage (`DisplayNode.yogaChildren` replaces it): read through an
    /// inlinable getter, so that other modules read it without exclusivity checks.
    @usableFromInline final var storedChildren: [LayoutElement]

    /// `layoutThatFits:parentSize:` — measure this element in `constrained`, with the size
    /// of its parent (for fractions; NaN = undefined). Memoised per element and, when a
    /// digest is set, in the context's shared subtree cache. Each measurement computed is
    /// charged to the context's budget; once the pass has stopped, the context's
    /// placeholder is returned at once and nothing is memoised or cached.
    public final func layoutThatFits(_ constrained: SizeRange, parentSize: Size, context: LayoutContext) -> Layout {
        if _slowPath(isPathDependent) { return pathDependentLayoutThatFits(constrained, parentSize: parentSize, context: context) }
        // A parent size this element never reads is normalised away, for the memo and the cache.
        let parent = usesParentSize ? parentSize : .zero
        let memoKey = MemoKey(constrained, parent)
        if memoKey0 == memoKey { return memoLayout0! }
        if memoKey1 == memoKey { return memoLayout1! }
        if let k = memoKeys.firstIndex(of: memoKey) { return memoLayouts[k] }
        if let rare, let table = rare.memoTable, let hit = table[memoKey] { return hit }
        if context.isStopped { return context.placeholder }
        var key: SubtreeLayoutKey?
        if let digest, let cache = context.subtreeCache {
            let k = SubtreeLayoutKey(digest: digest, constrained: constrained, parentSize: parent, scale: context.grid.scale)
            if let hit = cache.layout(for: k) {
                guard context.charge(hit.cost, at: self) else { return context.placeholder }
                remember(hit.layout, memoKey)
                return hit.layout
            }
            key = k
        }
        guard context.charge(LayoutCost(measurements: 1), at: self) else { return context.placeholder }
        let layout: Layout
        if let key, let cache = context.subtreeCache {
            // Stored with what it cost, its own measurement and everything it measured.
            let (computed, cost) = PassTally.recording(context) {
                computeLayoutThatFits(constrained, parentSize: parentSize, context: context)
            }
            PassTally.current?.pointee.frame += cost
            if context.isStopped { return context.placeholder }
            var total = cost
            total += LayoutCost(measurements: 1)
            cache.store(CachedSubtreeLayout(layout: computed, cost: total), for: key)
            layout = computed
        } else {
            layout = computeLayoutThatFits(constrained, parentSize: parentSize, context: context)
            // A layout finished after the pass stopped may hold placeholders: never kept.
            if context.isStopped { return context.placeholder }
        }
        context.noteComputed()
        remember(layout, memoKey)
        return layout
    }

    /// Keeps `layout` until `resetMemo` or the element goes: nothing is ever evicted, and every
    /// layout `layoutThatFits` returns passes through here, which is what lets the stack
    /// algorithm hold its children's layouts unretained.
    private func remember(_ layout: Layout, _ key: MemoKey) {
        if memoKey0 == nil { memoKey0 = key; memoLayout0 = layout; return }
        if memoKey1 == nil { memoKey1 = key; memoLayout1 = layout; return }
        if memoKeys.count < LayoutElement.inlineMemoCapacity {
            memoKeys.append(key)
            memoLayouts.append(layout)
        } else {
            let rare = madeRare()
            if rare.memoTable == nil { rare.memoTable = [:] }
            rare.memoTable![key] = layout
        }
    }

    /// `layoutThatFits` of a path-dependent element, with Texture's own memo (`Rare.pathLast`).
    @inline(never)
    private func pathDependentLayoutThatFits(_ constrained: SizeRange, parentSize: Size, context: LayoutContext) -> Layout {
        let memo = madeRare()
        if let last = memo.pathLast, last.constrained == constrained, last.parentSize == parentSize { return last.layout }
        if context.isStopped { return context.placeholder }
        if memo.pathLast == nil, let digest, let cache = context.subtreeCache {
            // A fresh element's first layout depends on its subtree and the call alone.
            let parent = usesParentSize ? parentSize : .zero
            let key = SubtreeLayoutKey(digest: digest, constrained: constrained, parentSize: parent, scale: context.grid.scale)
            if let hit = cache.layout(for: key) {
                guard context.charge(hit.cost, at: self) else { return context.placeholder }
                memo.pathLast = (constrained, parentSize, hit.layout)
                memo.pathReplay.append((constrained, parentSize))
                return hit.layout
            }
            guard context.charge(LayoutCost(measurements: 1), at: self) else { return context.placeholder }
            let (computed, cost) = PassTally.recording(context) {
                computeLayoutThatFits(constrained, parentSize: parentSize, context: context)
            }
            PassTally.current?.pointee.frame += cost
            if context.isStopped { return context.placeholder }
            if context.yogaFailure == nil {
                var total = cost
                total += LayoutCost(measurements: 1)
                cache.store(CachedSubtreeLayout(layout: computed, cost: total), for: key)
            }
            context.noteComputed()
            memo.pathLast = (constrained, parentSize, computed)
            return computed
        }
        if !memo.pathReplay.isEmpty {
            let replay = memo.pathReplay
            memo.pathReplay = []
            // The cache hit was charged what these calls cost when they were computed, so
            // they run again free of charge and without the cache, as they ran then: a chain
            // of such elements is charged as the cold pass was, not once per level.
            let free = context.replaying()
            for (c, p) in replay { _ = computeLayoutThatFits(c, parentSize: p, context: free) }
        }
        guard context.charge(LayoutCost(measurements: 1), at: self) else { return context.placeholder }
        let layout = computeLayoutThatFits(constrained, parentSize: parentSize, context: context)
        if context.isStopped { return context.placeholder }
        context.noteComputed()
        memo.pathLast = (constrained, parentSize, layout)
        return layout
    }

    /// Forget memoised measurements (a tree reused for another pass, e.g. another scale).
    public func resetMemo() {
        memoKey0 = nil; memoLayout0 = nil; memoKey1 = nil; memoLayout1 = nil
        memoKeys.removeAll(keepingCapacity: true)
        memoLayouts.removeAll(keepingCapacity: true)
        if let rare { rare.memoTable = nil; rare.pathLast = nil; rare.pathReplay = [] }
        for child in layoutChildren { child.resetMemo() }
    }

    /// Texture's common first step (§3.3): the constrained range wins over the element's own
    /// style, resolved against the parent size. Inset, overlay and background override this
    /// and ignore their own style.
    open func computeLayoutThatFits(_ constrained: SizeRange, parentSize: Size, context: LayoutContext) -> Layout {
        let used = constrained.intersect(style.resolveSize(parent: parentSize))
        return calculateLayout(used, context: context)
    }

    /// The element's own layout for its `used` range.
    open func calculateLayout(_ used: SizeRange, context: LayoutContext) -> Layout {
        Layout(size: used.min, ascender: style.ascender, descender: style.descender, grid: context.grid)
    }

    /// Convenience for leaf layouts and specs that keep the style's baseline metrics.
    @inline(__always)
    public func makeLayout(_ size: Size, _ sublayouts: [Sublayout] = [], context: LayoutContext) -> Layout {
        Layout(size: size, sublayouts: sublayouts, ascender: style.ascender, descender: style.descender, grid: context.grid)
    }
}

/// `ASCalculateRootLayout`: the root element measured in `sizeRange` with parent size
/// `sizeRange.max`. A spec root is measured as the layout of an implicit plain node
/// (semantics §5), which gives the same frames and lets the output be flattened.
public func calculateRootLayout(_ root: LayoutElement, sizeRange: SizeRange, context: LayoutContext) -> Layout {
    PassTally.counting(context) { root.layoutThatFits(sizeRange, parentSize: sizeRange.max, context: context) }.0
}
