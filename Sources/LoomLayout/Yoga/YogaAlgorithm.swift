/// Yoga 2.0.1's flexbox algorithm over a `YogaNode` tree (docs/yoga.md §3–§5, §9): Loom's
/// own Swift, step for step what Yoga computes, in Float as Yoga does. One `YogaLayoutPass` is
/// one `YGNodeCalculateLayout` call.

/// Why a pass ended before its end.
enum YogaInterruption: Error {
    /// One of Yoga's fatal assertions (Texture crashes there; Loom reports `invalid_spec`).
    case fatal(String)
    /// The layout budget ran out or the pass was stopped.
    case stopped
}

/// What the algorithm needs from its host (`YogaTree`, called directly): Texture's measure
/// and baseline functions. The pass charges the budget itself (`charge`: each node laid out
/// is one measurement).

/// The values of one container's layout shared by its steps (Yoga's step 1 and 2).
struct YogaContainerFrame {
    let node: YogaNode
    let performLayout: Bool
    let direction: YogaResolvedDirection
    let mainAxis: YogaAxis
    let crossAxis: YogaAxis
    let isMainAxisRow: Bool
    let isWrap: Bool
    let availableWidth: Float
    let availableHeight: Float
    let ownerWidth: Float
    let ownerHeight: Float
    let widthMode: YogaMeasureMode
    let heightMode: YogaMeasureMode
    let marginAxisRow: Float
    let marginAxisColumn: Float
    let mainAxisOwnerSize: Float
    let crossAxisOwnerSize: Float
    let paddingAndBorderAxisMain: Float
    let leadingPaddingAndBorderCross: Float
    let paddingAndBorderAxisCross: Float
    let paddingAndBorderAxisRow: Float
    let paddingAndBorderAxisColumn: Float
    var measureModeMain: YogaMeasureMode
    let measureModeCross: YogaMeasureMode
    let availableInnerWidth: Float
    let availableInnerHeight: Float
    var availableInnerMainDim: Float
    let availableInnerCrossDim: Float
    var flexBasisOverflows = false
    var lineCount = 0
    var totalLineCrossDim: Float = 0
    var maxLineMainDim: Float = 0
}

/// One flex line (`YGCollectFlexItemsRowValues`).
struct YogaFlexLine {
    var itemsOnLine = 0
    var sizeConsumed: Float = 0
    var totalFlexGrowFactors: Float = 0
    var totalFlexShrinkScaledFactors: Float = 0
    var endOfLineIndex = 0
    /// The line's children are those of `start..<endOfLineIndex` that are not absolute.
    var start = 0
    var remainingFreeSpace: Float = 0
    var mainDim: Float = 0
    var crossDim: Float = 0
}

final class YogaLayoutPass {
    let scale: Float
    let generation: Int
    /// The tree being laid out; it owns the pass for its whole duration.
    unowned(unsafe) let host: YogaTree
    /// The pass's context and the Yoga root's element, which every node's layout is charged
    /// to: read without reference counting (the tree holds both while the pass runs).
    private let contextRef: Unmanaged<LayoutContext>
    private let chargedRef: Unmanaged<LayoutElement>
    /// This thread's tally of the pass's work, read once (a thread-local lookup per node
    /// otherwise); measured leaves' layouts in between leave it as they found it.
    private let tally = PassTally.current

    init(scale: Float, generation: Int, host: YogaTree, context: LayoutContext, charged: LayoutElement) {
        self.scale = scale
        self.generation = generation
        self.host = host
        contextRef = Unmanaged.passUnretained(context)
        chargedRef = Unmanaged.passUnretained(charged)
    }

    /// Charges one node's layout as one measurement; stops the pass when the budget is spent
    /// or the pass was stopped.
    @inline(__always) private func charge() throws {
        let ok = contextRef._withUnsafeGuaranteedRef { context in
            chargedRef._withUnsafeGuaranteedRef { context.charge(LayoutCost(measurements: 1), at: $0, tally: tally) } && !context.isStopped
        }
        if !ok { throw YogaInterruption.stopped }
    }

    // MARK: The call every node is laid out through (`YGLayoutNodeInternal`)

