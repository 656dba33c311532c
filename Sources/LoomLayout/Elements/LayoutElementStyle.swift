/// `ASStackLayoutAlignSelf`.
public enum AlignSelf: String, Hashable, Sendable, CaseIterable {
    case auto, start, end, center, stretch
}

/// `ASLayoutElementStyle`: the sizing and flex properties every element carries.
public struct LayoutElementStyle: Hashable, Sendable {
    public var width: Dimension = .auto
    public var height: Dimension = .auto
    public var minWidth: Dimension = .auto
    public var maxWidth: Dimension = .auto
    public var minHeight: Dimension = .auto
    public var maxHeight: Dimension = .auto
    public var flexGrow: Double = 0
    public var flexShrink: Double = 0
    public var flexBasis: Dimension = .auto
    public var alignSelf: AlignSelf = .auto
    public var spacingBefore: Double = 0
    public var spacingAfter: Double = 0
    public var ascender: Double = 0
    public var descender: Double = 0
    public var layoutPosition: Point = .zero

    public init() {}

    /// `preferredSize` setter: width and height in points.
    public mutating func setPreferredSize(_ s: Size) { width = .points(s.width); height = .points(s.height) }
    public mutating func setMinSize(_ s: Size) { minWidth = .points(s.width); minHeight = .points(s.height) }
    public mutating func setMaxSize(_ s: Size) { maxWidth = .points(s.width); maxHeight = .points(s.height) }

    /// `ASLayoutElementSizeResolveAutoSize`: the range this style asks for against a parent
    /// size. Precedence per axis: min beats max beats exact.
    /// Inlined: called on an element's `style`, an outlined call would first copy the whole
    /// style (176 bytes) out of the element, once per measurement.
    @inline(__always)
    public func resolveSize(parent: Size, autoRange: SizeRange = .unconstrained) -> SizeRange {
        let w = LayoutElementStyle.resolveAxis(width, minWidth, maxWidth, parent.width, autoRange.min.width, autoRange.max.width)
        let h = LayoutElementStyle.resolveAxis(height, minHeight, maxHeight, parent.height, autoRange.min.height, autoRange.max.height)
        return SizeRange(min: Size(width: w.0, height: h.0), max: Size(width: w.1, height: h.1))
    }

    @inline(__always)
    static func resolveAxis(_ exactDim: Dimension, _ minDim: Dimension, _ maxDim: Dimension,
                            _ parent: Double, _ autoMin: Double, _ autoMax: Double) -> (Double, Double) {
        let exact = exactDim.resolve(parent: parent, auto: .nan)
        let lo = minDim.resolve(parent: parent, auto: autoMin)
        let hi = maxDim.resolve(parent: parent, auto: autoMax)
        if hi <= lo { return (lo, lo) }
        if exact.isNaN { return (lo, hi) }
        if exact > hi { return (hi, hi) }
        if exact < lo { return (lo, lo) }
        return (exact, exact)
    }
}
