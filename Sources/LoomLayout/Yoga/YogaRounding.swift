#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Yoga's rounding to the pixel grid at the end of a pass (docs/yoga.md §4.1).
enum YogaRounding {
    /// `YGRoundValueToPixelGrid`: in doubles, values within 1e-4 of a pixel count as on it;
    /// otherwise forced ceil, forced floor, or half up. The result is a float.
    @inline(__always)
    static func roundValue(_ value: Double, _ scale: Double, ceil forceCeil: Bool, floor forceFloor: Bool) -> Float {
        var scaled = value * scale
        var fraction = scaled - truncated(scaled)
        if fraction < 0 { fraction += 1 }
        if doubleEqual(fraction, 0) {
            scaled -= fraction
        } else if doubleEqual(fraction, 1) {
            scaled = scaled - fraction + 1
        } else if forceCeil {
            scaled = scaled - fraction + 1
        } else if forceFloor {
            scaled -= fraction
        } else {
            scaled = scaled - fraction + (!fraction.isNaN && (fraction > 0.5 || doubleEqual(fraction, 0.5)) ? 1 : 0)
        }
        return scaled.isNaN || scale.isNaN ? .nan : Float(scaled / scale)
    }

    /// `trunc`, by a conversion to an integer where that is exact (a libm call otherwise),
    /// keeping the sign of a zero as `trunc` does.
    @inline(__always) static func truncated(_ v: Double) -> Double {
        abs(v) < 4.5e15 ? Double(signOf: v, magnitudeOf: Double(Int64(v))) : v.rounded(.towardZero)
    }

    /// Whether `v` is a whole number (NaN and huge values are not taken as one).
    @inline(__always) static func onGrid(_ v: Double) -> Bool {
        abs(v) < 4.5e15 && Double(Int64(v)) == v
    }

    @inline(__always) static func doubleEqual(_ a: Double, _ b: Double) -> Bool {
        if !a.isNaN && !b.isNaN { return abs(a - b) < 0.0001 }
        return a.isNaN && b.isNaN
    }

    /// `YGRoundToPixelGrid`: left/top rounded on their own, sizes as the difference of the
    /// rounded absolute edges; measured ("text") nodes floor their origin and ceil a far
    /// edge that has a fraction.
    static func roundTree(_ node: YogaNode, scale: Double, absoluteLeft: Double, absoluteTop: Double) {
        guard scale != 0 else { return }
        let left = Double(node.layoutPosition[YogaEdge.left])
        let top = Double(node.layoutPosition[YogaEdge.top])
        let width = Double(node.layoutDimensions.0)
        let height = Double(node.layoutDimensions.1)
        let absLeft = absoluteLeft + left
        let absTop = absoluteTop + top
        let absRight = absLeft + width
        let absBottom = absTop + height
        if node.hasMeasure {
            node.layoutPosition[YogaEdge.left] = roundValue(left, scale, ceil: false, floor: true)
            node.layoutPosition[YogaEdge.top] = roundValue(top, scale, ceil: false, floor: true)
            let ws = width * scale, hs = height * scale
            let wFraction = ws - truncated(ws)
            let hFraction = hs - truncated(hs)
            let fractionalWidth = !doubleEqual(wFraction, 0) && !doubleEqual(wFraction, 1)
            let fractionalHeight = !doubleEqual(hFraction, 0) && !doubleEqual(hFraction, 1)
            node.layoutDimensions.0 = roundValue(absRight, scale, ceil: fractionalWidth, floor: !fractionalWidth)
                - roundValue(absLeft, scale, ceil: false, floor: true)
            node.layoutDimensions.1 = roundValue(absBottom, scale, ceil: fractionalHeight, floor: !fractionalHeight)
                - roundValue(absTop, scale, ceil: false, floor: true)
        } else if (scale == 1 || scale == 2) && onGrid(left * scale) && onGrid(top * scale)
                    && onGrid(absLeft * scale) && onGrid(absTop * scale) && onGrid(absRight * scale) && onGrid(absBottom * scale) {
            // Every value already on the grid, and multiplying by the scale and dividing again
            // exact: rounding gives each value back (the origin stays as it is).
            node.layoutDimensions.0 = Float(absRight) - Float(absLeft)
            node.layoutDimensions.1 = Float(absBottom) - Float(absTop)
        } else {
            // Every value rounded half up (the forced directions are for measured nodes only).
            node.layoutPosition[YogaEdge.left] = roundValue(left, scale, ceil: false, floor: false)
            node.layoutPosition[YogaEdge.top] = roundValue(top, scale, ceil: false, floor: false)
            node.layoutDimensions.0 = roundValue(absRight, scale, ceil: false, floor: false)
                - roundValue(absLeft, scale, ceil: false, floor: false)
            node.layoutDimensions.1 = roundValue(absBottom, scale, ceil: false, floor: false)
                - roundValue(absTop, scale, ceil: false, floor: false)
        }
        for i in 0..<node.children.count {
            node.withChild(i) { roundTree($0, scale: scale, absoluteLeft: absLeft, absoluteTop: absTop) }
        }
    }
}
