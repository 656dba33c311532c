import Synchronization

/// What stays the same for every element of one layout pass: the pixel grid, the text
/// measurer and the optional cross-request subtree cache.
public final class LayoutContext: @unchecked Sendable {
    public let grid: PixelGrid
    public let textMeasurer: TextMeasuring?
    public let subtreeCache: SubtreeLayoutCaching?
    /// Whether `concurrent` stacks may measure their children on other threads.
    public let allowsConcurrency: Bool
    /// The pass's work budget and deadline; nil = unlimited (tests, benchmarks).
    public let budget: LayoutBudget?
    /// `budget`, read on every measurement without retaining it (`budget` holds it).
    private let budgetRef: Unmanaged<LayoutBudget>?
    private let computed = Atomic<Int>(0)
    private let yogaFailureSlot = Mutex<YogaFailure?>(nil)
    /// A layout no measurement ever returns (made here, handed to no element): the stack
    /// algorithm's mark for a child it has not measured yet, one per pass rather than one
    /// per stack measured.
    let placeholder: Layout

    public init(scale: Double = 2, textMeasurer: TextMeasuring? = nil, subtreeCache: SubtreeLayoutCaching? = nil,
                allowsConcurrency: Bool = true, budget: LayoutBudget? = nil) {
        self.grid = PixelGrid(scale: scale)
        self.budget = budget
        self.budgetRef = budget.map { Unmanaged.passUnretained($0) }
        self.textMeasurer = textMeasurer
        self.subtreeCache = subtreeCache
        self.allowsConcurrency = allowsConcurrency
        self.placeholder = Layout(size: .zero, ascender: 0, descender: 0, grid: grid)
    }

    /// A context for measurements already charged (a path-dependent element replaying calls
    /// it answered from the subtree cache): the same grid and measurer, no budget, no cache.
    func replaying() -> LayoutContext {
        LayoutContext(scale: grid.scale, textMeasurer: textMeasurer, subtreeCache: nil,
                      allowsConcurrency: allowsConcurrency, budget: nil)
    }

    /// The first Yoga assertion hit in this pass (Texture would crash there): the pass's
    /// layout is meaningless and the request is invalid (`invalid_spec` at the Yoga root).
    public var yogaFailure: YogaFailure? { yogaFailureSlot.withLock { $0 } }
    func reportYogaFailure(_ failure: YogaFailure) {
        yogaFailureSlot.withLock { if $0 == nil { $0 = failure } }
    }

    /// Layouts actually computed in this pass (memo and cache hits excluded).
    public var computedLayouts: Int { computed.load(ordering: .relaxed) }
    @inline(__always) func noteComputed() { computed.add(1, ordering: .relaxed) }

    /// Whether the pass has stopped (budget, deadline or cancellation): every measurement
    /// then returns `placeholder` at once.
    @inline(__always) public var isStopped: Bool {
        guard let budgetRef else { return false }
        return budgetRef._withUnsafeGuaranteedRef { $0.isStopped }
    }

    /// Charges work done at `element` to the pass's budget and to the cost of the
    /// measurement under way; false when the pass must stop.
    @inline(__always) public func charge(_ cost: LayoutCost, at element: LayoutElement) -> Bool {
        charge(cost, at: element, tally: PassTally.current)
    }

    /// `charge(_:at:)` with this thread's tally read once by the caller (`PassTally.current`,
    /// which stays the same while a caller's own loop runs: nested measurements restore it).
    @inline(__always) func charge(_ cost: LayoutCost, at element: LayoutElement, tally: UnsafeMutablePointer<PassTally>?) -> Bool {
        guard let tally else {
            guard let budgetRef else { return true }
            return budgetRef._withUnsafeGuaranteedRef { $0.charge(cost, at: element) }
        }
        tally.pointee.frame += cost
        guard let budgetRef else { return true }
        if cost.measurements == 1 && cost.characters == 0 && cost.lines == 0 {
            tally.pointee.pending &+= 1
            if tally.pointee.pending < PassTally.batch { return true }
            tally.pointee.pending = 0
            return budgetRef._withUnsafeGuaranteedRef { $0.charge(LayoutCost(measurements: PassTally.batch), at: element) }
        }
        var total = cost
        total.measurements &+= tally.pointee.pending
        tally.pointee.pending = 0
        return budgetRef._withUnsafeGuaranteedRef { $0.charge(total, at: element) }
    }

    /// Hands what `tally` left pending to the budget (the end of a pass or of a job).
    func flush(_ tally: inout PassTally) {
        guard tally.pending > 0, let budgetRef else { return }
        let pending = LayoutCost(measurements: tally.pending)
        tally.pending = 0
        budgetRef._withUnsafeGuaranteedRef { $0.chargeAtEnd(pending) }
    }
}

/// A 128-bit digest of an element's subtree: everything about it that can change a frame
/// (ids excluded). Set by whoever builds the tree; the engine only compares digests.
public struct ElementDigest: Hashable, Sendable, CustomStringConvertible {
    public var high: UInt64
    public var low: UInt64
    public init(high: UInt64, low: UInt64) { self.high = high; self.low = low }
    /// 32 lowercase hex digits, `high` first (written into the string directly: it is the
    /// `X-Layout-Key` of every answer).
    public var description: String {
        String(unsafeUninitializedCapacity: 32) { out in
            for k in 0..<32 {
                let nibble = UInt8(truncatingIfNeeded: (k < 16 ? high : low) >> UInt64(60 - 4 * (k % 16))) & 0xF
                out[k] = nibble < 10 ? 48 + nibble : 87 + nibble
            }
            return 32
        }
    }
}

/// The key of one measurement: a subtree measured under a constrained range and a parent size.
public struct SubtreeLayoutKey: Hashable, Sendable {
    public let digest: ElementDigest
    public let constrained: SizeRange
    public let parentSize: Size
    public let scale: Double

    public init(digest: ElementDigest, constrained: SizeRange, parentSize: Size, scale: Double) {
        self.digest = digest; self.constrained = constrained; self.parentSize = parentSize; self.scale = scale
    }
    public static func == (a: SubtreeLayoutKey, b: SubtreeLayoutKey) -> Bool {
        a.digest == b.digest && a.constrained.bitwiseEquals(b.constrained)
            && a.parentSize.bitwiseEquals(b.parentSize) && a.scale.bitPattern == b.scale.bitPattern
    }
    public func hash(into h: inout Hasher) {
        h.combine(digest.high); h.combine(digest.low)
        h.combine(constrained.min.width.bitPattern); h.combine(constrained.min.height.bitPattern)
        h.combine(constrained.max.width.bitPattern); h.combine(constrained.max.height.bitPattern)
        h.combine(parentSize.width.bitPattern); h.combine(parentSize.height.bitPattern)
        h.combine(scale.bitPattern)
    }
}

/// A layout from the shared subtree cache and what computing it cost (charged again on
/// every reuse, so that a warm pass is charged as the cold one was).
public struct CachedSubtreeLayout: Sendable {
    public let layout: Layout
    public let cost: LayoutCost
    public init(layout: Layout, cost: LayoutCost) { self.layout = layout; self.cost = cost }
}

/// A cache of measured subtrees shared between layout passes (Texture keeps each node's
/// last layout; Loom keeps them across requests). Must be thread-safe.
public protocol SubtreeLayoutCaching: AnyObject, Sendable {
    func layout(for key: SubtreeLayoutKey) -> CachedSubtreeLayout?
    func store(_ layout: CachedSubtreeLayout, for key: SubtreeLayoutKey)
}
