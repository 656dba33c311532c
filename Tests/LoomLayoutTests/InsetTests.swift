import XCTest
import LoomLayout

/// §7.3 inset spec.
final class InsetTests: XCTestCase {

    private func inset(_ t: Double, _ l: Double, _ b: Double, _ r: Double, _ child: LayoutElement,
                       _ configure: (inout LayoutElementStyle) -> Void = { _ in }) -> InsetLayoutSpec {
        InsetLayoutSpec(insets: EdgeInsets(top: t, left: l, bottom: b, right: r), child: child, style: style(configure))
    }

    func testPlainChildFillsTheRangeLessInsets() {
        // Insets (top 10, left 20, bottom 30, right 40), range [0,0]–[200,100]: iX = 60, iY = 40;
        // child range [0,0]–[140,60] → plain node 140×60; size clamp(c, (200,100)) = 200×100; child at (20,10).
        let l = rootLayout(inset(10, 20, 30, 40, plain()), range(0, 0, 200, 100))
        assertSize(l, 200, 100)
        assertFrame(l, 0, 20, 10, 140, 60, slot: 0)
    }

    func testIntrinsicChildPlusInsets() {
        // Child leaf 50×20 → size clamp(c, (50+60, 20+40)) = 110×60.
        let l = rootLayout(inset(10, 20, 30, 40, leaf(50, 20)), range(0, 0, 200, 100))
        assertSize(l, 110, 60)
        assertFrame(l, 0, 20, 10, 50, 20)
    }

    func testMinIsReducedByInsets() {
        // Range [150,80]–[200,100]: child min (150−60, 80−40) = (90,40), max (140,60) → leaf 50×20 → 90×40;
        // size = clamp(c, (150, 80)) = 150×80.
        let l = rootLayout(inset(10, 20, 30, 40, leaf(50, 20)), range(150, 80, 200, 100))
        assertSize(l, 150, 80)
        assertFrame(l, 0, 20, 10, 90, 40)
        // A min smaller than the insets: MAX(0, 30 − 60) = 0 → leaf keeps 50×20 → 110×60.
        let s = rootLayout(inset(10, 20, 30, 40, leaf(50, 20)), range(30, 30, 200, 100))
        assertFrame(s, 0, 20, 10, 50, 20)
        assertSize(s, 110, 60)
    }

    func testInsetIgnoresItsOwnStyleSize() {
        // §3.3 exception: style width 100 / height 5 on the inset does nothing → still 110×60.
        let l = rootLayout(inset(10, 20, 30, 40, leaf(50, 20)) { $0.width = .points(100); $0.height = .points(5) },
                           range(0, 0, 200, 100))
        assertSize(l, 110, 60)
    }

    func testGoldenInfiniteLeftInset() {
        // §12.4 / §7.3 example: exact 300×300, insets (10, inf, 10, 10), child style 10×10.
        // iX = 10, iY = 20; minW = 0 (left infinite) → child range [0,290]×[280,280]; child ∩ its style:
        // width [10,10], height lo 280 > hi 10 → [280,280] → 10×280. Size (fin(inf, 300), 300) = 300×300.
        // x = 300 − (10 + 10) = 280, y = 10.
        let l = rootLayout(inset(10, inf, 10, 10, box(10, 10)), exact(300, 300))
        assertSize(l, 300, 300)
        assertFrame(l, 0, 280, 10, 10, 280)
    }

    func testInfiniteTopInsetPinsToBottom() {
        // Insets (inf, 0, 5, 0), range [0,0]–[100,100], leaf 30×20: iY = 5, minH = 0 → child [0,100]×[0,95] → 30×20.
        // Size = clamp(c, (30, fin(inf, 100))) = 30×100; y = 100 − (5 + 20) = 75; x = 0.
        let l = rootLayout(inset(inf, 0, 5, 0, leaf(30, 20)), range(0, 0, 100, 100))
        assertSize(l, 30, 100)
        assertFrame(l, 0, 0, 75, 30, 20)
    }

