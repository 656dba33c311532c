/// `ASSizeRange`: an inclusive min/max size. Ranges built inside the engine may be inverted
/// (min > max); the operations below reproduce Texture's behaviour for them.
public struct SizeRange: Hashable, Sendable, CustomStringConvertible {
    public var min: Size
    public var max: Size
    public init(min: Size, max: Size) { self.min = min; self.max = max }
    public init(exactly size: Size) { self.min = size; self.max = size }

    /// min 0×0, max inf×inf.
    public static let unconstrained = SizeRange(min: .zero, max: .infinite)

    /// `ASSizeRangeClamp`: per axis MAX(min, MIN(max, size)). Min wins an inverted range;
    /// a NaN size clamps to min.
    @inlinable public func clamp(_ size: Size) -> Size {
        Size(width: cgMax(min.width, cgMin(max.width, size.width)),
             height: cgMax(min.height, cgMin(max.height, size.height)))
    }

    /// `ASSizeRangeIntersect`: asymmetric, `self` wins when the ranges do not overlap.
    @inlinable public func intersect(_ other: SizeRange) -> SizeRange {
        let w = SizeRange.intersectAxis(min.width, max.width, other.min.width, other.max.width)
        let h = SizeRange.intersectAxis(min.height, max.height, other.min.height, other.max.height)
        return SizeRange(min: Size(width: w.0, height: h.0), max: Size(width: w.1, height: h.1))
    }

    @inlinable static func intersectAxis(_ aMin: Double, _ aMax: Double, _ bMin: Double, _ bMax: Double) -> (Double, Double) {
        let lo = cgMax(aMin, bMin), hi = cgMin(aMax, bMax)
        if lo <= hi { return (lo, hi) }
        if aMin < bMin { return (aMax, aMax) }
        return (aMin, aMin)
    }

    /// The parent size a spec gives its children (Texture's absolute, corner and relative
    /// specs): the max on each axis where it is a valid size, else NaN, so that a child's
    /// relative dimensions resolve to auto there.
    @inlinable public var parentSizeForChildren: Size {
        Size(width: validForSize(max.width) ? max.width : .nan, height: validForSize(max.height) ? max.height : .nan)
    }

    /// Bitwise equality (NaN == NaN) for cache keys.
    @inlinable public func bitwiseEquals(_ o: SizeRange) -> Bool { min.bitwiseEquals(o.min) && max.bitwiseEquals(o.max) }

    public var description: String { "[\(min) – \(max)]" }
}
