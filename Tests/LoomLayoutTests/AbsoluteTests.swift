import XCTest
import LoomLayout

/// §7.9 absolute spec (and the 1.x static spec = sizeToFit).
final class AbsoluteTests: XCTestCase {

    /// A: box 50×30 at (10,20); B: leaf 20×10 at (100,60).
    private func children() -> [LayoutElement] {
        [box(50, 30) { $0.layoutPosition = Point(x: 10, y: 20) }, leaf(20, 10) { $0.layoutPosition = Point(x: 100, y: 60) }]
    }

    func testDefaultSizingFillsFiniteMax() {
        // S = (200,100). A: autoMax (190,80); style [50,50]×[30,30] → 50×30. B: autoMax (100,40) → leaf 20×10.
        // Default sizing with a finite max → size clamp(c, S) = 200×100. Positions are the layoutPositions.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: children()), range(0, 0, 200, 100))
        assertSize(l, 200, 100)
        assertFrame(l, 0, 10, 20, 50, 30, slot: 0)
        assertFrame(l, 1, 100, 60, 20, 10, slot: 1)
    }

    func testSizeToFitWrapsChildren() {
        // sizeToFit: w = MAX(0, max(10+50, 100+20)) = 120; h = MAX(0, max(20+30, 60+10)) = 70.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .sizeToFit, children: children()), range(0, 0, 200, 100))
        assertSize(l, 120, 70)
    }

    func testSizeToFitRespectsMin() {
        // [150,80]–[200,100]: w = MAX(150, 120) = 150; h = MAX(80, 70) = 80.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .sizeToFit, children: children()), range(150, 80, 200, 100))
        assertSize(l, 150, 80)
    }

    func testStaticIsSizeToFit() {
        // 1.x static = absolute with sizeToFit (§13); only the class differs (its wire name
        // is checked in LoomServiceTests' ElementKindsTests).
        let s = StaticLayoutSpec(children: children())
        XCTAssertEqual(s.sizing, .sizeToFit)
        assertSize(rootLayout(s, range(0, 0, 200, 100)), 120, 70)
    }

    func testDefaultSizingWithUnboundedMaxWraps() {
        // S = (NaN, NaN) → both axes wrap like sizeToFit: 120×70. autoMax = (inf, inf) → B stays 20×10.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: children()), SizeRange.unconstrained)
        assertSize(l, 120, 70)
    }

    func testDefaultSizingWithOneUnboundedAxis() {
        // [0,0]–[200,inf]: width fills 200, height wraps to 70.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: children()), range(0, 0, 200, inf))
        assertSize(l, 200, 70)
    }

    func testAutoMaxClipsChildToRemainingSpace() {
        // §7.9 example: child width 100 at x = 60 in max width 110 → autoMax 50 → exact 100 > 50 → [50,50];
        // the child's own intersect [50,50] ∩ [100,100] → lo 100 > hi 50, 50 < 100 → [a.max] = 50.
        // Height 20 (autoMax 100 − 0 = 100) → 50×20.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: [
            box(100, 20) { $0.layoutPosition = Point(x: 60, y: 0) },
        ]), range(0, 0, 110, 100))
        assertFrame(l, 0, 60, 0, 50, 20)
    }

    func testNegativeAutoMaxCollapsesRange() {
        // x = 120 in max 110 → autoMax −10 → width range [0,0]; plain child height auto → [0,100] → 0×100.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: [
            plain { $0.layoutPosition = Point(x: 120, y: 0) },
        ]), range(0, 0, 110, 100))
        assertFrame(l, 0, 120, 0, 0, 100)
    }

    func testPlainChildFillsRemainingSpace() {
        // A plain child at (30, 40) in [0,0]–[200,100] gets [0,170]×[0,60] → takes the max 170×60.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: [plain { $0.layoutPosition = Point(x: 30, y: 40) }]),
                           range(0, 0, 200, 100))
        assertFrame(l, 0, 30, 40, 170, 60)
    }

    func testFractionChildResolvesAgainstSpecMax() {
        // S = (200,100) valid → width 50% = 100, height 10.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: [plain { $0.width = .fraction(0.5); $0.height = .points(10) }]),
                           range(0, 0, 200, 100))
        assertFrame(l, 0, 0, 0, 100, 10)
        // With an infinite max, S = NaN → the fraction is "no exact value" → a leaf keeps 30×30.
        let u = rootLayout(AbsoluteLayoutSpec(sizing: .default, children: [leaf(30, 30) { $0.width = .fraction(0.5) }]),
                           SizeRange.unconstrained)
        assertFrame(u, 0, 0, 0, 30, 30)
    }

    func testNegativeLayoutPosition() {
        // Child leaf 20×20 at (−10, −5), sizeToFit, unbounded: w = MAX(0, −10+20) = 10, h = MAX(0, 15) = 15.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .sizeToFit, children: [leaf(20, 20) { $0.layoutPosition = Point(x: -10, y: -5) }]),
                           SizeRange.unconstrained)
        assertSize(l, 10, 15)
        assertFrame(l, 0, -10, -5, 20, 20)
    }

    func testChildMinStyleIsHonoured() {
        // Child minWidth 30 with leaf 10×10 at (0,0), range max (200,100): range [30,200]×[0,100] → leaf → 30×10.
        let l = rootLayout(AbsoluteLayoutSpec(sizing: .sizeToFit, children: [leaf(10, 10) { $0.minWidth = .points(30) }]),
                           range(0, 0, 200, 100))
        assertFrame(l, 0, 0, 0, 30, 10)
        assertSize(l, 30, 10)
    }

    func testNoChildrenTakesMin() {
        // No children: sizeToFit → MAX(c.min, nothing) = c.min → 15×25.
        assertSize(rootLayout(AbsoluteLayoutSpec(sizing: .sizeToFit, children: []), range(15, 25, 200, 100)), 15, 25)
        // Default with a finite max → the max.
        assertSize(rootLayout(AbsoluteLayoutSpec(sizing: .default, children: []), range(15, 25, 200, 100)), 200, 100)
    }
}
