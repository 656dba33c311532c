// The steps after the main axis: each line's cross axis, the lines and their baselines, the
// container's own size, and wrapReverse (the main-axis steps are in YogaFlexLines.swift).

extension YogaLayoutPass {
    // MARK: Step: cross-axis sizing and alignment

    /// The line's cross size within the container's, then Yoga's step 7: each child placed
    /// on the cross axis, stretched children laid out again at the line's cross size.
    func alignCrossAxis(_ f: YogaContainerFrame, _ line: inout YogaFlexLine, start: Int) throws {
        let node = f.node
        let mainAxis = f.mainAxis, crossAxis = f.crossAxis
        var containerCrossAxis = f.availableInnerCrossDim
        if f.measureModeCross == .undefined || f.measureModeCross == .atMost {
            containerCrossAxis = boundAxis(node, crossAxis, line.crossDim + f.paddingAndBorderAxisCross, f.crossAxisOwnerSize,
                                           f.ownerWidth) - f.paddingAndBorderAxisCross
        }
        if !f.isWrap && f.measureModeCross == .exactly { line.crossDim = f.availableInnerCrossDim }
        line.crossDim = boundAxis(node, crossAxis, line.crossDim + f.paddingAndBorderAxisCross, f.crossAxisOwnerSize, f.ownerWidth)
            - f.paddingAndBorderAxisCross
        guard f.performLayout else { return }

        for i in start..<line.endOfLineIndex { try node.withChild(i) { child in
            if child.isAbsolute {
                let leadingDefined = child.isLeadingPositionDefined(crossAxis)
                if leadingDefined {
                    child.layoutPosition[crossAxis.leading] = child.leadingPosition(crossAxis, f.availableInnerCrossDim)
                        + node.leadingBorder(crossAxis) + child.leadingMargin(crossAxis, f.availableInnerWidth)
                }
                if !leadingDefined || child.layoutPosition[crossAxis.leading].isNaN {
                    child.layoutPosition[crossAxis.leading] = node.leadingBorder(crossAxis) + child.leadingMargin(crossAxis, f.availableInnerWidth)
                }
                return
            }
            var leadingCrossDim = f.leadingPaddingAndBorderCross
            let align = alignItem(node, child)
            if align == .stretch {
                if !isStyleDimDefined(child, crossAxis, f.availableInnerCrossDim) {
                    var childMainSize = child.measured(mainAxis.dimension)
                    let ratio = child.aspectRatio
                    var childCrossSize = !ratio.isNaN
                        ? child.marginForAxis(crossAxis, f.availableInnerWidth) + (f.isMainAxisRow ? childMainSize / ratio : childMainSize * ratio)
                        : line.crossDim
                    childMainSize += child.marginForAxis(mainAxis, f.availableInnerWidth)
                    var mainMode = YogaMeasureMode.exactly, crossMode = YogaMeasureMode.exactly
                    constrainMaxSize(child, mainAxis, f.availableInnerMainDim, f.availableInnerWidth, &mainMode, &childMainSize)
                    constrainMaxSize(child, crossAxis, f.availableInnerCrossDim, f.availableInnerWidth, &crossMode, &childCrossSize)
                    let childWidth = f.isMainAxisRow ? childMainSize : childCrossSize
                    let childHeight = f.isMainAxisRow ? childCrossSize : childMainSize
                    // alignContent is always flexStart: a wrapping container's cross axis does not grow.
                    let crossDoesNotGrow = f.isWrap
                    let widthMode: YogaMeasureMode = childWidth.isNaN || (!f.isMainAxisRow && crossDoesNotGrow) ? .undefined : .exactly
                    let heightMode: YogaMeasureMode = childHeight.isNaN || (f.isMainAxisRow && crossDoesNotGrow) ? .undefined : .exactly
                    try layoutNode(child, childWidth, childHeight, f.direction, widthMode, heightMode,
                                   f.availableInnerWidth, f.availableInnerHeight, performLayout: true)
                }
            } else {
                let remaining = containerCrossAxis - dimWithMargin(child, crossAxis, f.availableInnerWidth)
                if align == .flexStart {
                } else if align == .center {
                    leadingCrossDim += remaining / 2
                } else {
                    leadingCrossDim += remaining
                }
            }
            child.layoutPosition[crossAxis.leading] = child.layoutPosition[crossAxis.leading] + f.totalLineCrossDim + leadingCrossDim
        } }
    }

    // MARK: Step: lines (align-content flexStart) and baselines

