// The small value types of the Yoga engine, as Yoga names them: measure modes, axes, edges,
// directions, alignments, values with their units, a node's edge values, cache entries.
//
// Undefined is NaN, as in Yoga; arithmetic with it stays undefined.

/// `YGMeasureMode`.
enum YogaMeasureMode: Int8 { case undefined = 0, exactly = 1, atMost = 2 }

/// `YGFlexDirection`, resolved against the layout direction where Yoga does so.
enum YogaAxis: Int {
    case column = 0, columnReverse = 1, row = 2, rowReverse = 3
    @inline(__always) var isRow: Bool { rawValue >= 2 }
    @inline(__always) var isColumn: Bool { rawValue < 2 }
    @inline(__always) var isReverse: Bool { self == .columnReverse || self == .rowReverse }
    /// The physical edge (`YogaEdge`) the axis starts from and ends at.
    @inline(__always) var leading: Int {
        switch self { case .column: return YogaEdge.top; case .columnReverse: return YogaEdge.bottom
        case .row: return YogaEdge.left; case .rowReverse: return YogaEdge.right }
    }
    @inline(__always) var trailing: Int {
        switch self { case .column: return YogaEdge.bottom; case .columnReverse: return YogaEdge.top
        case .row: return YogaEdge.right; case .rowReverse: return YogaEdge.left }
    }
    /// 0 = width, 1 = height.
    @inline(__always) var dimension: Int { isRow ? 0 : 1 }

    /// `YGResolveFlexDirection`: rows swap under RTL.
    @inline(__always) func resolved(_ direction: YogaResolvedDirection) -> YogaAxis {
        guard direction == .rtl else { return self }
        switch self {
        case .row: return .rowReverse
        case .rowReverse: return .row
        default: return self
        }
    }
    /// `YGFlexDirectionCross`.
    @inline(__always) func cross(_ direction: YogaResolvedDirection) -> YogaAxis {
        isColumn ? YogaAxis.row.resolved(direction) : .column
    }
}

/// Physical edges of the layout arrays.
enum YogaEdge {
    static let left = 0, top = 1, right = 2, bottom = 3
}

/// `YGDirection` as passed between nodes: inherit only at the root call.
enum YogaResolvedDirection: Int8 { case inherit = 0, ltr = 1, rtl = 2 }

/// `YGAlign`, the values Texture can set.
enum YogaAlign: Int8 { case auto, flexStart, center, flexEnd, stretch, baseline }

/// `YGJustify`, the values Texture can set.
enum YogaJustify: Int8 { case flexStart, center, flexEnd, spaceBetween, spaceAround }

/// `YGValue` as Texture writes it: auto and unset are both undefined here (Yoga treats
/// them alike for every property Texture can set).
enum YogaValue: Equatable {
    case undefined
    case point(Float)
    case percent(Float)

    init(_ d: Dimension?) {
        switch d {
        case nil, .auto?: self = .undefined
        case .points(let v)?:
            let f = yogaFloat(v)
            self = f.isNaN ? .undefined : .point(f)
        case .fraction(let f)?: self = .percent(Float(f * 100))
        }
    }

    var isUndefined: Bool { if case .undefined = self { return true } else { return false } }
    var isPercent: Bool { if case .percent = self { return true } else { return false } }

    /// `YGResolveValue`.
    @inline(__always) func resolve(_ ownerSize: Float) -> Float {
        switch self {
        case .undefined: return .nan
        case .point(let v): return v
        case .percent(let p): return p * ownerSize * 0.01
        }
    }
}

/// `yogaFloatForCGFloat`: a float, or undefined for values at or above CGFLOAT_MAX/2.
@inline(__always) func yogaFloat(_ v: Double) -> Float {
    v < cgFloatMax / 2 ? Float(v) : .nan
}

/// Yoga's float helpers: a maximum/minimum that ignores an undefined side, and equality
/// within 1e-4 (two undefined values are equal).
@inline(__always) func ygMax(_ a: Float, _ b: Float) -> Float {
    if !a.isNaN && !b.isNaN { return Swift.max(a, b) }
    return a.isNaN ? b : a
}
@inline(__always) func ygMin(_ a: Float, _ b: Float) -> Float {
    if !a.isNaN && !b.isNaN { return Swift.min(a, b) }
    return a.isNaN ? b : a
}
@inline(__always) func ygEqual(_ a: Float, _ b: Float) -> Bool {
    if !a.isNaN && !b.isNaN { return abs(a - b) < 0.0001 }
    return a.isNaN && b.isNaN
}

/// One kind of edges (margin, padding, border or position) as Texture sets them.
struct YogaEdgeValues: Equatable {
    // The value each side resolves to, fallbacks applied once here (Yoga looks them up on
    // every read): a row's leading/trailing side is start/end, else the physical side,
    // else horizontal, else all; a column's is the physical side, else vertical, else all.
    private var topSide = YogaValue.undefined, bottomSide = YogaValue.undefined
    /// Row leading when the row runs left to right (start, left, ...) and its trailing (end, right, ...).
    private var rowLeadingLeft = YogaValue.undefined, rowTrailingRight = YogaValue.undefined
    /// The same for a reversed row (start, right, ...) and (end, left, ...).
    private var rowLeadingRight = YogaValue.undefined, rowTrailingLeft = YogaValue.undefined

