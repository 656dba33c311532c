/// The main-axis steps of a container's layout: flex basis, flex lines, flexible lengths,
/// main-axis justification (the cross axis, the lines, baselines and the container's final
/// size are in YogaCrossAxis.swift).
extension YogaLayoutPass {

    // MARK: Step: flex basis of every child

    /// `YGNodeComputeFlexBasisForChildren`: sets each child's initial position and flex
    /// basis; returns the sum of the outer flex bases.
    func computeFlexBasisForChildren(_ f: YogaContainerFrame) throws -> Float {
        let node = f.node
        var singleFlexChild: YogaNode?
        if f.measureModeMain == .exactly {
            for child in node.children where child.isFlexible {
                if singleFlexChild != nil || ygEqual(child.resolvedFlexGrow, 0) || ygEqual(child.resolvedFlexShrink, 0) {
                    singleFlexChild = nil
                    break
                }
                singleFlexChild = child
            }
        }
        var total: Float = 0
        for i in 0..<node.children.count {
            try node.withChild(i) { child in
                if f.performLayout {
                    let childDirection = child.resolveDirection(f.direction)
                    let mainDim = f.mainAxis.isRow ? f.availableInnerWidth : f.availableInnerHeight
                    let crossDim = f.mainAxis.isRow ? f.availableInnerHeight : f.availableInnerWidth
                    child.setPosition(childDirection, mainSize: mainDim, crossSize: crossDim, ownerWidth: f.availableInnerWidth)
                }
                if child.isAbsolute { return }
                if child === singleFlexChild {
                    child.computedFlexBasis = 0
                } else {
                    try computeFlexBasis(f, child)
                }
                total += child.computedFlexBasis + child.marginForAxis(f.mainAxis, f.availableInnerWidth)
            }
        }
        return total
    }

    /// `YGNodeComputeFlexBasisForChild`. A points or percent flex basis is computed once and
    /// then kept for as long as the child is not dirtied (Yoga's behaviour, across passes too).
    private func computeFlexBasis(_ f: YogaContainerFrame, _ child: YogaNode) throws {
        let node = f.node
        let mainAxis = f.mainAxis
        let isMainAxisRow = mainAxis.isRow
        let width = f.availableInnerWidth, height = f.availableInnerHeight
        let ownerWidth = width, ownerHeight = height
        let mainAxisSize = isMainAxisRow ? width : height
        let mainAxisOwnerSize = isMainAxisRow ? ownerWidth : ownerHeight
        let resolvedFlexBasis = child.resolvedFlexBasis.resolve(mainAxisOwnerSize)
        let isRowStyleDimDefined = isStyleDimDefined(child, .row, ownerWidth)
        let isColumnStyleDimDefined = isStyleDimDefined(child, .column, ownerHeight)

        if !resolvedFlexBasis.isNaN && !mainAxisSize.isNaN {
            if child.computedFlexBasis.isNaN {
                child.computedFlexBasis = ygMax(resolvedFlexBasis, child.paddingAndBorder(mainAxis, ownerWidth))
            }
        } else if isMainAxisRow && isRowStyleDimDefined {
            child.computedFlexBasis = ygMax(child.resolvedDimension(0).resolve(ownerWidth), child.paddingAndBorder(.row, ownerWidth))
        } else if !isMainAxisRow && isColumnStyleDimDefined {
            child.computedFlexBasis = ygMax(child.resolvedDimension(1).resolve(ownerHeight), child.paddingAndBorder(.column, ownerWidth))
        } else {
            var childWidth = Float.nan, childHeight = Float.nan
            var childWidthMode = YogaMeasureMode.undefined, childHeightMode = YogaMeasureMode.undefined
            let marginRow = child.marginForAxis(.row, ownerWidth)
            let marginColumn = child.marginForAxis(.column, ownerWidth)
            if isRowStyleDimDefined {
                childWidth = child.resolvedDimension(0).resolve(ownerWidth) + marginRow
                childWidthMode = .exactly
            }
            if isColumnStyleDimDefined {
                childHeight = child.resolvedDimension(1).resolve(ownerHeight) + marginColumn
                childHeightMode = .exactly
            }
            if childWidth.isNaN && !width.isNaN { childWidth = width; childWidthMode = .atMost }
            if childHeight.isNaN && !height.isNaN { childHeight = height; childHeightMode = .atMost }
            let ratio = child.aspectRatio
            if !ratio.isNaN {
                if !isMainAxisRow && childWidthMode == .exactly {
                    childHeight = marginColumn + (childWidth - marginRow) / ratio
                    childHeightMode = .exactly
                } else if isMainAxisRow && childHeightMode == .exactly {
                    childWidth = marginRow + (childHeight - marginColumn) * ratio
                    childWidthMode = .exactly
                }
            }
            let stretches = alignItem(node, child) == .stretch
            if !isMainAxisRow && !isRowStyleDimDefined && !width.isNaN && f.widthMode == .exactly
                && stretches && childWidthMode != .exactly {
                childWidth = width
                childWidthMode = .exactly
                if !ratio.isNaN {
                    childHeight = (childWidth - marginRow) / ratio
                    childHeightMode = .exactly
                }
            }
            if isMainAxisRow && !isColumnStyleDimDefined && !height.isNaN && f.heightMode == .exactly
                && stretches && childHeightMode != .exactly {
                childHeight = height
                childHeightMode = .exactly
                if !ratio.isNaN {
                    childWidth = (childHeight - marginColumn) * ratio
                    childWidthMode = .exactly
                }
            }
            constrainMaxSize(child, .row, ownerWidth, ownerWidth, &childWidthMode, &childWidth)
            constrainMaxSize(child, .column, ownerHeight, ownerWidth, &childHeightMode, &childHeight)
            try layoutNode(child, childWidth, childHeight, f.direction, childWidthMode, childHeightMode, ownerWidth, ownerHeight,
                           performLayout: false)
            child.computedFlexBasis = ygMax(child.measured(mainAxis.dimension), child.paddingAndBorder(mainAxis, ownerWidth))
        }
    }

