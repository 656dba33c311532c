import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What one layout pass may cost: measurements computed, characters of text measured and
/// lines of text produced. Work is counted as the tree asks for it, not as caches happen
/// to save it: a subtree answered from the shared subtree cache is charged what computing
/// it cost, so the same tree gets the same verdict warm or cold.
public struct LayoutLimits: Hashable, Sendable {
    /// Element measurements computed (memo hits are free: the work was counted when it was done).
    public var measurements: Int
    /// UTF-8 bytes of text handed to the text measurer, summed over its measurements.
    public var characters: Int
    /// Lines of text the measurer produced, summed over its measurements.
    public var lines: Int

    public init(measurements: Int = 200_000, characters: Int = 16_000_000, lines: Int = 1_000_000) {
        self.measurements = measurements; self.characters = characters; self.lines = lines
    }

    public static let unlimited = LayoutLimits(measurements: .max, characters: .max, lines: .max)
}

/// The work a measurement (and everything it measured) was charged.
public struct LayoutCost: Hashable, Sendable {
    public var measurements: Int
    public var characters: Int
    public var lines: Int
    public init(measurements: Int = 0, characters: Int = 0, lines: Int = 0) {
        self.measurements = measurements; self.characters = characters; self.lines = lines
    }
    @inline(__always) static func += (a: inout LayoutCost, b: LayoutCost) {
        a.measurements &+= b.measurements; a.characters &+= b.characters; a.lines &+= b.lines
    }
}

/// Why a layout pass stopped before its end. Its layout is then meaningless and is thrown away.
public enum LayoutStop: Sendable, Equatable {
    /// A limit of `LayoutLimits` was passed; `element` is the one being measured then.
    case budgetExceeded(Budget, element: ObjectIdentifier?)
    /// The wall-clock deadline passed.
    case deadlineExceeded
    /// Whoever asked for the layout does not want it any more (the client went away).
    case cancelled

    public enum Budget: String, Sendable, CaseIterable { case measurements, characters, lines }
}

/// The budget and deadline of one layout pass, shared by every thread working on it. Once
/// it stops it stays stopped: every further measurement returns at once with a
/// placeholder, nothing more is stored in shared caches, and the caller reads `stop`.
public final class LayoutBudget: @unchecked Sendable {
    /// Set before the pass starts (a service sets them once the request is decoded), read
    /// while it runs.
    public var limits: LayoutLimits
    /// `DispatchTime.now().uptimeNanoseconds` after which the pass stops; `.max` for none.
    public let deadline: UInt64
    private let measurements = Atomic<Int>(0)
    private let characters = Atomic<Int>(0)
    private let lines = Atomic<Int>(0)
    /// 0 while running; then the first reason's code (1 budget, 2 deadline, 3 cancelled).
    private let state = Atomic<Int>(0)
    private let reason = Mutex<LayoutStop?>(nil)
    /// A budget this one's charges are also drawn from (a batch's, shared by its items):
    /// when it runs out, this pass stops too.
    public let parent: LayoutBudget?
    /// `parent`, read on every charge without retaining it (`parent` holds it).
    private let parentRef: Unmanaged<LayoutBudget>?

    public init(limits: LayoutLimits = LayoutLimits(), deadline: UInt64 = .max, parent: LayoutBudget? = nil) {
        self.limits = limits
        self.deadline = deadline
        self.parent = parent
        self.parentRef = parent.map { Unmanaged.passUnretained($0) }
    }

    /// A budget with a deadline `seconds` from now.
    public convenience init(limits: LayoutLimits, seconds: Double) {
        let now = DispatchTime.now().uptimeNanoseconds
        let span = seconds.isFinite && seconds > 0 ? UInt64(min(seconds, 1e9) * 1e9) : 0
        self.init(limits: limits, deadline: seconds.isFinite ? now &+ span : .max)
    }

    /// A budget for one part of this one's work (a batch item): its own limits, this
    /// one's deadline, and every charge drawn from this one too.
    public func part(limits: LayoutLimits) -> LayoutBudget {
        LayoutBudget(limits: limits, deadline: deadline, parent: self)
    }

    /// Whether the pass has stopped (any reason; a parent's stop counts). Cheap: one or two relaxed loads.
    @inline(__always) public var isStopped: Bool {
        if state.load(ordering: .relaxed) != 0 { return true }
        guard let parentRef else { return false }
        return parentRef._withUnsafeGuaranteedRef { $0.isStopped }
    }

    /// Why the pass stopped, or nil while it runs (or when it finished within its budget).
    /// A pass stopped by its parent gives the parent's reason.
    public var stop: LayoutStop? {
        if let own = reason.withLock({ $0 }) { return own }
        switch parent?.stop {
        case .budgetExceeded(let which, _)?: return .budgetExceeded(which, element: nil)
        case let other: return other
        }
    }

    /// What was charged so far.
    public var spent: LayoutCost {
        LayoutCost(measurements: measurements.load(ordering: .relaxed), characters: characters.load(ordering: .relaxed),
                   lines: lines.load(ordering: .relaxed))
    }

