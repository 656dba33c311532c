import XCTest
import LoomLayout

/// §7.2.9 (wrapping), §7.2.7 (per-line cross), §7.2.8 (alignContent stretch), §7.2.10 (alignContent).
final class StackWrapTests: XCTestCase {

    private func wrapStack(_ children: [LayoutElement], spacing: Double = 0, alignItems: StackLayoutAlignItems = .start,
                           alignContent: StackLayoutAlignContent = .start, lineSpacing: Double = 0) -> StackLayoutSpec {
        StackLayoutSpec(direction: .horizontal, spacing: spacing, alignItems: alignItems, flexWrap: .wrap,
                        alignContent: alignContent, lineSpacing: lineSpacing, children: children)
    }

    private func six() -> [LayoutElement] { (0..<6).map { _ in box(50, 50) } }

    func testGoldenWrapWithItemSpacings() {
        // §12 table (testFlexWithItemSpacings): exact 230×300, spacing 50, lineSpacing 5, 3×(50×50) with
        // spacingBefore/After 5. Extent 60 each: a → 60; b → 60+50+60 = 170 ≤ 230; c → 170+50+60 = 280 > 230
        // → break. Line 1: a at 5, b at 5+50+5+5+50 = 115; line 2 at y = 50 + 5 = 55, c at x = 5.
        // Stack: main max(170, 60) → clamp 230; cross 105 → clamp 300.
        let kids = (0..<3).map { _ in box(50, 50) { $0.spacingBefore = 5; $0.spacingAfter = 5 } }
        let l = rootLayout(wrapStack(kids, spacing: 50, lineSpacing: 5), exact(230, 300))
        XCTAssertEqual(l.sublayouts.map(\.position), [Point(x: 5, y: 0), Point(x: 115, y: 0), Point(x: 5, y: 55)])
        assertSize(l, 230, 300)
    }

