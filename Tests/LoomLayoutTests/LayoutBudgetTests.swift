import Foundation
import Synchronization
import XCTest
@testable import LoomLayout

/// The work budget of one layout pass (issue 17, finding 1): a tree whose measurements
/// multiply with its depth stops at its budget instead of running for minutes, charges are
/// the same warm or cold, and the deadline and cancellation stop a pass.
final class LayoutBudgetTests: XCTestCase {
    /// `stack{[ratio{flexGrow/Shrink 1, child: <next level>}, text{flexGrow/Shrink 1}]}`,
    /// directions alternating: every level measures the ratio (and so the whole level
    /// below) under several distinct ranges, so measurements grow exponentially with depth.
    static func ratioChain(depth: Int) -> LayoutElement {
        var node: LayoutElement = text("leaf")
        for d in 0..<depth {
            let ratio = RatioLayoutSpec(ratio: [0.5, 0.75, 1][d % 3], child: node,
                                        style: style { $0.flexGrow = 1; $0.flexShrink = 1 })
            let sibling = text("x y") { $0.flexGrow = 1; $0.flexShrink = 1 }
            node = StackLayoutSpec(direction: d % 2 == 0 ? .horizontal : .vertical, children: [ratio, sibling])
        }
        return node
    }

    private func measurements(depth: Int) -> Int {
        let budget = LayoutBudget(limits: .unlimited)
        let context = LayoutContext(textMeasurer: FakeTextMeasurer(), budget: budget)
        _ = calculateRootLayout(Self.ratioChain(depth: depth), sizeRange: range(0, 0, 300, 700), context: context)
        XCTAssertNil(budget.stop)
        return budget.spent.measurements
    }

    func testTheChainIsExponentialWithoutABudget() {
        // The premise of the finding: each level at least doubles the work below it.
        let m4 = measurements(depth: 4), m8 = measurements(depth: 8)
        XCTAssertGreaterThan(m8, 4 * m4, "depth 8: \(m8), depth 4: \(m4)")
    }

    func testAChainDeeperThanItsBudgetStopsAtTheBudget() {
        let limits = LayoutLimits(measurements: 5_000, characters: .max, lines: .max)
        let budget = LayoutBudget(limits: limits)
        let root = Self.ratioChain(depth: 40)
        let context = LayoutContext(textMeasurer: FakeTextMeasurer(), budget: budget)
        let layout = calculateRootLayout(root, sizeRange: range(0, 0, 300, 700), context: context)
        guard case .budgetExceeded(.measurements, let element?)? = budget.stop else {
            return XCTFail("expected the measurement budget to run out, got \(String(describing: budget.stop))")
        }
        // The pass stops where the budget ran out (measurements reach the budget in batches
        // of 32): measurements beyond it are not computed.
        XCTAssertGreaterThan(budget.spent.measurements, limits.measurements)
        XCTAssertLessThanOrEqual(budget.spent.measurements, limits.measurements + 32)
        XCTAssertLessThanOrEqual(context.computedLayouts, limits.measurements)
        // The element named is one of the tree's.
        XCTAssertTrue(contains(root, element), "the stop names an element of the tree")
        // What a stopped pass returns is the placeholder, not a layout.
        XCTAssertTrue(layout === context.placeholder)
    }

    func testTextIsChargedCharactersAndLinesWhetherCachedOrNot() {
        // Two text nodes of 10 bytes, 5 characters per line at width 25 (0.5 × 10 pt each).
        let limits = LayoutLimits(measurements: .max, characters: .max, lines: .max)
        let budget = LayoutBudget(limits: limits)
        let stack = StackLayoutSpec(direction: .vertical, children: [text("abcdefghij"), text("abcdefghij")])
        let context = LayoutContext(textMeasurer: FakeTextMeasurer(), budget: budget)
        _ = calculateRootLayout(stack, sizeRange: range(0, 0, 25, 1000), context: context)
        // Each node measured once: its text (10 bytes) and truncation text ("…", 3 bytes).
        XCTAssertEqual(budget.spent.characters, 2 * 13)
        XCTAssertEqual(budget.spent.lines, 2 * 2)

        let tight = LayoutBudget(limits: LayoutLimits(measurements: .max, characters: .max, lines: 3))
        let again = StackLayoutSpec(direction: .vertical, children: [text("abcdefghij"), text("abcdefghij", id: "second")])
        _ = calculateRootLayout(again, sizeRange: range(0, 0, 25, 1000),
                                context: LayoutContext(textMeasurer: FakeTextMeasurer(), budget: tight))
        guard case .budgetExceeded(.lines, let element?)? = tight.stop else {
            return XCTFail("expected the lines budget to run out, got \(String(describing: tight.stop))")
        }
        XCTAssertEqual(element, ObjectIdentifier(again.children[1]), "the second text passes 3 lines")
    }

