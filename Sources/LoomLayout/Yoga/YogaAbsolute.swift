/// Absolute children and the trailing positions of reversed axes (Yoga's steps 10 and 11).
extension YogaLayoutPass {

    /// Step 10: every absolute child sized and placed against the container's padding box.
    func layoutAbsoluteChildren(_ f: YogaContainerFrame) throws {
        for child in f.node.children where child.isAbsolute {
            try layoutAbsoluteChild(f.node, child, f.availableInnerWidth, f.isMainAxisRow ? f.measureModeMain : f.measureModeCross,
                                    f.availableInnerHeight, f.direction)
        }
    }

    /// `YGNodeAbsoluteLayoutChild` (2.0.1: a trailing margin on the vertical axis resolves
    /// against the height).
    private func layoutAbsoluteChild(_ node: YogaNode, _ child: YogaNode, _ width: Float, _ widthMode: YogaMeasureMode,
                                     _ height: Float, _ direction: YogaResolvedDirection) throws {
        let mainAxis = node.flexDirection.resolved(direction)
        let crossAxis = mainAxis.cross(direction)
        let isMainAxisRow = mainAxis.isRow
        var childWidth = Float.nan, childHeight = Float.nan
        let marginRow = child.marginForAxis(.row, width)
        let marginColumn = child.marginForAxis(.column, width)

        if isStyleDimDefined(child, .row, width) {
            childWidth = child.resolvedDimension(0).resolve(width) + marginRow
        } else if child.isLeadingPositionDefined(.row) && child.isTrailingPositionDefined(.row) {
            childWidth = node.measuredDimensions.0 - (node.leadingBorder(.row) + node.trailingBorder(.row))
                - (child.leadingPosition(.row, width) + child.trailingPosition(.row, width))
            childWidth = boundAxis(child, .row, childWidth, width, width)
        }
        if isStyleDimDefined(child, .column, height) {
            childHeight = child.resolvedDimension(1).resolve(height) + marginColumn
        } else if child.isLeadingPositionDefined(.column) && child.isTrailingPositionDefined(.column) {
            childHeight = node.measuredDimensions.1 - (node.leadingBorder(.column) + node.trailingBorder(.column))
                - (child.leadingPosition(.column, height) + child.trailingPosition(.column, height))
            childHeight = boundAxis(child, .column, childHeight, height, width)
        }
        let ratio = child.aspectRatio
        if childWidth.isNaN != childHeight.isNaN && !ratio.isNaN {
            if childWidth.isNaN {
                childWidth = marginRow + (childHeight - marginColumn) * ratio
            } else {
                childHeight = marginColumn + (childWidth - marginRow) / ratio
            }
        }
        if childWidth.isNaN || childHeight.isNaN {
            var wMode: YogaMeasureMode = childWidth.isNaN ? .undefined : .exactly
            let hMode: YogaMeasureMode = childHeight.isNaN ? .undefined : .exactly
            if !isMainAxisRow && childWidth.isNaN && widthMode != .undefined && !width.isNaN && width > 0 {
                childWidth = width
                wMode = .atMost
            }
            try layoutNode(child, childWidth, childHeight, direction, wMode, hMode, childWidth, childHeight, performLayout: false)
            childWidth = child.measuredDimensions.0 + child.marginForAxis(.row, width)
            childHeight = child.measuredDimensions.1 + child.marginForAxis(.column, width)
        }
        try layoutNode(child, childWidth, childHeight, direction, .exactly, .exactly, childWidth, childHeight, performLayout: true)

        let mainDim = mainAxis.dimension, crossDim = crossAxis.dimension
        if child.isTrailingPositionDefined(mainAxis) && !child.isLeadingPositionDefined(mainAxis) {
            child.layoutPosition[mainAxis.leading] = node.measured(mainDim) - child.measured(mainDim) - node.trailingBorder(mainAxis)
                - child.trailingMargin(mainAxis, isMainAxisRow ? width : height)
                - child.trailingPosition(mainAxis, isMainAxisRow ? width : height)
        } else if !child.isLeadingPositionDefined(mainAxis) && node.justifyContent == .center {
            child.layoutPosition[mainAxis.leading] = (node.measured(mainDim) - child.measured(mainDim)) / 2
        } else if !child.isLeadingPositionDefined(mainAxis) && node.justifyContent == .flexEnd {
            child.layoutPosition[mainAxis.leading] = node.measured(mainDim) - child.measured(mainDim)
        }
        if child.isTrailingPositionDefined(crossAxis) && !child.isLeadingPositionDefined(crossAxis) {
            child.layoutPosition[crossAxis.leading] = node.measured(crossDim) - child.measured(crossDim) - node.trailingBorder(crossAxis)
                - child.trailingMargin(crossAxis, isMainAxisRow ? height : width)
                - child.trailingPosition(crossAxis, isMainAxisRow ? height : width)
        } else if !child.isLeadingPositionDefined(crossAxis) && alignItem(node, child) == .center {
            child.layoutPosition[crossAxis.leading] = (node.measured(crossDim) - child.measured(crossDim)) / 2
        } else if !child.isLeadingPositionDefined(crossAxis) && ((alignItem(node, child) == .flexEnd) != (node.wrap == .wrapReverse)) {
            child.layoutPosition[crossAxis.leading] = node.measured(crossDim) - child.measured(crossDim)
        }
    }

    /// Step 11: on a reversed axis, children were placed from its far edge; their
    /// left/top are set from that.
    func setTrailingPositions(_ f: YogaContainerFrame) {
        let main = f.mainAxis.isReverse, cross = f.crossAxis.isReverse
        guard main || cross else { return }
        let node = f.node
        for i in 0..<node.children.count { node.withChild(i) { child in
            if main { setTrailingPosition(node, child, f.mainAxis) }
            if cross { setTrailingPosition(node, child, f.crossAxis) }
        } }
    }

    private func setTrailingPosition(_ node: YogaNode, _ child: YogaNode, _ axis: YogaAxis) {
        let d = axis.dimension
        child.layoutPosition[axis.trailing] = node.measured(d) - child.measured(d) - child.layoutPosition[axis.leading]
    }
}