    /// Lays `node` out or measures it, reusing a cached result where Yoga does. Returns
    /// whether it computed anything.
    @discardableResult
    func layoutNode(_ node: YogaNode, _ availableWidth: Float, _ availableHeight: Float, _ ownerDirection: YogaResolvedDirection,
                    _ widthMode: YogaMeasureMode, _ heightMode: YogaMeasureMode, _ ownerWidth: Float, _ ownerHeight: Float,
                    performLayout: Bool) throws -> Bool {
        let needToVisit = (node.isDirty && node.generation != generation) || node.lastOwnerDirection != ownerDirection.rawValue
        if needToVisit {
            node.nextCachedMeasurement = 0
            node.cachedLayout.widthMode = -1
            node.cachedLayout.heightMode = -1
            node.cachedLayout.computedWidth = -1
            node.cachedLayout.computedHeight = -1
        }
        var cached: YogaCacheEntry?
        if node.hasMeasure {
            let marginRow = node.marginForAxis(.row, ownerWidth)
            let marginColumn = node.marginForAxis(.column, ownerWidth)
            if canUseCached(widthMode, availableWidth, heightMode, availableHeight, node.cachedLayout, marginRow, marginColumn) {
                cached = node.cachedLayout
            } else {
                for i in 0..<node.nextCachedMeasurement
                where canUseCached(widthMode, availableWidth, heightMode, availableHeight, node.cachedMeasurements[i], marginRow, marginColumn) {
                    cached = node.cachedMeasurements[i]
                    break
                }
            }
        } else if performLayout {
            let c = node.cachedLayout
            if ygEqual(c.availableWidth, availableWidth) && ygEqual(c.availableHeight, availableHeight)
                && c.widthMode == widthMode.rawValue && c.heightMode == heightMode.rawValue {
                cached = c
            }
        } else {
            for i in 0..<node.nextCachedMeasurement {
                let c = node.cachedMeasurements[i]
                if ygEqual(c.availableWidth, availableWidth) && ygEqual(c.availableHeight, availableHeight)
                    && c.widthMode == widthMode.rawValue && c.heightMode == heightMode.rawValue {
                    cached = c
                    break
                }
            }
        }

        if !needToVisit, let cached {
            node.measuredDimensions = (cached.computedWidth, cached.computedHeight)
        } else {
            if !performLayout && !node.children.isEmpty {
                // Likewise for a measurement.
                let key = measureKey(node, availableWidth, availableHeight, ownerWidth, ownerHeight, widthMode, heightMode, ownerDirection)
                if let memo = node.memo, memo.generation == generation, let record = memo.measurements.find(key) {
                    node.measuredDimensions = record.measured
                    restoreLines(node, record.childLines)
                } else {
                    try layoutImpl(node, availableWidth, availableHeight, ownerDirection, widthMode, heightMode,
                                   ownerWidth, ownerHeight, performLayout: false)
                    startMemo(node).measurements.set(key, YogaMeasureRecord(measured: node.measuredDimensions, childLines: lines(node)))
                }
            } else if performLayout && !node.children.isEmpty && node.hasOwner {
                // A full layout this pass already computed with the same inputs gives the same
                // result: its record is restored instead (Yoga recomputes, exponentially on
                // deep nests that alternate layouts). The root is laid out once per pass.
                let key = YogaLayoutKey(availableWidth, availableHeight, ownerWidth, ownerHeight, widthMode, heightMode, ownerDirection)
                let memo: YogaNodeMemo
                if let m = node.memo, m.generation == generation, let record = m.layouts.find(key) {
                    restore(node, record)
                    memo = m
                } else {
                    try layoutImpl(node, availableWidth, availableHeight, ownerDirection, widthMode, heightMode,
                                   ownerWidth, ownerHeight, performLayout: true)
                    memo = startMemo(node)
                    memo.layouts.set(key, record(node))
                }
                memo.lastLayoutKey = key
            } else {
                try layoutImpl(node, availableWidth, availableHeight, ownerDirection, widthMode, heightMode,
                               ownerWidth, ownerHeight, performLayout: performLayout)
            }
            node.lastOwnerDirection = ownerDirection.rawValue
            if cached == nil {
                if node.nextCachedMeasurement == YogaNode.maxCachedMeasurements { node.nextCachedMeasurement = 0 }
                let entry = YogaCacheEntry(availableWidth: availableWidth, availableHeight: availableHeight,
                                           widthMode: widthMode.rawValue, heightMode: heightMode.rawValue,
                                           computedWidth: node.measuredDimensions.0, computedHeight: node.measuredDimensions.1)
                if performLayout {
                    node.cachedLayout = entry
                } else {
                    if node.nextCachedMeasurement == node.cachedMeasurements.count {
                        if node.cachedMeasurements.isEmpty { node.cachedMeasurements.reserveCapacity(4) }
                        node.cachedMeasurements.append(entry)
                    } else {
                        node.cachedMeasurements[node.nextCachedMeasurement] = entry
                    }
                    node.nextCachedMeasurement += 1
                }
            }
        }
        if performLayout {
            node.layoutDimensions = node.measuredDimensions
            node.isDirty = false
        }
        node.generation = generation
        return needToVisit || cached == nil
    }

