import XCTest
import LoomLayout

/// §7.1 plain spec (spacer) and wrapper.
final class WrapperSpacerTests: XCTestCase {

    func testSpacerTakesMin() {
        // §7.1: size = used.min; no sublayouts.
        let l = rootLayout(LayoutSpec(), range(10, 20, 100, 100))
        assertSize(l, 10, 20)
        XCTAssertTrue(l.sublayouts.isEmpty)
    }

    func testSpacerAppliesItsStyle() {
        // §3.3: minWidth 30 → used [10,100] ∩ [30,inf] = [30,100] → min 30; height 20.
        let l = rootLayout(LayoutSpec(style: style { $0.minWidth = .points(30) }), range(10, 20, 100, 100))
        assertSize(l, 30, 20)
        // Preferred size 40×50 → exact → 40×50.
        let p = rootLayout(LayoutSpec(style: style { $0.setPreferredSize(Size(width: 40, height: 50)) }), range(0, 0, 100, 100))
        assertSize(p, 40, 50)
    }

    func testSpacerBetweenItemsInVerticalStack() {
        // Vertical stack exact 100×200, alignItems stretch: box 100×50, spacer (grow 1), box 100×50.
        // Spacer first pass: main [0,inf], cross [100,100] → min → 100×0. v = 100 → spacer [100,100] → 100×100.
        // y = 0, 50, 150.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [
            box(100, 50), LayoutSpec(style: style { $0.flexGrow = 1 }), box(100, 50),
        ]), exact(100, 200))
        XCTAssertEqual(frames(l), [[0, 0, 100, 50], [0, 50, 100, 100], [0, 150, 100, 50]])
    }

    func testWrapperTakesLargestChild() {
        // §7.1: children measured with used [0,100]² → leaves 40×30 and 20×60; size (MAX(0,40,20), MAX(0,30,60)) = 40×60.
        let l = rootLayout(WrapperLayoutSpec(children: [leaf(40, 30), leaf(20, 60)]), range(0, 0, 100, 100))
        assertSize(l, 40, 60)
        XCTAssertEqual(frames(l), [[0, 0, 40, 30], [0, 0, 20, 60]])
        XCTAssertEqual(l.sublayouts.map(\.slot), [0, 1])
    }

    func testWrapperPassesItsMinToChildren() {
        // [50,10]–[100,100]: leaves clamped to min width 50 → 50×30 and 50×60; wrapper 50×60.
        let l = rootLayout(WrapperLayoutSpec(children: [leaf(40, 30), leaf(20, 60)]), range(50, 10, 100, 100))
        XCTAssertEqual(frames(l), [[0, 0, 50, 30], [0, 0, 50, 60]])
        assertSize(l, 50, 60)
    }

    func testWrapperWithPlainChildFillsMax() {
        assertSize(rootLayout(WrapperLayoutSpec(children: [plain()]), range(0, 0, 100, 80)), 100, 80)
    }

    func testWrapperAppliesItsStyle() {
        // Wrapper width 80 → used [80,80]×[0,100] → plain child (80,100).
        let l = rootLayout(WrapperLayoutSpec(children: [plain()], style: style { $0.width = .points(80) }), range(0, 0, 100, 100))
        assertSize(l, 80, 100)
        assertFrame(l, 0, 0, 0, 80, 100)
    }

    func testEmptyWrapperTakesMin() {
        assertSize(rootLayout(WrapperLayoutSpec(children: []), range(12, 34, 100, 100)), 12, 34)
    }
}
