import XCTest
import LoomLayout

/// §7.8 ratio spec.
final class RatioTests: XCTestCase {

    func testGoldenRatioHalf() {
        // §7.8 example, range [0,0]–[100,100], ratio 0.5: options (100, floorPx(50)) err 0 and
        // (clamp(floorPx(200)) = 100, 100) err 0.5 → best 100×50; child (plain) measured with exactly 100×50.
        let l = rootLayout(RatioLayoutSpec(ratio: 0.5, child: plain()), range(0, 0, 100, 100))
        assertSize(l, 100, 50)
        assertFrame(l, 0, 0, 0, 100, 50, slot: 0)
    }

    func testGoldenRatioTen() {
        // §7.8 example: ratio 10 → (100, 100) err 9 vs (floorPx(10) = 10, 100) err 0 → 10×100.
        let l = rootLayout(RatioLayoutSpec(ratio: 10, child: plain()), range(0, 0, 100, 100))
        assertSize(l, 10, 100)
    }

    func testRatioCandidatesAreFloored() {
        // ratio 1/3: width option (100, floorPx(33.33…) = floor(66.67)/2 = 33) err |0.33 − 0.333| ≈ 0.0033;
        // height option (floorPx(300) → clamp 100, 100) err 0.667 → 100×33.
        let l = rootLayout(RatioLayoutSpec(ratio: 1.0 / 3.0, child: plain()), range(0, 0, 100, 100))
        assertSize(l, 100, 33)
        // At scale 3: floorPx(33.33…) = floor(100 + ε·3)/3 = 100/3.
        let l3 = rootLayout(RatioLayoutSpec(ratio: 1.0 / 3.0, child: plain()), range(0, 0, 100, 100), scale: 3)
        XCTAssertEqual(l3.size.height, 100.0 / 3.0, accuracy: 1e-12)
    }

    func testRatioWithOnlyFiniteWidth() {
        // [0,0]–[200,inf]: only the width option (200, 100) exists → 200×100.
        let l = rootLayout(RatioLayoutSpec(ratio: 0.5, child: plain()), range(0, 0, 200, inf))
        assertSize(l, 200, 100)
    }

    func testRatioWithOnlyFiniteHeight() {
        // [0,0]–[inf,60]: only the height option (floorPx(60/0.5) = 120, 60) → 120×60.
        let l = rootLayout(RatioLayoutSpec(ratio: 0.5, child: plain()), range(0, 0, inf, 60))
        assertSize(l, 120, 60)
    }

    func testRatioWithNoOptionMeasuresChildInRangeWithUndefinedParent() {
        // Unbounded: no option → child range = c, parent (NaN,NaN): leaf 30×40 → 30×40; a fraction width on the
        // child is then "no exact value" (leaf keeps 30).
        let l = rootLayout(RatioLayoutSpec(ratio: 2, child: leaf(30, 40) { $0.width = .fraction(0.5) }), SizeRange.unconstrained)
        assertSize(l, 30, 40)
    }

    func testRatioOptionsAreClampedIntoMin() {
        // [0,80]–[100,100], ratio 0.5: (100, 50) clamp → (100, 80) err 0.3; (200 → 100, 100) err 0.5 → 100×80.
        let l = rootLayout(RatioLayoutSpec(ratio: 0.5, child: plain()), range(0, 80, 100, 100))
        assertSize(l, 100, 80)
    }

    func testRatioChildParentSizeIsTheChosenSize() {
        // §3.4: child parent = best (100,50): a child of width 50% → 50, height auto → intersect [100,100]×[50,50]
        // with [50,50]×[0,inf] → width: lo 100 > hi 50, 100 < 50 false → [100,100] (the ratio's exact range wins).
        let l = rootLayout(RatioLayoutSpec(ratio: 0.5, child: plain { $0.width = .fraction(0.5) }), range(0, 0, 100, 100))
        assertFrame(l, 0, 0, 0, 100, 50)
    }

    func testRatioInVerticalStretchStack() {
        // Vertical stretch stack [320,0]–[320,inf]: the ratio gets [320,320]×[0,inf] → width option (320, 160).
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [RatioLayoutSpec(ratio: 0.5, child: plain())]),
                           range(320, 0, 320, inf))
        assertFrame(l, 0, 0, 0, 320, 160)
        assertSize(l, 320, 160)
    }

    func testRatioSizeIsChildSize() {
        // The ratio spec applies its own style (§3.3): width 40 → used [40,40]×[0,100]. Options (40, floorPx(20))
        // err 0 and (clamp(200) = 40, 100) err 2 → best 40×20; the leaf 5×5 is clamped into exactly 40×20 and the
        // spec's size is the child's size.
        let l = rootLayout(RatioLayoutSpec(ratio: 0.5, child: leaf(5, 5), style: style { $0.width = .points(40) }),
                           range(0, 0, 100, 100))
        assertSize(l, 40, 20)
        assertFrame(l, 0, 0, 0, 40, 20)
    }
}