    func testSpacingIsResetOnNewLines() {
        // testFlexWrapWithItemSpacingsBeingResetOnNewLines: spacing 10, exact 110: a 50; b 50+10+50 = 110 (no
        // violation); c 110+10+50 = 170 > 110 → break; c starts its line at x = 0 (no leading spacing), y = 50.
        let l = rootLayout(wrapStack((0..<3).map { _ in box(50, 50) }, spacing: 10), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position), [Point(x: 0, y: 0), Point(x: 60, y: 0), Point(x: 0, y: 50)])
    }

    func testGoldenAlignContentSpaceAround() {
        // §12 table: 6×(50×50), exact 110×300 → 2 per line (150 > 110 breaks), 3 lines of 50; linesCross 150,
        // v = 150; spaceAround unit 150/6 = 25 → lines at 25, 25+50+50 = 125, 225; x = 0, 50.
        let l = rootLayout(wrapStack(six(), alignContent: .spaceAround), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [25, 25, 125, 125, 225, 225])
        XCTAssertEqual(l.sublayouts.map(\.position.x), [0, 50, 0, 50, 0, 50])
        assertSize(l, 110, 300)
    }

    func testAlignContentEachValue() {
        // Same 3 lines of 50 in exact 110×300 (v = 150), §7.2.10:
        let expected: [(StackLayoutAlignContent, [Double])] = [
            (.start, [0, 50, 100]),          // offset 0
            (.center, [75, 125, 175]),       // offset v/2 = 75
            (.end, [150, 200, 250]),         // offset v
            (.spaceBetween, [0, 125, 250]),  // gap v/(3−1) = 75
            (.spaceAround, [25, 125, 225]),  // unit 25, gap 50
            (.stretch, [0, 100, 200]),       // lines grow by 150/3 = 50 each (§7.2.8), offset 0
        ]
        for (ac, ys) in expected {
            let l = rootLayout(wrapStack(six(), alignContent: ac), exact(110, 300))
            XCTAssertEqual(l.sublayouts.map(\.position.y), ys.flatMap { [$0, $0] }, "\(ac)")
        }
    }

    func testGoldenAlignContentStretchWithAlignItemsStretch() {
        // §12 table: alignContent stretch + alignItems stretch, exact 110×300: lines 100 tall at 0, 100, 200; the
        // items are re-measured with cross [100,100] but their explicit height 50 wins (§7.2.3) → stay 50.
        let l = rootLayout(wrapStack(six(), alignItems: .stretch, alignContent: .stretch), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 0, 100, 100, 200, 200])
        XCTAssertEqual(l.sublayouts.map(\.layout.size.height), [50, 50, 50, 50, 50, 50])
    }

    func testAlignContentStretchCentersItemsInStretchedLines() {
        // alignContent stretch, alignItems center: lines 50 → 100 each (v = 150 / 3) at 0, 100, 200; items
        // (50 tall, not stretch) are centred in their line: floorPx((100 − 50)/2) = 25 → y = 25, 125, 225.
        let l = rootLayout(wrapStack(six(), alignItems: .center, alignContent: .stretch), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [25, 25, 125, 125, 225, 225])
        assertSize(l, 110, 300)
    }

    func testAlignContentStretchWithAutoSizedStretchItems() {
        // Leaves of intrinsic 50×20 (auto style), alignItems stretch, alignContent stretch.
        // Range [110,0]–[110,300]: first pass cross [0,300] → 50×20; three lines of 20 → linesCross 60 lies inside
        // [0,300] → crossViolation 0 → no line stretch; items are as tall as their lines. Lines at 0, 20, 40.
        var l = rootLayout(wrapStack((0..<6).map { _ in leaf(50, 20) }, alignItems: .stretch, alignContent: .stretch),
                           range(110, 0, 110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 0, 20, 20, 40, 40])
        assertSize(l, 110, 60)
        // With an exact cross the first pass is already [300,300] for stretch items (crossMin = 300) → all 300 tall;
        // each line is 300 (linesCross 900 > 300 → v = −600 < ε → no line stretch), lines at 0, 300, 600.
        l = rootLayout(wrapStack((0..<6).map { _ in leaf(50, 20) }, alignItems: .stretch, alignContent: .stretch),
                       exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 0, 300, 300, 600, 600])
        XCTAssertEqual(l.sublayouts.map(\.layout.size.height), [300, 300, 300, 300, 300, 300])
    }

    func testAlignContentStretchWithLineSpacing() {
        // linesCross = 150 + 2×10 = 170, v = 130 → each of 3 lines grows by 130/3 = 43.33… → 93.33…;
        // lines at 0, 93.33 + 10 = 103.33…, 206.66…; stack 110×300.
        let l = rootLayout(wrapStack(six(), alignContent: .stretch, lineSpacing: 10), exact(110, 300))
        let line = 50 + 130.0 / 3.0
        XCTAssertEqual(l.sublayouts[2].position.y, line + 10, accuracy: 1e-9)
        XCTAssertEqual(l.sublayouts[4].position.y, 2 * (line + 10), accuracy: 1e-9)
        assertSize(l, 110, 300)
    }

    func testLineSpacingWithAlignContentCenter() {
        // lineSpacing 10: linesCross = 150 + 2×10 = 170, v = 130 → offset 65; lines at 65, 65+50+10 = 125, 185.
        let l = rootLayout(wrapStack(six(), alignContent: .center, lineSpacing: 10), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [65, 65, 125, 125, 185, 185])
    }

    func testSingleLineSpaceBetweenIsStartSpaceAroundIsCenter() {
        // §7.2.7: a single line is clamped into the cross range, so linesCross always lies inside it and the
        // alignContent violation is 0; in addition §7.2.10 turns spaceBetween into start and spaceAround into center.
        // Range [110,200]–[110,300]: line cross = MIN(MAX(200, 50), 300) = 200 → v = 0 → every value places the
        // line at 0; stack 110×200.
        for ac in [StackLayoutAlignContent.spaceBetween, .spaceAround, .center, .end] {
            let l = rootLayout(wrapStack([box(50, 50), box(50, 50)], alignContent: ac), range(110, 200, 110, 300))
            XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 0], "\(ac)")
            assertSize(l, 110, 200)
        }
    }

    func testLinesOfDifferentHeights() {
        // alignItems start, exact 110×300: a 50×30, b 50×60 | c 50×40. Line 1 cross = max(30,60) = 60 (multi-line:
        // no clamp), line 2 = 40; line 2 at y = 60.
        let kids = { [box(50, 30), box(50, 60), box(50, 40)] as [LayoutElement] }
        var l = rootLayout(wrapStack(kids()), exact(110, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 30], [50, 0, 50, 60], [0, 60, 50, 40]])
        // alignItems end: a at 60−30 = 30, b 0, c 60+(40−40) = 60.
        l = rootLayout(wrapStack(kids(), alignItems: .end), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [30, 0, 60])
        // alignItems center: a floorPx(15) = 15.
        l = rootLayout(wrapStack(kids(), alignItems: .center), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [15, 0, 60])
        // alignContent end: linesCross 100, v = 200 → lines at 200 and 260.
        l = rootLayout(wrapStack(kids(), alignContent: .end), exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [200, 200, 260])
    }

    func testMultiLineCrossIsNotClampedPerLineButStackIs() {
        // range [110,0]–[110,80]: lines 60 and 40 → linesCross 100 > max 80 → stack height clamp → 80; lines are
        // not clamped individually (§7.2.7 clamps only a single line): c at y = 60. alignContent start: v = −20 →
        // offset 0.
        let l = rootLayout(wrapStack([box(50, 30), box(50, 60), box(50, 40)]), range(110, 0, 110, 80))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 0, 60])
        assertSize(l, 110, 80)
        // alignContent end with v = −20 → offset −20: lines at −20 and 40.
        let e = rootLayout(wrapStack([box(50, 30), box(50, 60), box(50, 40)], alignContent: .end), range(110, 0, 110, 80))
        XCTAssertEqual(e.sublayouts.map(\.position.y), [-20, -20, 40])
    }

    func testStretchWithinEachLine() {
        // alignItems stretch, [110,0]–[110,300]: a leaf 50×20 (auto style), b 50×60 | c leaf 50×25.
        // First pass cross [0,300] → a 20. Line 1 = 60 → a re-measured with cross [60,60] → 50×60; line 2 = 25.
        // c already 25 → untouched. Positions (0,0), (50,0), (0,60); stack 110×85.
        let l = rootLayout(wrapStack([leaf(50, 20), box(50, 60), leaf(50, 25)], alignItems: .stretch), range(110, 0, 110, 300))
        XCTAssertEqual(frames(l), [[0, 0, 50, 60], [50, 0, 50, 60], [0, 60, 50, 25]])
        assertSize(l, 110, 85)
    }

    func testEachLineFlexesSeparately() {
        // §7.2.9: every line is flexed separately. Exact 110: a 50 (grow 1), b 50 | c 50 (grow 1), d 70:
        // lines [a,b] (sum 100, v = 10 → a 60) and [c,d]? c+d = 120 > 110 → [c] alone, [d] alone.
        // Line 2: c alone: v = 60 → c = 110. Line 3: d 70, no grow. y = 0, 0, 50, 100.
        let l = rootLayout(wrapStack([box(50, 50) { $0.flexGrow = 1 }, box(50, 50), box(50, 50) { $0.flexGrow = 1 },
                                      box(70, 50)]), exact(110, 300))
        XCTAssertEqual(frames(l), [[0, 0, 60, 50], [60, 0, 50, 50], [0, 50, 110, 50], [0, 100, 70, 50]])
    }

    func testJustifyPerLine() {
        // §7.2.10: justify uses each line's own violation against used. Exact 110, justify end:
        // line 1 [a,b] sum 100 → v = 10 → x = 10, 60; line 2 [c] 50 → v = 60 → x = 60.
        let s = StackLayoutSpec(justifyContent: .end, alignItems: .start, flexWrap: .wrap,
                                children: [box(50, 50), box(50, 50), box(50, 50)])
        let l = rootLayout(s, exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.x), [10, 60, 60])
    }

    func testOversizedItemStaysAloneOnItsLine() {
        // §7.2.9: a break happens only when the line is not empty. 150-wide item in a 110 stack: line [a] alone
        // (the first item is always appended), then b 50 → 150+50 > 110 → new line.
        let l = rootLayout(wrapStack([box(150, 20), box(50, 20)]), range(0, 0, 110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position), [Point(x: 0, y: 0), Point(x: 0, y: 20)])
        // Stack main = max line sum 150 → clamp to max 110.
        assertSize(l, 110, 40)
    }

    func testNoWrapIsOneLine() {
        // flexWrap noWrap: 3×50 in 110 stays on one line (overflow).
        let l = rootLayout(StackLayoutSpec(alignItems: .start, flexWrap: .noWrap, children: [box(50, 50), box(50, 50), box(50, 50)]),
                           exact(110, 300))
        XCTAssertEqual(l.sublayouts.map(\.position.y), [0, 0, 0])
    }

    func testVerticalWrap() {
        // Vertical wrap, exact 300×110 (main = height 110): lines are columns. 3×(50×50): [a,b] then [c];
        // column 2 at x = 50. Positions (0,0), (0,50), (50,0).
        let s = StackLayoutSpec(direction: .vertical, alignItems: .start, flexWrap: .wrap, children: [box(50, 50), box(50, 50), box(50, 50)])
        let l = rootLayout(s, exact(300, 110))
        XCTAssertEqual(l.sublayouts.map(\.position), [Point(x: 0, y: 0), Point(x: 0, y: 50), Point(x: 50, y: 0)])
    }
}
