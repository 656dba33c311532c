import XCTest
import LoomLayout

/// §7.6 relative spec, §7.7 center spec.
final class RelativeCenterTests: XCTestCase {

    private let r = range(100, 120, 320, 160)

    func testGoldenCenterXYDefaultSizing() {
        // §7.7 example: range [100,120]–[320,160], child 70×100, XY + default sizing.
        // Child min (0,0) (both axes positioned) → 70×100. S0 = (320,160) → S1 = S2 = 320×160.
        // Position (roundPx(250 × 0.5), roundPx(60 × 0.5)) = (125, 30).
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default, child: box(70, 100)), r)
        assertSize(l, 320, 160)
        assertFrame(l, 0, 125, 30, 70, 100, slot: 0)
    }

    func testGoldenCenterXYMinimumX() {
        // §7.7: minimumX → width clamp(MIN(320, 70)) into [100,320] = 100; x = roundPx(30 × 0.5) = 15; y = 30.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .minimumX, child: box(70, 100)), r)
        assertSize(l, 100, 160)
        assertFrame(l, 0, 15, 30, 70, 100)
    }

    func testCenterMinimumXY() {
        // minimumXY: width 100 (as above); height clamp(MIN(160,100)) into [120,160] = 120; y = roundPx(10) = 10.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .minimumXY, child: box(70, 100)), r)
        assertSize(l, 100, 120)
        assertFrame(l, 0, 15, 10, 70, 100)
    }

    func testCenterMinimumYOnly() {
        // minimumY: width stays 320 → x = 125; height 120 → y = 10.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .minimumY, child: box(70, 100)), r)
        assertSize(l, 320, 120)
        assertFrame(l, 0, 125, 10, 70, 100)
    }

    func testCenterNoCenteringPassesMinimumToChild() {
        // centering none → positions none: child min = c.min (100,120) → leaf 70×100 clamped → 100×120 at (0,0);
        // spec 320×160.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .none, sizingOptions: .default, child: leaf(70, 100)), r)
        assertSize(l, 320, 160)
        assertFrame(l, 0, 0, 0, 100, 120)
    }

    func testCenterYOnly() {
        // Y only: child min (100, 0) → leaf → 100×100; x = 0 (none); y = roundPx(60 × 0.5) = 30.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .y, sizingOptions: .default, child: leaf(70, 100)), r)
        assertFrame(l, 0, 0, 30, 100, 100)
    }

    func testCenterXOnly() {
        // X only: child min (0, 120) → leaf → 70×120; x = 125, y = 0.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .x, sizingOptions: .default, child: leaf(70, 100)), r)
        assertFrame(l, 0, 125, 0, 70, 120)
    }

    func testCenterRoundsToPixel() {
        // Range [0,0]–[100.5,100], child 70×100: x = roundPx(30.5 × 0.5 = 15.25) = round(30.5)/2 = 15.5.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default, child: leaf(70, 100)),
                           range(0, 0, 100.5, 100))
        assertFrame(l, 0, 15.5, 0, 70, 100)
        // At scale 3: roundPx(15.25) = round(45.75)/3 = 46/3.
        let l3 = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default, child: leaf(70, 100)),
                            range(0, 0, 100.5, 100), scale: 3)
        XCTAssertEqual(l3.sublayouts[0].position.x, 46.0 / 3.0)
    }

    func testCenterWithUnboundedRangeWrapsChild() {
        // S0 = (NaN, NaN) (inf not validForSize) → S1 = clamp(c, child) = 70×100; offsets 0.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default, child: leaf(70, 100)),
                           SizeRange.unconstrained)
        assertSize(l, 70, 100)
        assertFrame(l, 0, 0, 0, 70, 100)
    }

    func testCenterInVerticalStackOfFixedWidth() {
        // [320,0]–[320,inf]: S0 = (320, NaN) → S1 = (320, child.h); child leaf 70×100 → x = roundPx(125) = 125.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default, child: leaf(70, 100)),
                           range(320, 0, 320, inf))
        assertSize(l, 320, 100)
        assertFrame(l, 0, 125, 0, 70, 100)
    }

    func testCenterChildParentSizeIsValidMax() {
        // §3.4: parent for the child = used.max where valid → child width 50% of 320 = 160; height 10 → x = 80.
        let l = rootLayout(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default,
                                            child: plain { $0.width = .fraction(0.5); $0.height = .points(10) }),
                           range(0, 0, 320, 100))
        assertFrame(l, 0, 80, 45, 160, 10)
    }

    // MARK: relative

    func testRelativeStartVersusNone() {
        // §7.6: start frees the child from the min (child 70 wide), none passes it (child 100 wide). Both at x 0.
        let start = rootLayout(RelativeLayoutSpec(horizontalPosition: .start, verticalPosition: .start, sizingOption: [],
                                                  child: leaf(70, 100)), r)
        assertFrame(start, 0, 0, 0, 70, 100)
        let none = rootLayout(RelativeLayoutSpec(horizontalPosition: .none, verticalPosition: .none, sizingOption: [],
                                                 child: leaf(70, 100)), r)
        assertFrame(none, 0, 0, 0, 100, 120)
    }

    func testRelativeEndEnd() {
        // end: factor 1 → (320 − 70, 160 − 100) = (250, 60).
        let l = rootLayout(RelativeLayoutSpec(horizontalPosition: .end, verticalPosition: .end, sizingOption: [],
                                              child: leaf(70, 100)), r)
        assertSize(l, 320, 160)
        assertFrame(l, 0, 250, 60, 70, 100)
    }

    func testRelativeEndWithMinimumSize() {
        // minimumSize: S2 = clamp((MIN(320,70), MIN(160,100))) = (100, 120) → end → (30, 20).
        let l = rootLayout(RelativeLayoutSpec(horizontalPosition: .end, verticalPosition: .end, sizingOption: .minimumSize,
                                              child: leaf(70, 100)), r)
        assertSize(l, 100, 120)
        assertFrame(l, 0, 30, 20, 70, 100)
    }

    func testRelativeMinimumWidthOnly() {
        // minimumWidth with center/start: width clamp(70) → 100; x = roundPx(15) = 15; height 160, start → y 0.
        let l = rootLayout(RelativeLayoutSpec(horizontalPosition: .center, verticalPosition: .start, sizingOption: .minimumWidth,
                                              child: leaf(70, 100)), r)
        assertSize(l, 100, 160)
        assertFrame(l, 0, 15, 0, 70, 100)
    }

    func testRelativeAppliesItsOwnStyle() {
        // §3.3: relative is not one of the exceptions: style width 200 → used [200,200]×[120,160];
        // center → x = roundPx((200 − 70)/2) = 65.
        let l = rootLayout(RelativeLayoutSpec(horizontalPosition: .center, verticalPosition: .none, sizingOption: [],
                                              child: leaf(70, 100), style: style { $0.width = .points(200) }), r)
        assertSize(l, 200, 160)
        assertFrame(l, 0, 65, 0, 70, 120)
    }
}
