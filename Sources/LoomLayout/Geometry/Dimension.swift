/// `ASDimension`: auto, points or a fraction of the parent's size.
public enum Dimension: Hashable, Sendable, CustomStringConvertible {
    case auto
    case points(Double)
    case fraction(Double)

    /// `ASDimensionResolve`: auto → `autoSize`; points → value; fraction → value × parent.
    @inlinable public func resolve(parent: Double, auto autoSize: Double) -> Double {
        switch self {
        case .auto: return autoSize
        case .points(let v): return v
        case .fraction(let f): return f * parent
        }
    }

    public var isFraction: Bool { if case .fraction = self { return true } else { return false } }
    /// Matched by its case (`!= .auto` goes through the synthesized `==`).
    public var isAuto: Bool { if case .auto = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .points(let v): return "\(v)pt"
        case .fraction(let f): return "\(f * 100)%"
        }
    }
}
