import Foundation
import XCTest
import LoomLayout

/// §7.2.1: `concurrent` is threading only and has no effect on results.
final class ConcurrentFlagResultTests: XCTestCase {

    /// A tree that exercises every stack phase (first pass, wrap, grow, shrink, stretch, optimized flexing,
    /// baselines, nested nodes with their own layout); `concurrent` is applied to every stack.
    private func tree(concurrent: Bool, measurer: Bool) -> LayoutElement {
        func stack(_ d: StackLayoutDirection, _ kids: [LayoutElement], align: StackLayoutAlignItems = .stretch,
                   wrap: StackLayoutFlexWrap = .noWrap, _ s: (inout LayoutElementStyle) -> Void = { _ in }) -> StackLayoutSpec {
            StackLayoutSpec(direction: d, spacing: 3, justifyContent: .spaceBetween, alignItems: align, flexWrap: wrap,
                            alignContent: .stretch, lineSpacing: 2, concurrent: concurrent, children: kids, style: style(s))
        }
        var rows: [LayoutElement] = []
        for i in 0..<12 {
            let d = Double(i)
            let wrapRow = stack(.horizontal, (0..<9).map { j in
                leaf(17 + Double(j) * 3.3, 10 + d) { $0.flexGrow = Double(j % 3); $0.flexShrink = Double((j + 1) % 2) }
            }, wrap: .wrap)
            let baselineRow = stack(.horizontal, [
                box(30, 20 + d) { $0.ascender = 15; $0.descender = -3 },
                stack(.vertical, [box(20, 10) { $0.ascender = 7 }, box(25, 12) { $0.descender = -2 }], align: .start),
                measurer ? text("row \(i) text that wraps", size: 11) { $0.flexShrink = 1 } as LayoutElement : leaf(140, 13),
            ], align: .baselineFirst)
            let optimizedRow = stack(.horizontal, [
                box(40, 10), plain { $0.flexGrow = 1; $0.flexShrink = 1 }, leaf(33.3, 7.7) { $0.alignSelf = .center },
            ])
            let nodeRow = DisplayNode(layoutSpec: InsetLayoutSpec(insets: EdgeInsets(top: 2, left: 4, bottom: 6, right: 8),
                                                                 child: stack(.horizontal, [leaf(50, 50), plain(), leaf(10, 70)])))
            rows.append(stack(.vertical, [wrapRow, baselineRow, optimizedRow, nodeRow]))
        }
        return DisplayNode(layoutSpec: stack(.vertical, rows))
    }

    func testConcurrentStacksGiveIdenticalLayouts() {
        for r in [range(320, 0, 320, inf), exact(375, 2000), range(0, 0, 500, 900)] {
            let serial = rootLayout(tree(concurrent: false, measurer: false), r)
            for _ in 0..<5 {
                let parallel = rootLayout(tree(concurrent: true, measurer: false), r)
                XCTAssertTrue(layoutsIdentical(serial, parallel), "\(r)")
            }
        }
    }

    func testConcurrentStacksWithTextGiveIdenticalLayouts() {
        let m = FakeTextMeasurer()
        let serial = calculateRootLayout(tree(concurrent: false, measurer: true), sizeRange: range(320, 0, 320, inf),
                                         context: LayoutContext(scale: 2, textMeasurer: m))
        let parallel = calculateRootLayout(tree(concurrent: true, measurer: true), sizeRange: range(320, 0, 320, inf),
                                           context: LayoutContext(scale: 2, textMeasurer: m))
        XCTAssertTrue(layoutsIdentical(serial, parallel))
    }

    func testConcurrencyDisabledByContextGivesSameResult() {
        let r = range(320, 0, 320, inf)
        let allowed = calculateRootLayout(tree(concurrent: true, measurer: false), sizeRange: r,
                                          context: LayoutContext(scale: 2, allowsConcurrency: true))
        let disallowed = calculateRootLayout(tree(concurrent: true, measurer: false), sizeRange: r,
                                             context: LayoutContext(scale: 2, allowsConcurrency: false))
        XCTAssertTrue(layoutsIdentical(allowed, disallowed))
    }

    func testSimpleConcurrentStackValues() {
        // Hand-derived values for a concurrent stack (same as the serial §12.2 golden case): 214.5 / 43 / 143.
        let s = StackLayoutSpec(alignItems: .start, concurrent: true, children: [
            box(300, 50) { $0.flexShrink = 1 }, box(100, 50) { $0.flexShrink = 2 }, box(200, 50) { $0.flexShrink = 1 },
        ])
        let l = rootLayout(s, exact(400, 400))
        XCTAssertEqual(frames(l), [[0, 0, 214.5, 50], [214.5, 0, 43, 50], [257.5, 0, 143, 50]])
    }

    func testManyLayoutsInParallelThreads() {
        // Independent trees laid out on several threads at once give the serial result.
        let r = range(320, 0, 320, inf)
        let expected = rootLayout(tree(concurrent: false, measurer: false), r)
        let results = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 8)
        defer { results.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 8) { i in
            let l = rootLayout(tree(concurrent: i % 2 == 0, measurer: false), r)
            results[i] = layoutsIdentical(expected, l)
        }
        XCTAssertEqual(Array(results), Array(repeating: true, count: 8))
    }
}