    // MARK: Step: flex lines

    /// `YGCalculateCollectFlexItemsRowValues`: the children of the next line.
    func collectFlexLine(_ f: YogaContainerFrame, start: Int) -> YogaFlexLine {
        var line = YogaFlexLine()
        let node = f.node
        line.start = start
        var end = start
        while end < node.children.count {
            let full = node.withChild(end) { child -> Bool in
                if child.isAbsolute { return false }
                child.lineIndex = f.lineCount
                let marginMain = child.marginForAxis(f.mainAxis, f.availableInnerWidth)
                let basis = boundWithinMinMax(child, f.mainAxis, child.computedFlexBasis, f.mainAxisOwnerSize)
                if line.sizeConsumed + basis + marginMain > f.availableInnerMainDim && f.isWrap && line.itemsOnLine > 0 { return true }
                line.sizeConsumed += basis + marginMain
                line.itemsOnLine += 1
                if child.isFlexible {
                    line.totalFlexGrowFactors += child.resolvedFlexGrow
                    line.totalFlexShrinkScaledFactors += -child.resolvedFlexShrink * child.computedFlexBasis
                }
                return false
            }
            if full { break }
            end += 1
        }
        if line.totalFlexGrowFactors > 0 && line.totalFlexGrowFactors < 1 { line.totalFlexGrowFactors = 1 }
        if line.totalFlexShrinkScaledFactors > 0 && line.totalFlexShrinkScaledFactors < 1 { line.totalFlexShrinkScaledFactors = 1 }
        line.endOfLineIndex = end
        return line
    }

    // MARK: Step: main-axis resolution of flexible lengths