    /// Stops the pass (the first reason given is the one kept).
    public func halt(_ why: LayoutStop) {
        reason.withLock { current in
            if current == nil {
                current = why
                let code: Int
                switch why {
                case .budgetExceeded: code = 1
                case .deadlineExceeded: code = 2
                case .cancelled: code = 3
                }
                state.store(code, ordering: .relaxed)
            }
        }
    }

    /// Stops this pass for the reason its parent stopped (a shared budget that ran out
    /// names the element of this pass being measured then).
    private func adoptStop(of parent: LayoutBudget, at element: ObjectIdentifier?) {
        switch parent.stop {
        case .budgetExceeded(let which, _)?: halt(.budgetExceeded(which, element: element))
        case .cancelled?: halt(.cancelled)
        case .deadlineExceeded?, nil: halt(.deadlineExceeded)
        }
    }

    /// Stops the pass because its requester is gone.
    public func cancel() { halt(.cancelled) }

    /// For long loops outside the element tree (the text measurer's): true when the pass
    /// has stopped or its deadline has just passed (then it stops).
    public func shouldStop() -> Bool {
        if let parent, parent.isStopped { adoptStop(of: parent, at: nil); return true }
        if isStopped { return true }
        if deadline != .max && DispatchTime.now().uptimeNanoseconds > deadline {
            halt(.deadlineExceeded)
            return true
        }
        return false
    }

    /// Charges what a pass or a job left pending when it ended: a limit it passes stops the
    /// pass, with no element to name.
    func chargeAtEnd(_ cost: LayoutCost) {
        if let parentRef { parentRef._withUnsafeGuaranteedRef { $0.chargeAtEnd(cost) } }
        if measurements.add(cost.measurements, ordering: .relaxed).newValue > limits.measurements {
            halt(.budgetExceeded(.measurements, element: nil))
        }
    }

    /// Charges `cost` measured at `element`; false when the pass must stop. The deadline is
    /// read every 256 measurements (a clock read costs more than a measurement from a memo).
    @inline(__always)
    func charge(_ cost: LayoutCost, at element: LayoutElement) -> Bool {
        if let parentRef, !parentRef._withUnsafeGuaranteedRef({ $0.charge(cost, at: element) }) {
            adoptStop(of: parentRef.takeUnretainedValue(), at: ObjectIdentifier(element))
            return false
        }
        if isStopped { return false }
        let m = measurements.add(cost.measurements, ordering: .relaxed).newValue
        if m > limits.measurements { halt(.budgetExceeded(.measurements, element: ObjectIdentifier(element))); return false }
        if cost.characters != 0 || cost.lines != 0 {
            if characters.add(cost.characters, ordering: .relaxed).newValue > limits.characters {
                halt(.budgetExceeded(.characters, element: ObjectIdentifier(element))); return false
            }
            if lines.add(cost.lines, ordering: .relaxed).newValue > limits.lines {
                halt(.budgetExceeded(.lines, element: ObjectIdentifier(element))); return false
            }
        }
        // Single measurements come in batches of 32: every eighth batch reads the clock.
        if m & 255 < 32 || cost.measurements > PassTally.batch { return !shouldStop() }
        return true
    }
}

/// What one thread has charged in one pass: the cost of the measurement under way (so that
/// an element stored in the shared subtree cache is stored with what it cost) and the
/// measurements not yet handed to the budget (they go in batches: an atomic add for every
/// measurement would cost more than a measurement from a memo). Lives on the stack of the
/// pass (`calculateRootLayout`) or of a job a concurrent stack runs on another thread; a
/// thread-local slot points at it.
struct PassTally {
    /// The cost of the innermost measurement whose cost is recorded.
    var frame = LayoutCost()
    /// Single measurements charged to `frame` but not yet to the budget.
    var pending = 0
    /// How many measurements go to the budget at once.
    static let batch = 32

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k, nil)
        return k
    }()

    @inline(__always) static var current: UnsafeMutablePointer<PassTally>? {
        pthread_getspecific(key)?.assumingMemoryBound(to: PassTally.self)
    }

    /// Runs `body` with a tally of its own on this thread, then hands what it left pending
    /// to `context`'s budget.
    @inline(__always) static func counting<T>(_ context: LayoutContext, _ body: () -> T) -> (T, LayoutCost) {
        let saved = pthread_getspecific(key)
        var tally = PassTally()
        let result = withUnsafeMutablePointer(to: &tally) { p -> T in
            pthread_setspecific(key, p)
            defer { pthread_setspecific(key, saved) }
            return body()
        }
        context.flush(&tally)
        return (result, tally.frame)
    }

    /// Runs `body` as a measurement whose cost is recorded: its own frame in this thread's
    /// tally (or a tally of its own when there is none), the enclosing frame restored after.
    @inline(__always) static func recording<T>(_ context: LayoutContext, _ body: () -> T) -> (T, LayoutCost) {
        guard let tally = current else { return counting(context, body) }
        let saved = tally.pointee.frame
        tally.pointee.frame = LayoutCost()
        let result = body()
        let cost = tally.pointee.frame
        tally.pointee.frame = saved
        return (result, cost)
    }
}