    /// A measurement's memo key. A pure subtree (`YogaNode.isPure`) never reads its owner's
    /// size, and an at-most size above its slack only bounds content that ends up sized by
    /// itself (no wrapping, no min/max, no flexing against it), so all such sizes give the
    /// same result: they share one key. Yoga measures again for each (its cache compares
    /// sizes), which makes nests of such containers quadratic or worse; the results are the
    /// same, and the subtree's own caches cannot change them.
    @inline(__always)
    private func measureKey(_ node: YogaNode, _ aw: Float, _ ah: Float, _ ow: Float, _ oh: Float,
                            _ wm: YogaMeasureMode, _ hm: YogaMeasureMode, _ d: YogaResolvedDirection) -> YogaLayoutKey {
        guard node.isPure else { return YogaLayoutKey(aw, ah, ow, oh, wm, hm, d) }
        let w = wm == .atMost && aw.isFinite && aw > node.slack ? Float.infinity : aw
        let h = hm == .atMost && ah.isFinite && ah > node.slack ? Float.infinity : ah
        return YogaLayoutKey(w, h, 0, 0, wm, hm, d)
    }

    /// The node's memos, holding this pass's results only.
    @inline(__always) private func startMemo(_ node: YogaNode) -> YogaNodeMemo {
        let memo: YogaNodeMemo
        if let m = node.memo { memo = m } else { memo = YogaNodeMemo(); node.memo = memo }
        if memo.generation != generation {
            memo.layouts.removeAll()
            memo.measurements.removeAll()
            memo.generation = generation
        }
        return memo
    }

    private func record(_ node: YogaNode) -> YogaLayoutRecord {
        YogaLayoutRecord(measured: node.measuredDimensions, direction: node.layoutDirection, hadOverflow: node.hadOverflow,
                         children: node.children.map {
                             YogaChildRecord(position: $0.layoutPosition, size: $0.layoutDimensions, key: $0.memo?.lastLayoutKey)
                         },
                         childLines: lines(node))
    }

    /// The children's line numbers, none when the node does not wrap: `collectFlexLine` then
    /// puts them all on line 0.
    @inline(__always) private func lines(_ node: YogaNode) -> [Int] {
        node.wrap == .noWrap ? [] : node.children.map { $0.lineIndex }
    }

    @inline(__always) private func restoreLines(_ node: YogaNode, _ lines: [Int]) {
        if lines.isEmpty {
            for child in node.children { child.lineIndex = 0 }
        } else {
            for (i, child) in node.children.enumerated() { child.lineIndex = lines[i] }
        }
    }

    /// Puts a node's subtree back as a recorded full layout left it, down to the children
    /// whose last full layout already had the recorded inputs.
    private func restore(_ node: YogaNode, _ record: YogaLayoutRecord) {
        node.measuredDimensions = record.measured
        node.layoutDirection = record.direction
        node.hadOverflow = record.hadOverflow
        restoreLines(node, record.childLines)
        for (i, child) in node.children.enumerated() {
            let c = record.children[i]
            child.layoutPosition = c.position
            child.layoutDimensions = c.size
            child.measuredDimensions = c.size
            guard let key = c.key, let memo = child.memo, memo.lastLayoutKey != key else { continue }
            if memo.generation == generation, let r = memo.layouts.find(key) {
                restore(child, r)
                child.layoutDimensions = child.measuredDimensions
                memo.lastLayoutKey = key
            }
        }
    }

    // MARK: One node's layout (`YGNodelayoutImpl`), as a list of steps

