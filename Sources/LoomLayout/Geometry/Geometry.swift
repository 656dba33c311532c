// Points, sizes and Texture's numeric helpers.
// All geometry is Double (CGFloat on 64-bit Apple platforms). NaN means "undefined".

public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double
    public init(width: Double, height: Double) { self.width = width; self.height = height }
    public static let zero = Size(width: 0, height: 0)
    public static let infinite = Size(width: .infinity, height: .infinity)
    public static let undefined = Size(width: .nan, height: .nan)
    public var description: String { "\(width)×\(height)" }

    /// Bitwise equality (NaN == NaN), used for cache keys where NaN is a legitimate input.
    @inlinable public func bitwiseEquals(_ other: Size) -> Bool {
        width.bitPattern == other.width.bitPattern && height.bitPattern == other.height.bitPattern
    }
}

public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public static let zero = Point(x: 0, y: 0)
    public var description: String { "(\(x), \(y))" }
}

public struct EdgeInsets: Hashable, Sendable {
    public var top: Double, left: Double, bottom: Double, right: Double
    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static let zero = EdgeInsets()
    public var isZero: Bool { top == 0 && left == 0 && bottom == 0 && right == 0 }
}

/// Foundation's `MAX(a, b)` macro: `a < b ? b : a`. `MAX(NaN, x) = NaN`, `MAX(x, NaN) = x`.
@inlinable public func cgMax(_ a: Double, _ b: Double) -> Double { a < b ? b : a }
/// Foundation's `MIN(a, b)` macro: `a < b ? a : b`. `MIN(NaN, x) = x`, `MIN(x, NaN) = NaN`.
@inlinable public func cgMin(_ a: Double, _ b: Double) -> Double { a < b ? a : b }

/// `CGFLOAT_MAX`.
public let cgFloatMax = Double.greatestFiniteMagnitude

/// Texture's `ASIsCGSizeValidForSize` component test: 0 or normal, >= 0, < 1e7.
@inlinable public func validForSize(_ v: Double) -> Bool {
    (v == 0 || v.isNormal) && v >= 0 && v < 1e7
}
@inlinable public func validSize(_ s: Size) -> Bool { validForSize(s.width) && validForSize(s.height) }

/// Pixel snapping at a screen scale, as ASInternalHelpers does it (FLT_EPSILON as a double).
public struct PixelGrid: Hashable, Sendable {
    public let scale: Double
    public init(scale: Double) { self.scale = scale }
    /// Float.ulpOfOne (2^-23) as an inlined literal: a stored static is a global, which a
    /// caller in another module reaches through its accessor at every ceil.
    @inlinable static var epsilon: Double { 0x1p-23 }

    /// `ASCeilPixelValue`: ceil((v − ε) × s) / s. ceilPx(0) = −0.0.
    @inlinable public func ceil(_ v: Double) -> Double { ((v - PixelGrid.epsilon) * scale).rounded(.up) / scale }
    /// `ASFloorPixelValue`: floor((v + ε) × s) / s.
    @inlinable public func floor(_ v: Double) -> Double { ((v + PixelGrid.epsilon) * scale).rounded(.down) / scale }
    /// `ASRoundPixelValue`: round(v × s) / s, halves away from zero.
    @inlinable public func round(_ v: Double) -> Double { (v * scale).rounded(.toNearestOrAwayFromZero) / scale }
    @inlinable public func ceil(_ s: Size) -> Size { Size(width: ceil(s.width), height: ceil(s.height)) }
    @inlinable public func ceil(_ p: Point) -> Point { Point(x: ceil(p.x), y: ceil(p.y)) }
}