    /// Yoga's step 5: the free space of the line (within the container's min/max when its
    /// main size is not exact; 2.0.1's "measure inner dimensions" fix), then each child
    /// flexed and laid out at its main size.
    func resolveFlexibleLengths(_ f: inout YogaContainerFrame, _ line: inout YogaFlexLine) throws {
        let node = f.node
        let canSkipFlex = !f.performLayout && f.measureModeCross == .exactly
        var sizeBasedOnContent = false
        if f.measureModeMain != .exactly {
            let minInnerWidth = node.minDimensions.0.resolve(f.ownerWidth) - f.paddingAndBorderAxisRow
            let maxInnerWidth = node.maxDimensions.0.resolve(f.ownerWidth) - f.paddingAndBorderAxisRow
            let minInnerHeight = node.minDimensions.1.resolve(f.ownerHeight) - f.paddingAndBorderAxisColumn
            let maxInnerHeight = node.maxDimensions.1.resolve(f.ownerHeight) - f.paddingAndBorderAxisColumn
            let minInnerMain = f.isMainAxisRow ? minInnerWidth : minInnerHeight
            let maxInnerMain = f.isMainAxisRow ? maxInnerWidth : maxInnerHeight
            if !minInnerMain.isNaN && line.sizeConsumed < minInnerMain {
                f.availableInnerMainDim = minInnerMain
            } else if !maxInnerMain.isNaN && line.sizeConsumed > maxInnerMain {
                f.availableInnerMainDim = maxInnerMain
            } else {
                if (!line.totalFlexGrowFactors.isNaN && line.totalFlexGrowFactors == 0)
                    || (!node.resolvedFlexGrow.isNaN && node.resolvedFlexGrow == 0) {
                    f.availableInnerMainDim = line.sizeConsumed
                }
                sizeBasedOnContent = true
            }
        }
        if !sizeBasedOnContent && !f.availableInnerMainDim.isNaN {
            line.remainingFreeSpace = f.availableInnerMainDim - line.sizeConsumed
        } else if line.sizeConsumed < 0 {
            line.remainingFreeSpace = -line.sizeConsumed
        }
        if !canSkipFlex {
            let original = line.remainingFreeSpace
            distributeFreeSpaceFirstPass(f, &line)
            let distributed = try distributeFreeSpaceSecondPass(f, &line)
            line.remainingFreeSpace = original - distributed
        }
        if line.remainingFreeSpace < 0 { node.hadOverflow = true }
    }

    /// `YGDistributeFreeSpaceFirstPass`: children whose min/max stop them are taken out of the flexing.
    private func distributeFreeSpaceFirstPass(_ f: YogaContainerFrame, _ line: inout YogaFlexLine) {
        var delta: Float = 0
        let node = f.node
        for i in line.start..<line.endOfLineIndex { node.withChild(i) { child in
            if child.isAbsolute { return }
            let basis = boundWithinMinMax(child, f.mainAxis, child.computedFlexBasis, f.mainAxisOwnerSize)
            if line.remainingFreeSpace < 0 {
                let factor = -child.resolvedFlexShrink * basis
                if !factor.isNaN && factor != 0 {
                    let base = basis + line.remainingFreeSpace / line.totalFlexShrinkScaledFactors * factor
                    let bound = boundAxis(child, f.mainAxis, base, f.availableInnerMainDim, f.availableInnerWidth)
                    if !base.isNaN && !bound.isNaN && base != bound {
                        delta += bound - basis
                        // Yoga takes out the factor of the unclamped basis (as collected).
                        line.totalFlexShrinkScaledFactors -= -child.resolvedFlexShrink * child.computedFlexBasis
                    }
                }
            } else if !line.remainingFreeSpace.isNaN && line.remainingFreeSpace > 0 {
                let grow = child.resolvedFlexGrow
                if !grow.isNaN && grow != 0 {
                    let base = basis + line.remainingFreeSpace / line.totalFlexGrowFactors * grow
                    let bound = boundAxis(child, f.mainAxis, base, f.availableInnerMainDim, f.availableInnerWidth)
                    if !base.isNaN && !bound.isNaN && base != bound {
                        delta += bound - basis
                        line.totalFlexGrowFactors -= grow
                    }
                }
            }
        } }
        line.remainingFreeSpace -= delta
    }