    func layoutImpl(_ node: YogaNode, _ availableWidth: Float, _ availableHeight: Float, _ ownerDirection: YogaResolvedDirection,
                    _ widthMode: YogaMeasureMode, _ heightMode: YogaMeasureMode, _ ownerWidth: Float, _ ownerHeight: Float,
                    performLayout: Bool) throws {
        if availableWidth.isNaN && widthMode != .undefined {
            throw YogaInterruption.fatal("availableWidth is indefinite so widthMeasureMode must be YGMeasureModeUndefined")
        }
        if availableHeight.isNaN && heightMode != .undefined {
            throw YogaInterruption.fatal("availableHeight is indefinite so heightMeasureMode must be YGMeasureModeUndefined")
        }
        try charge()

        let direction = node.resolveDirection(ownerDirection)
        node.layoutDirection = direction
        let rowAxis = YogaAxis.row.resolved(direction)
        let marginAxisRow = node.leadingMargin(rowAxis, ownerWidth) + node.trailingMargin(rowAxis, ownerWidth)
        let marginAxisColumn = node.leadingMargin(.column, ownerWidth) + node.trailingMargin(.column, ownerWidth)

        if node.hasMeasure {
            try measureLeaf(node, availableWidth - marginAxisRow, availableHeight - marginAxisColumn, widthMode, heightMode,
                            ownerWidth, ownerHeight, rowAxis: rowAxis)
            return
        }
        if node.children.isEmpty {
            sizeEmptyContainer(node, availableWidth - marginAxisRow, availableHeight - marginAxisColumn, widthMode, heightMode,
                               ownerWidth, ownerHeight, rowAxis: rowAxis)
            return
        }
        if !performLayout && sizeFixedContainer(node, availableWidth - marginAxisRow, availableHeight - marginAxisColumn,
                                                widthMode, heightMode, ownerWidth, ownerHeight) {
            return
        }
        node.hadOverflow = false

        var frame = resolveContainer(node, availableWidth, availableHeight, direction, widthMode, heightMode, ownerWidth, ownerHeight,
                                     marginAxisRow: marginAxisRow, marginAxisColumn: marginAxisColumn, performLayout: performLayout)
        let totalOuterFlexBasis = try computeFlexBasisForChildren(frame)
        frame.flexBasisOverflows = frame.measureModeMain == .undefined ? false : totalOuterFlexBasis > frame.availableInnerMainDim
        if frame.isWrap && frame.flexBasisOverflows && frame.measureModeMain == .atMost { frame.measureModeMain = .exactly }

        var start = 0
        while start < node.children.count {
            var line = collectFlexLine(frame, start: start)
            try resolveFlexibleLengths(&frame, &line)
            try justifyMainAxis(frame, &line, start: start)
            try alignCrossAxis(frame, &line, start: start)
            frame.totalLineCrossDim += line.crossDim
            frame.maxLineMainDim = ygMax(frame.maxLineMainDim, line.mainDim)
            frame.lineCount += 1
            start = line.endOfLineIndex
        }
        try alignLines(frame)
        sizeContainer(frame)
        if performLayout {
            reverseWrappedLines(frame)
            try layoutAbsoluteChildren(frame)
            setTrailingPositions(frame)
        }
    }

    // MARK: Step: direction, margins and available sizes (Yoga's steps 1 and 2)