    func testInfiniteRightInsetPinsToLeftAgainstMax() {
        // Insets (0, 7, 0, inf), range [0,0]–[100,40], leaf 30×20: x = fin(7, …) = 7 (the left inset is finite);
        // width = fin(30 + 7 + inf, 100) = 100.
        let l = rootLayout(inset(0, 7, 0, inf, leaf(30, 20)), range(0, 0, 100, 40))
        assertSize(l, 100, 20)
        assertFrame(l, 0, 7, 0, 30, 20)
    }

    func testBothInfiniteInsetsCentreWithPixelRounding() {
        // Insets left/right inf, range [0,0]–[300.5,100], leaf 50×20: child min 0, max (300.5,100) → 50×20.
        // x = 300.5 − (roundPx((300.5 − 50)/2 = 125.25) + 50) = 300.5 − (round(250.5)/2 = 125.5 + 50) = 125.
        // Width = fin(inf, 300.5) = 300.5.
        let l = rootLayout(inset(0, inf, 0, inf, leaf(50, 20)), range(0, 0, 300.5, 100))
        assertSize(l, 300.5, 20)
        assertFrame(l, 0, 125, 0, 50, 20)
        // Vertically centred too in an exact 100×101 box: y = 101 − (roundPx(40.5) + 20) = 40.5.
        let v = rootLayout(inset(inf, inf, inf, inf, leaf(50, 20)), exact(100, 101))
        assertSize(v, 100, 101)
        assertFrame(v, 0, 25, 40.5, 50, 20)
    }

    func testNegativeInsets() {
        // Insets −10 all round, range [0,0]–[100,100], leaf 50×50: iX = iY = −20; child min (20,20), max (120,120)
        // → 50×50; size = clamp(c, (30,30)) = 30×30; child at (−10,−10).
        let l = rootLayout(inset(-10, -10, -10, -10, leaf(50, 50)), range(0, 0, 100, 100))
        assertSize(l, 30, 30)
        assertFrame(l, 0, -10, -10, 50, 50)
    }

    func testChildParentSizeIsParentLessInsets() {
        // §3.4: root parent (200,100) → child parent (180, 80) → child height 50% = 40, width auto → 180 (plain).
        let l = rootLayout(inset(10, 10, 10, 10, plain { $0.height = .fraction(0.5) }), range(0, 0, 200, 100))
        assertFrame(l, 0, 10, 10, 180, 40)
    }

    func testUndefinedParentBecomesZeroQuirk() {
        // §7.3 quirk: in a horizontal stack with range [0,0]–[300,300] the children's parent size is (NaN, NaN);
        // the inset passes MAX(0, NaN − 20) = 0, so the child's height 50% resolves to 0 (not ignored).
        // Inner node: width 40, height 0% of 0 → [0,0] → 40×0; inset = 60×20.
        var l = rootLayout(StackLayoutSpec(alignItems: .start, children: [
            inset(10, 10, 10, 10, plain { $0.width = .points(40); $0.height = .fraction(0.5) }),
        ]), range(0, 0, 300, 300))
        assertFrame(l, 0, 0, 0, 60, 20)
        assertFrame(l.sublayouts[0].layout, 0, 10, 10, 40, 0)
        // Contrast: the same node directly in the stack sees NaN → height 50% ignored → cross [0,300] → 40×300.
        l = rootLayout(StackLayoutSpec(alignItems: .start, children: [
            plain { $0.width = .points(40); $0.height = .fraction(0.5) },
        ]), range(0, 0, 300, 300))
        assertFrame(l, 0, 0, 0, 40, 300)
    }

    func testEmptyStackInInsetInBackground() {
        // testStackSpacingWithChildrenHavingNilObjects: inset 10 (background (vertical stack [] , bg)) in
        // [300,0]–[300,300]: inset child range [280,0]–[280,280] → empty stack = min 280×0 → background 280×0;
        // inset = clamp(c, (300, 20)) = 300×20, child at (10,10).
        let bg = plain()
        let spec = inset(10, 10, 10, 10, BackgroundLayoutSpec(child: StackLayoutSpec(direction: .vertical, spacing: 10, children: []),
                                                              background: bg))
        let l = rootLayout(spec, range(300, 0, 300, 300))
        assertSize(l, 300, 20)
        assertFrame(l, 0, 10, 10, 280, 0)
        assertFrame(l.sublayouts[0].layout, 0, 0, 0, 280, 0, slot: 1)   // background first
    }
}