    /// `YGDistributeFreeSpaceSecondPass`: each child's main size, then its layout at that size.
    private func distributeFreeSpaceSecondPass(_ f: YogaContainerFrame, _ line: inout YogaFlexLine) throws -> Float {
        let node = f.node
        let mainAxis = f.mainAxis, crossAxis = f.crossAxis
        let isMainAxisRow = f.isMainAxisRow
        var delta: Float = 0
        for i in line.start..<line.endOfLineIndex { try node.withChild(i) { child in
            if child.isAbsolute { return }
            let basis = boundWithinMinMax(child, mainAxis, child.computedFlexBasis, f.mainAxisOwnerSize)
            var updatedMainSize = basis
            if !line.remainingFreeSpace.isNaN && line.remainingFreeSpace < 0 {
                let factor = -child.resolvedFlexShrink * basis
                if factor != 0 {
                    let childSize: Float
                    if !line.totalFlexShrinkScaledFactors.isNaN && line.totalFlexShrinkScaledFactors == 0 {
                        childSize = basis + factor
                    } else {
                        childSize = basis + (line.remainingFreeSpace / line.totalFlexShrinkScaledFactors) * factor
                    }
                    updatedMainSize = boundAxis(child, mainAxis, childSize, f.availableInnerMainDim, f.availableInnerWidth)
                }
            } else if !line.remainingFreeSpace.isNaN && line.remainingFreeSpace > 0 {
                let grow = child.resolvedFlexGrow
                if !grow.isNaN && grow != 0 {
                    updatedMainSize = boundAxis(child, mainAxis, basis + line.remainingFreeSpace / line.totalFlexGrowFactors * grow,
                                                f.availableInnerMainDim, f.availableInnerWidth)
                }
            }
            delta += updatedMainSize - basis

            let marginMain = child.marginForAxis(mainAxis, f.availableInnerWidth)
            let marginCross = child.marginForAxis(crossAxis, f.availableInnerWidth)
            var childCrossSize: Float
            var childMainSize = updatedMainSize + marginMain
            var childCrossMode: YogaMeasureMode
            var childMainMode = YogaMeasureMode.exactly
            let ratio = child.aspectRatio
            let crossDefined = isStyleDimDefined(child, crossAxis, f.availableInnerCrossDim)
            let stretches = alignItem(node, child) == .stretch
            if !ratio.isNaN {
                childCrossSize = isMainAxisRow ? (childMainSize - marginMain) / ratio : (childMainSize - marginMain) * ratio
                childCrossMode = .exactly
                childCrossSize += marginCross
            } else if !f.availableInnerCrossDim.isNaN && !crossDefined
                        && f.measureModeCross == .exactly && !(f.isWrap && f.flexBasisOverflows) && stretches {
                childCrossSize = f.availableInnerCrossDim
                childCrossMode = .exactly
            } else if !crossDefined {
                childCrossSize = f.availableInnerCrossDim
                childCrossMode = childCrossSize.isNaN ? .undefined : .atMost
            } else {
                let dim = child.resolvedDimension(crossAxis.dimension)
                childCrossSize = dim.resolve(f.availableInnerCrossDim) + marginCross
                let loosePercent = dim.isPercent && f.measureModeCross != .exactly
                childCrossMode = childCrossSize.isNaN || loosePercent ? .undefined : .exactly
            }
            constrainMaxSize(child, mainAxis, f.availableInnerMainDim, f.availableInnerWidth, &childMainMode, &childMainSize)
            constrainMaxSize(child, crossAxis, f.availableInnerCrossDim, f.availableInnerWidth, &childCrossMode, &childCrossSize)
            let requiresStretchLayout = !crossDefined && stretches
            let childWidth = isMainAxisRow ? childMainSize : childCrossSize
            let childHeight = isMainAxisRow ? childCrossSize : childMainSize
            let widthMode = isMainAxisRow ? childMainMode : childCrossMode
            let heightMode = isMainAxisRow ? childCrossMode : childMainMode
            try layoutNode(child, childWidth, childHeight, node.layoutDirection, widthMode, heightMode,
                           f.availableInnerWidth, f.availableInnerHeight, performLayout: f.performLayout && !requiresStretchLayout)
            if child.hadOverflow { node.hadOverflow = true }
        } }
        return delta
    }