    private func resolveContainer(_ node: YogaNode, _ availableWidth: Float, _ availableHeight: Float, _ direction: YogaResolvedDirection,
                                  _ widthMode: YogaMeasureMode, _ heightMode: YogaMeasureMode, _ ownerWidth: Float, _ ownerHeight: Float,
                                  marginAxisRow: Float, marginAxisColumn: Float, performLayout: Bool) -> YogaContainerFrame {
        let mainAxis = node.flexDirection.resolved(direction)
        let crossAxis = mainAxis.cross(direction)
        let isRow = mainAxis.isRow
        let pbMain = node.paddingAndBorder(mainAxis, ownerWidth)
        let leadingPBCross = node.leadingPaddingAndBorder(crossAxis, ownerWidth)
        let pbCross = leadingPBCross + node.trailingPaddingAndBorder(crossAxis, ownerWidth)
        let pbRow = isRow ? pbMain : pbCross
        let pbColumn = isRow ? pbCross : pbMain
        let innerWidth = availableInnerDim(node, 0, availableWidth - marginAxisRow, pbRow, ownerWidth)
        let innerHeight = availableInnerDim(node, 1, availableHeight - marginAxisColumn, pbColumn, ownerHeight)
        return YogaContainerFrame(
            node: node, performLayout: performLayout, direction: direction, mainAxis: mainAxis, crossAxis: crossAxis,
            isMainAxisRow: isRow, isWrap: node.wrap != .noWrap, availableWidth: availableWidth, availableHeight: availableHeight,
            ownerWidth: ownerWidth, ownerHeight: ownerHeight, widthMode: widthMode, heightMode: heightMode,
            marginAxisRow: marginAxisRow, marginAxisColumn: marginAxisColumn,
            mainAxisOwnerSize: isRow ? ownerWidth : ownerHeight, crossAxisOwnerSize: isRow ? ownerHeight : ownerWidth,
            paddingAndBorderAxisMain: pbMain, leadingPaddingAndBorderCross: leadingPBCross, paddingAndBorderAxisCross: pbCross,
            paddingAndBorderAxisRow: pbRow, paddingAndBorderAxisColumn: pbColumn,
            measureModeMain: isRow ? widthMode : heightMode, measureModeCross: isRow ? heightMode : widthMode,
            availableInnerWidth: innerWidth, availableInnerHeight: innerHeight,
            availableInnerMainDim: isRow ? innerWidth : innerHeight, availableInnerCrossDim: isRow ? innerHeight : innerWidth)
    }

    /// `YGNodeCalculateAvailableInnerDim`: the available size less padding and border, within min/max.
    private func availableInnerDim(_ node: YogaNode, _ d: Int, _ available: Float, _ pb: Float, _ ownerDim: Float) -> Float {
        var inner = available - pb
        if !inner.isNaN {
            let mn = node.minDimension(d).resolve(ownerDim)
            let minInner: Float = mn.isNaN ? 0 : mn - pb
            let mx = node.maxDimension(d).resolve(ownerDim)
            let maxInner: Float = mx.isNaN ? .greatestFiniteMagnitude : mx - pb
            inner = ygMax(ygMin(inner, maxInner), minInner)
        }
        return inner
    }

    // MARK: Leaves and early exits

    /// `YGNodeEmptyContainerSetMeasuredDimensions`: a childless node without a measure function.
    private func sizeEmptyContainer(_ node: YogaNode, _ width: Float, _ height: Float, _ widthMode: YogaMeasureMode,
                                    _ heightMode: YogaMeasureMode, _ ownerWidth: Float, _ ownerHeight: Float, rowAxis: YogaAxis) {
        let w = widthMode == .exactly ? width : node.paddingAndBorder(rowAxis, ownerWidth)
        let h = heightMode == .exactly ? height : node.paddingAndBorder(.column, ownerWidth)
        node.measuredDimensions.0 = boundAxis(node, .row, w, ownerWidth, ownerWidth)
        node.measuredDimensions.1 = boundAxis(node, .column, h, ownerHeight, ownerWidth)
    }

    /// `YGNodeFixedSizeSetMeasuredDimensions`: a measurement whose answer is known without the children.
    private func sizeFixedContainer(_ node: YogaNode, _ width: Float, _ height: Float, _ widthMode: YogaMeasureMode,
                                    _ heightMode: YogaMeasureMode, _ ownerWidth: Float, _ ownerHeight: Float) -> Bool {
        guard (!width.isNaN && widthMode == .atMost && width <= 0) || (!height.isNaN && heightMode == .atMost && height <= 0)
            || (widthMode == .exactly && heightMode == .exactly) else { return false }
        let w: Float = width.isNaN || (widthMode == .atMost && width < 0) ? 0 : width
        let h: Float = height.isNaN || (heightMode == .atMost && height < 0) ? 0 : height
        node.measuredDimensions.0 = boundAxis(node, .row, w, ownerWidth, ownerWidth)
        node.measuredDimensions.1 = boundAxis(node, .column, h, ownerHeight, ownerWidth)
        return true
    }

    // MARK: Shared helpers