    init() {}
    /// No side set.
    var isEmpty: Bool {
        topSide.isUndefined && bottomSide.isUndefined && rowLeadingLeft.isUndefined && rowTrailingRight.isUndefined
            && rowLeadingRight.isUndefined && rowTrailingLeft.isUndefined
    }
    /// Inlined so that the edges are read where they are stored (a call copies them first).
    @inline(__always) init(_ e: YogaEdges) {
        guard !e.isEmpty else { return }
        @inline(__always) func side(_ s: YogaEdges.Side) -> YogaValue {
            let i = s.rawValue
            guard e.flags & (1 << UInt32(i)) != 0 else { return .undefined }
            let v = e.number(i)
            if e.isFraction(i) { return .percent(Float(v * 100)) }
            let f = yogaFloat(v)
            return f.isNaN ? .undefined : .point(f)
        }
        let all = side(.all), horizontal = side(.horizontal), vertical = side(.vertical)
        let left = side(.left), right = side(.right), start = side(.start), end = side(.end)
        @inline(__always) func first(_ a: YogaValue, _ b: YogaValue) -> YogaValue { a.isUndefined ? b : a }
        let column = first(vertical, all), row = first(horizontal, all)
        topSide = first(side(.top), column)
        bottomSide = first(side(.bottom), column)
        rowLeadingLeft = first(start, first(left, row))
        rowTrailingRight = first(end, first(right, row))
        rowLeadingRight = first(start, first(right, row))
        rowTrailingLeft = first(end, first(left, row))
    }

    /// Whether a side reads a percentage.
    var hasPercent: Bool {
        topSide.isPercent || bottomSide.isPercent || rowLeadingLeft.isPercent || rowTrailingRight.isPercent
            || rowLeadingRight.isPercent || rowTrailingLeft.isPercent
    }
    /// The largest points value a side reads (0 at least).
    var largestPoints: Float {
        func p(_ v: YogaValue) -> Float { if case .point(let x) = v { return Swift.max(x, 0) } else { return 0 } }
        return Swift.max(Swift.max(p(topSide), p(bottomSide)),
                         Swift.max(Swift.max(p(rowLeadingLeft), p(rowTrailingRight)), Swift.max(p(rowLeadingRight), p(rowTrailingLeft))))
    }

    /// Each side's points value, 0 where unset or a percentage, in `slot` order.
    var points: YogaFloat6 {
        @inline(__always) func p(_ v: YogaValue) -> Float { if case .point(let x) = v { return x } else { return 0 } }
        return YogaFloat6(v: (p(topSide), p(bottomSide), p(rowLeadingLeft), p(rowTrailingRight), p(rowLeadingRight), p(rowTrailingLeft)))
    }

    /// Where `side(axis, leading:)` is stored, counted in sides: column 0/1, reversed column
    /// 1/0, row 2/3, reversed row 4/5 (a table of nibbles, indexed by axis and end).
    @inline(__always) static func slot(_ axis: YogaAxis, leading: Bool) -> Int {
        let k = axis.rawValue &* 2 &+ (leading ? 0 : 1)
        return Int((UInt32(0x5432_0110) &>> UInt32(k &* 4)) & 0xF)
    }

    @inline(__always) func side(_ axis: YogaAxis, leading: Bool) -> YogaValue {
        switch axis {
        case .column: return leading ? topSide : bottomSide
        case .columnReverse: return leading ? bottomSide : topSide
        case .row: return leading ? rowLeadingLeft : rowTrailingRight
        case .rowReverse: return leading ? rowLeadingRight : rowTrailingLeft
        }
    }
}

struct YogaCacheEntry {
    var availableWidth: Float = -1
    var availableHeight: Float = -1
    var widthMode: Int8 = -1
    var heightMode: Int8 = -1
    var computedWidth: Float = -1
    var computedHeight: Float = -1
}

/// Four floats, one per physical edge (read and written at their offset: `i` is 0...3).
struct YogaFloat4 {
    var v = (Float(0), Float(0), Float(0), Float(0))
    @inline(__always) subscript(_ i: Int) -> Float {
        get { withUnsafeBytes(of: v) { $0.load(fromByteOffset: i &* 4, as: Float.self) } }
        set { withUnsafeMutableBytes(of: &v) { $0.storeBytes(of: newValue, toByteOffset: i &* 4, as: Float.self) } }
    }
}

/// Six floats, one per side slot of `YogaEdgeValues` (`i` is 0...5).
struct YogaFloat6 {
    var v: (Float, Float, Float, Float, Float, Float)
    @inline(__always) subscript(_ i: Int) -> Float {
        withUnsafeBytes(of: v) { $0.load(fromByteOffset: i &* 4, as: Float.self) }
    }
}