    // MARK: Step: main-axis justification

    /// `YGJustifyMainAxis`: positions along the main axis and the line's main and cross sizes.
    func justifyMainAxis(_ f: YogaContainerFrame, _ line: inout YogaFlexLine, start: Int) throws {
        let node = f.node
        let mainAxis = f.mainAxis
        let leadingPB = node.leadingPaddingAndBorder(mainAxis, f.ownerWidth)
        let trailingPB = node.trailingPaddingAndBorder(mainAxis, f.ownerWidth)
        if f.measureModeMain == .atMost && line.remainingFreeSpace > 0 {
            let minMain = node.minDimension(mainAxis.dimension).resolve(f.mainAxisOwnerSize)
            if !minMain.isNaN {
                let minAvailableMain = minMain - leadingPB - trailingPB
                let occupied = f.availableInnerMainDim - line.remainingFreeSpace
                line.remainingFreeSpace = ygMax(0, minAvailableMain - occupied)
            } else {
                line.remainingFreeSpace = 0
            }
        }
        var leadingMainDim: Float = 0
        var betweenMainDim: Float = 0
        switch node.justifyContent {
        case .center: leadingMainDim = line.remainingFreeSpace / 2
        case .flexEnd: leadingMainDim = line.remainingFreeSpace
        case .spaceBetween:
            betweenMainDim = line.itemsOnLine > 1 ? ygMax(line.remainingFreeSpace, 0) / Float(line.itemsOnLine - 1) : 0
        case .spaceAround:
            betweenMainDim = line.remainingFreeSpace / Float(line.itemsOnLine)
            leadingMainDim = betweenMainDim / 2
        case .flexStart: break
        }
        line.mainDim = leadingPB + leadingMainDim
        line.crossDim = 0
        var maxAscent: Float = 0, maxDescent: Float = 0
        let baselineLayout = isBaselineLayout(node)
        let canSkipFlex = !f.performLayout && f.measureModeCross == .exactly
        for i in start..<line.endOfLineIndex { try node.withChild(i) { child in
            if child.isAbsolute && child.isLeadingPositionDefined(mainAxis) {
                if f.performLayout {
                    child.layoutPosition[mainAxis.leading] = child.leadingPosition(mainAxis, f.availableInnerMainDim)
                        + node.leadingBorder(mainAxis) + child.leadingMargin(mainAxis, f.availableInnerWidth)
                }
            } else if !child.isAbsolute {
                if f.performLayout {
                    child.layoutPosition[mainAxis.leading] = child.layoutPosition[mainAxis.leading] + line.mainDim
                }
                if canSkipFlex {
                    line.mainDim += betweenMainDim + child.marginForAxis(mainAxis, f.availableInnerWidth) + child.computedFlexBasis
                    line.crossDim = f.availableInnerCrossDim
                } else {
                    line.mainDim += betweenMainDim + dimWithMargin(child, mainAxis, f.availableInnerWidth)
                    if baselineLayout {
                        let ascent = try baseline(child) + child.leadingMargin(.column, f.availableInnerWidth)
                        let descent = child.measuredDimensions.1 + child.marginForAxis(.column, f.availableInnerWidth) - ascent
                        maxAscent = ygMax(maxAscent, ascent)
                        maxDescent = ygMax(maxDescent, descent)
                    } else {
                        line.crossDim = ygMax(line.crossDim, dimWithMargin(child, f.crossAxis, f.availableInnerWidth))
                    }
                }
            } else if f.performLayout {
                child.layoutPosition[mainAxis.leading] = child.layoutPosition[mainAxis.leading] + node.leadingBorder(mainAxis) + leadingMainDim
            }
        } }
        line.mainDim += trailingPB
        if baselineLayout { line.crossDim = maxAscent + maxDescent }
    }
}