    /// Yoga's step 8, for wrapping containers and baseline rows: each line as high as its
    /// tallest child (or its ascent plus descent), children placed within their line.
    func alignLines(_ f: YogaContainerFrame) throws {
        let node = f.node
        guard f.performLayout && (f.isWrap || isBaselineLayout(node)) else { return }
        let crossAxis = f.crossAxis, mainAxis = f.mainAxis
        let childCount = node.children.count
        var currentLead = f.leadingPaddingAndBorderCross
        var endIndex = 0
        for i in 0..<f.lineCount {
            let startIndex = endIndex
            var lineHeight: Float = 0
            var maxAscent: Float = 0, maxDescent: Float = 0
            var ii = startIndex
            // Children lent without reference counting (`withChild`).
            while try ii < childCount && node.withChild(ii, { child in
                if !child.isAbsolute {
                    if child.lineIndex != i { return false }
                    if isLayoutDimDefined(child, crossAxis) {
                        lineHeight = ygMax(lineHeight, child.measured(crossAxis.dimension) + child.marginForAxis(crossAxis, f.availableInnerWidth))
                    }
                    if alignItem(node, child) == .baseline {
                        let ascent = try baseline(child) + child.leadingMargin(.column, f.availableInnerWidth)
                        let descent = child.measuredDimensions.1 + child.marginForAxis(.column, f.availableInnerWidth) - ascent
                        maxAscent = ygMax(maxAscent, ascent)
                        maxDescent = ygMax(maxDescent, descent)
                        lineHeight = ygMax(lineHeight, maxAscent + maxDescent)
                    }
                }
                return true
            }) {
                ii += 1
            }
            endIndex = ii
            for k in startIndex..<endIndex { try node.withChild(k) { child in
                if child.isAbsolute { return }
                switch alignItem(node, child) {
                case .flexStart:
                    child.layoutPosition[crossAxis.leading] = currentLead + child.leadingMargin(crossAxis, f.availableInnerWidth)
                case .flexEnd:
                    child.layoutPosition[crossAxis.leading] = currentLead + lineHeight
                        - child.trailingMargin(crossAxis, f.availableInnerWidth) - child.measured(crossAxis.dimension)
                case .center:
                    child.layoutPosition[crossAxis.leading] = currentLead + (lineHeight - child.measured(crossAxis.dimension)) / 2
                case .stretch:
                    child.layoutPosition[crossAxis.leading] = currentLead + child.leadingMargin(crossAxis, f.availableInnerWidth)
                    if !isStyleDimDefined(child, crossAxis, f.availableInnerCrossDim) {
                        let childWidth = f.isMainAxisRow
                            ? child.measuredDimensions.0 + child.marginForAxis(mainAxis, f.availableInnerWidth) : lineHeight
                        // Yoga adds the cross-axis margins here (sic).
                        let childHeight = !f.isMainAxisRow
                            ? child.measuredDimensions.1 + child.marginForAxis(crossAxis, f.availableInnerWidth) : lineHeight
                        if !(ygEqual(childWidth, child.measuredDimensions.0) && ygEqual(childHeight, child.measuredDimensions.1)) {
                            try layoutNode(child, childWidth, childHeight, f.direction, .exactly, .exactly,
                                           f.availableInnerWidth, f.availableInnerHeight, performLayout: true)
                        }
                    }
                case .baseline:
                    child.layoutPosition[YogaEdge.top] = currentLead + maxAscent - (try baseline(child))
                        + child.leadingPosition(.column, f.availableInnerCrossDim)
                case .auto:
                    break
                }
            } }
            currentLead += lineHeight
        }
    }

    // MARK: Step: the container's size

    /// Yoga's step 9: the container's measured size from its available size or its lines.
    func sizeContainer(_ f: YogaContainerFrame) {
        let node = f.node
        node.measuredDimensions.0 = boundAxis(node, .row, f.availableWidth - f.marginAxisRow, f.ownerWidth, f.ownerWidth)
        node.measuredDimensions.1 = boundAxis(node, .column, f.availableHeight - f.marginAxisColumn, f.ownerHeight, f.ownerWidth)
        if f.measureModeMain == .undefined || f.measureModeMain == .atMost {
            node.setMeasured(f.mainAxis.dimension, boundAxis(node, f.mainAxis, f.maxLineMainDim, f.mainAxisOwnerSize, f.ownerWidth))
        }
        if f.measureModeCross == .undefined || f.measureModeCross == .atMost {
            node.setMeasured(f.crossAxis.dimension, boundAxis(node, f.crossAxis, f.totalLineCrossDim + f.paddingAndBorderAxisCross,
                                                              f.crossAxisOwnerSize, f.ownerWidth))
        }
    }

    /// wrapReverse: lines were placed in order; mirror them on the cross axis.
    func reverseWrappedLines(_ f: YogaContainerFrame) {
        guard f.node.wrap == .wrapReverse else { return }
        let crossAxis = f.crossAxis
        let size = f.node.measured(crossAxis.dimension)
        for child in f.node.children where !child.isAbsolute {
            child.layoutPosition[crossAxis.leading] = size - child.layoutPosition[crossAxis.leading] - child.measured(crossAxis.dimension)
        }
    }
}