    func testWarmAndColdPassesAreChargedAlike() {
        // A cache that holds every subtree with a digest; every element gets its own digest.
        let cache = DictionarySubtreeCache()
        func tree() -> LayoutElement {
            let root = Self.ratioChain(depth: 6)
            var next: UInt64 = 1
            func mark(_ e: LayoutElement) {
                e.digest = ElementDigest(high: next, low: 0xC0FFEE); next += 1
                e.layoutChildren.forEach(mark)
            }
            mark(root)
            return root
        }
        func spent(limit: Int = .max) -> (LayoutCost, LayoutStop?) {
            let budget = LayoutBudget(limits: LayoutLimits(measurements: limit, characters: .max, lines: .max))
            let context = LayoutContext(textMeasurer: FakeTextMeasurer(), subtreeCache: cache, budget: budget)
            _ = calculateRootLayout(tree(), sizeRange: range(0, 0, 300, 700), context: context)
            return (budget.spent, budget.stop)
        }
        let (cold, _) = spent()
        XCTAssertGreaterThan(cache.count, 0)
        let (warm, _) = spent()
        XCTAssertEqual(warm, cold, "a pass answered from the subtree cache is charged what computing it cost")

        // The same verdict warm or cold, one below the cost: a request that was refused is not
        // let through once the parts it computed before refusal sit in the cache.
        cache.removeAll()
        let (_, coldStop) = spent(limit: cold.measurements - 1)
        let (_, warmStop1) = spent(limit: cold.measurements - 1)
        let (_, warmStop2) = spent(limit: cold.measurements - 1)
        for stop in [coldStop, warmStop1, warmStop2] {
            guard case .budgetExceeded(.measurements, _)? = stop else { return XCTFail("expected a refusal, got \(String(describing: stop))") }
        }
        let (_, fits) = spent(limit: cold.measurements)
        XCTAssertNil(fits)
    }

    func testAPassedDeadlineStopsThePass() {
        let budget = LayoutBudget(limits: .unlimited, deadline: DispatchTime.now().uptimeNanoseconds - 1)
        let context = LayoutContext(textMeasurer: FakeTextMeasurer(), budget: budget)
        _ = calculateRootLayout(Self.ratioChain(depth: 30), sizeRange: range(0, 0, 300, 700), context: context)
        XCTAssertEqual(budget.stop, .deadlineExceeded)
        XCTAssertLessThan(budget.spent.measurements, 1000, "checked at least every 256 measurements")
    }

    func testCancellationFromAnotherThreadStopsThePass() {
        let budget = LayoutBudget(limits: .unlimited)
        let started = DispatchSemaphore(value: 0)
        let measurer = SignallingMeasurer(started)
        let cancelled = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            started.wait()
            budget.cancel()
            cancelled.signal()
        }
        let slow = LayoutContext(textMeasurer: measurer, budget: budget)
        _ = calculateRootLayout(Self.ratioChain(depth: 60), sizeRange: range(0, 0, 300, 700), context: slow)
        cancelled.wait()
        XCTAssertEqual(budget.stop, .cancelled)
    }

    func testNothingIsCachedAfterAPassStops() {
        let cache = DictionarySubtreeCache()
        let root = Self.ratioChain(depth: 12)
        var next: UInt64 = 1
        func mark(_ e: LayoutElement) { e.digest = ElementDigest(high: next, low: 7); next += 1; e.layoutChildren.forEach(mark) }
        mark(root)
        let budget = LayoutBudget(limits: LayoutLimits(measurements: 50, characters: .max, lines: .max))
        let context = LayoutContext(textMeasurer: FakeTextMeasurer(), subtreeCache: cache, budget: budget)
        _ = calculateRootLayout(root, sizeRange: range(0, 0, 300, 700), context: context)
        XCTAssertNotNil(budget.stop)
        XCTAssertGreaterThan(cache.count, 0)
        // Everything cached was finished before the stop: none holds the placeholder.
        for layout in cache.layouts {
            XCTAssertFalse(holds(context.placeholder, layout), "a cached layout holds the stopped pass's placeholder")
        }
        XCTAssertLessThanOrEqual(cache.count, 50)
    }

    private func holds(_ placeholder: Layout, _ l: Layout) -> Bool {
        l === placeholder || l.sublayouts.contains { holds(placeholder, $0.layout) }
    }

    private func contains(_ root: LayoutElement, _ id: ObjectIdentifier) -> Bool {
        ObjectIdentifier(root) == id || root.layoutChildren.contains { contains($0, id) }
    }
}

/// Answers like `FakeTextMeasurer` and signals once, on its first measurement.
private final class SignallingMeasurer: TextMeasuring, @unchecked Sendable {
    private let fake = FakeTextMeasurer()
    private let signal: DispatchSemaphore
    private let signalled = Atomic<Bool>(false)
    init(_ signal: DispatchSemaphore) { self.signal = signal }
    func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        if !signalled.exchange(true, ordering: .relaxed) { signal.signal() }
        usleep(200)
        return fake.measure(text, in: containerSize)
    }
    func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
}

/// A subtree cache without bounds, for tests.
final class DictionarySubtreeCache: SubtreeLayoutCaching, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [SubtreeLayoutKey: CachedSubtreeLayout] = [:]
    var count: Int { lock.withLock { entries.count } }
    var layouts: [Layout] { lock.withLock { entries.values.map(\.layout) } }
    func removeAll() { lock.withLock { entries.removeAll() } }
    func layout(for key: SubtreeLayoutKey) -> CachedSubtreeLayout? { lock.withLock { entries[key] } }
    func store(_ layout: CachedSubtreeLayout, for key: SubtreeLayoutKey) { lock.withLock { entries[key] = layout } }
}
