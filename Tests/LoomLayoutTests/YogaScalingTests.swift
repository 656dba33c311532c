import LoomLayout
import XCTest

/// Nested Yoga containers cost work linear in the depth (bench/gen_trees.py's yoga_deep and
/// yoga_deepstretch shapes): real Yoga measures each container again for every ancestor's
/// leftover height, which Loom answers from one measurement.
final class YogaScalingTests: XCTestCase {
    /// s0 ← [pad0 ← [s1 ← …], leaf0]: each level a column holding a box with 1 pt of padding
    /// above and below (around the next level) and a 10×4 leaf with a 1 pt top margin.
    private static func deep(levels: Int, align: StackLayoutAlignItems) -> DisplayNode {
        var current = ynode({ _, y in y.alignItems = align }, children: [ynode({ s, _ in s.width = .points(10); s.height = .points(4) })])
        for _ in 1..<levels {
            let leaf = ynode({ s, y in s.width = .points(10); s.height = .points(4); y.margin.top = .points(1) })
            let pad = ynode({ _, y in y.padding.vertical = .points(1) }, children: [current])
            current = ynode({ _, y in y.alignItems = align }, children: [pad, leaf])
        }
        return current
    }

    private func layOut(levels: Int, align: StackLayoutAlignItems) -> (Layout, LayoutCost, LayoutStop?) {
        let budget = LayoutBudget(limits: LayoutLimits(measurements: 1_000_000, characters: .max, lines: .max))
        let context = LayoutContext(budget: budget)
        let layout = calculateRootLayout(Self.deep(levels: levels, align: align), sizeRange: range(0, 0, 375, .infinity), context: context)
        return (layout, budget.spent, budget.stop)
    }

    func testDeepNestsCostLinearWork() {
        for align in [StackLayoutAlignItems.start, .stretch] {
            let (small, smallCost, _) = layOut(levels: 50, align: align)
            let (large, largeCost, stop) = layOut(levels: 200, align: align)
            XCTAssertNil(stop)
            // Each level adds the padding (2), the leaf (4) and its margin (1) to the last leaf's 4.
            XCTAssertEqual(small.size, Size(width: 375, height: 4 + 49 * 7), "\(align)")
            XCTAssertEqual(large.size, Size(width: 375, height: 4 + 199 * 7), "\(align)")
            // Four times the levels, about four times the work (quadratic would be sixteen).
            XCTAssertLessThanOrEqual(largeCost.measurements, 4 * smallCost.measurements + 200, "\(align)")
            // Within the service's default budget for this many elements (50,000 + 10 per element).
            XCTAssertLessThan(largeCost.measurements, 50_000 + 10 * 3 * 200, "\(align)")
        }
    }

    func testDeepNestFramesAreTheSameWithStartAndStretch() {
        // With alignItems start every box is as wide as its content (10); with stretch 375.
        let (start, _, _) = layOut(levels: 20, align: .start)
        let (stretch, _, _) = layOut(levels: 20, align: .stretch)
        XCTAssertEqual(start.sublayouts[0].layout.size, Size(width: 10, height: 2 + 4 + 18 * 7))
        XCTAssertEqual(stretch.sublayouts[0].layout.size, Size(width: 375, height: 2 + 4 + 18 * 7))
        XCTAssertEqual(start.sublayouts[1].position, Point(x: 0, y: 2 + 4 + 18 * 7 + 1))
        XCTAssertEqual(stretch.sublayouts[1].position, Point(x: 0, y: 2 + 4 + 18 * 7 + 1))
    }
}
