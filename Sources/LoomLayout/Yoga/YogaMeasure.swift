/// Measured leaves (docs/yoga.md §5): Yoga's side (`YGNodeWithMeasureFuncSetMeasuredDimensions`)
/// and Texture's measure and baseline functions.
extension YogaLayoutPass {
    /// A measured leaf's size: its available size when both modes are exact, otherwise the
    /// measure function's answer plus padding and border, within min/max.
    func measureLeaf(_ node: YogaNode, _ availableWidth: Float, _ availableHeight: Float, _ widthMode: YogaMeasureMode,
                     _ heightMode: YogaMeasureMode, _ ownerWidth: Float, _ ownerHeight: Float, rowAxis: YogaAxis) throws {
        let width = widthMode == .undefined ? Float.nan : availableWidth
        let height = heightMode == .undefined ? Float.nan : availableHeight
        let pbRow = node.paddingAndBorder(rowAxis, ownerWidth)
        let pbColumn = node.paddingAndBorder(.column, ownerWidth)
        let innerWidth = width.isNaN ? width : ygMax(0, width - pbRow)
        let innerHeight = height.isNaN ? height : ygMax(0, height - pbColumn)
        if widthMode == .exactly && heightMode == .exactly {
            node.measuredDimensions.0 = boundAxis(node, .row, width, ownerWidth, ownerWidth)
            node.measuredDimensions.1 = boundAxis(node, .column, height, ownerHeight, ownerWidth)
            return
        }
        let measured = try host.measure(node, width: innerWidth, widthMode: widthMode, height: innerHeight, heightMode: heightMode)
        node.measuredDimensions.0 = boundAxis(node, .row, widthMode == .exactly ? width : measured.0 + pbRow, ownerWidth, ownerWidth)
        node.measuredDimensions.1 = boundAxis(node, .column, heightMode == .exactly ? height : measured.1 + pbColumn, ownerHeight, ownerWidth)
    }
}

extension YogaTree {
    /// `ASLayoutElementYogaMeasureFunc` (§5.1): Yoga's size and modes made a size range
    /// (undefined → +inf; min = size when exact, else a points min style as a float, else 0),
    /// the node measured in it with parent size = its max, the ceiled size returned as floats.
    func measure(_ node: YogaNode, width: Float, widthMode: YogaMeasureMode, height: Float, heightMode: YogaMeasureMode) throws -> (Float, Float) {
        let style = node.element.style
        let w = width.isNaN ? Double.infinity : Double(width)
        let h = height.isNaN ? Double.infinity : Double(height)
        var range = SizeRange(min: .zero, max: Size(width: w, height: h))
        if widthMode == .exactly {
            range.min.width = w
        } else if case .points(let v) = style.minWidth {
            range.min.width = Double(Float(v))
        }
        if heightMode == .exactly {
            range.min.height = h
        } else if case .points(let v) = style.minHeight {
            range.min.height = Double(Float(v))
        }
        let layout = node.element.layoutThatFits(range, parentSize: range.max, context: context)
        if context.isStopped { throw YogaInterruption.stopped }
        node.lastMeasuredLayout = layout
        return (Float(layout.size.width), Float(layout.size.height))
    }

    /// `ASLayoutElementYogaBaselineFunc` (§5.2): read through the Yoga parent's alignItems.
    func baseline(_ node: YogaNode, width: Float, height: Float) -> Float {
        let ascender = node.lastMeasuredLayout?.ascender ?? node.element.style.ascender
        let descender = node.lastMeasuredLayout?.descender ?? node.element.style.descender
        switch node.parentAlignItems {
        case .baselineFirst?: return Float(ascender)
        case .baselineLast?: return Float(Double(height) + descender)
        default: return 0
        }
    }
}