    /// `YGNodeBoundAxisWithinMinAndMax`.
    @inline(__always)
    func boundWithinMinMax(_ node: YogaNode, _ axis: YogaAxis, _ value: Float, _ axisSize: Float) -> Float {
        guard node.hasMinOrMax else { return value }
        let d = axis.dimension
        let mn = node.minDimension(d).resolve(axisSize)
        let mx = node.maxDimension(d).resolve(axisSize)
        if !mx.isNaN && mx >= 0 && !value.isNaN && value > mx { return mx }
        if !mn.isNaN && mn >= 0 && !value.isNaN && value < mn { return mn }
        return value
    }

    /// `YGNodeBoundAxis`: within min/max and never below padding and border.
    @inline(__always)
    func boundAxis(_ node: YogaNode, _ axis: YogaAxis, _ value: Float, _ axisSize: Float, _ widthSize: Float) -> Float {
        ygMax(boundWithinMinMax(node, axis, value, axisSize), node.paddingAndBorder(axis, widthSize))
    }

    /// `YGNodeIsStyleDimDefined`.
    @inline(__always)
    func isStyleDimDefined(_ node: YogaNode, _ axis: YogaAxis, _ ownerSize: Float) -> Bool {
        switch node.resolvedDimension(axis.dimension) {
        case .undefined: return false
        case .point(let v): return v.isNaN || v >= 0
        case .percent(let v): return v.isNaN || (v >= 0 && !ownerSize.isNaN)
        }
    }

    /// `YGNodeIsLayoutDimDefined`.
    @inline(__always)
    func isLayoutDimDefined(_ node: YogaNode, _ axis: YogaAxis) -> Bool {
        let v = node.measured(axis.dimension)
        return !v.isNaN && v >= 0
    }

    /// `YGNodeDimWithMargin`.
    @inline(__always)
    func dimWithMargin(_ node: YogaNode, _ axis: YogaAxis, _ widthSize: Float) -> Float {
        // The margins summed first, as Yoga sums them: in floats the order shows on large values.
        node.measured(axis.dimension) + (node.leadingMargin(axis, widthSize) + node.trailingMargin(axis, widthSize))
    }

    /// `YGNodeAlignItem`: the child's alignSelf, else the container's alignItems; baseline in a column is flexStart.
    @inline(__always)
    func alignItem(_ node: YogaNode, _ child: YogaNode) -> YogaAlign {
        let a = child.alignSelf == .auto ? node.alignItems : child.alignSelf
        if a == .baseline && node.flexDirection.isColumn { return .flexStart }
        return a
    }

    /// `YGConstrainMaxSizeForMode`.
    @inline(__always)
    func constrainMaxSize(_ node: YogaNode, _ axis: YogaAxis, _ ownerAxisSize: Float, _ ownerWidth: Float,
                          _ mode: inout YogaMeasureMode, _ size: inout Float) {
        guard node.hasMinOrMax else { return }
        let maxSize = node.maxDimension(axis.dimension).resolve(ownerAxisSize) + node.marginForAxis(axis, ownerWidth)
        switch mode {
        case .exactly, .atMost:
            if !maxSize.isNaN && !(size < maxSize) { size = maxSize }
        case .undefined:
            if !maxSize.isNaN { mode = .atMost; size = maxSize }
        }
    }

    /// `YGIsBaselineLayout`: a row aligning its items on their baselines.
    func isBaselineLayout(_ node: YogaNode) -> Bool {
        if node.flexDirection.isColumn { return false }
        return node.alignItems == .baseline
    }

    /// `YGBaseline`: a measured leaf's baseline function, else the first (baseline-aligned)
    /// child's baseline plus its top, else the node's height.
    func baseline(_ node: YogaNode) throws -> Float {
        if node.hasMeasure {
            let value = host.baseline(node, width: node.measuredDimensions.0, height: node.measuredDimensions.1)
            if value.isNaN { throw YogaInterruption.fatal("Expect custom baseline function to not return NaN") }
            return value
        }
        var baselineChild: YogaNode?
        for child in node.children {
            if child.lineIndex > 0 { break }
            if child.isAbsolute { continue }
            if alignItem(node, child) == .baseline { baselineChild = child; break }
            if baselineChild == nil { baselineChild = child }
        }
        guard let baselineChild else { return node.measuredDimensions.1 }
        return try baseline(baselineChild) + baselineChild.layoutPosition[YogaEdge.top]
    }
}
