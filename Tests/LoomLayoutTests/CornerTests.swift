import XCTest
import LoomLayout

/// §7.10 corner spec. Child leaf 100×50, corner leaf 20×20, range [0,0]–[300,300] unless stated.
final class CornerTests: XCTestCase {

    private func corner(_ location: CornerLayoutSpecLocation, offset: Point = .zero, wraps: Bool = false,
                        child: LayoutElement = leaf(100, 50), corner: LayoutElement = leaf(20, 20)) -> CornerLayoutSpec {
        CornerLayoutSpec(child: child, corner: corner, cornerLocation: location, offset: offset, wrapsCorner: wraps)
    }

    func testEachLocationWithoutWrapping() {
        // cx = (0 | child.w) − corner.w/2 + offset.x; cy = (0 | child.h) − corner.h/2 + offset.y; size = child size.
        let expected: [(CornerLayoutSpecLocation, Point)] = [
            (.topLeft, Point(x: -10, y: -10)),      // 0 − 10
            (.topRight, Point(x: 90, y: -10)),      // 100 − 10
            (.bottomLeft, Point(x: -10, y: 40)),    // 50 − 10
            (.bottomRight, Point(x: 90, y: 40)),
        ]
        for (loc, p) in expected {
            let l = rootLayout(corner(loc), range(0, 0, 300, 300))
            assertSize(l, 100, 50, "\(loc)")
            assertFrame(l, 0, 0, 0, 100, 50, slot: 0, "\(loc)")
            assertFrame(l, 1, p.x, p.y, 20, 20, slot: 1, "\(loc)")
        }
    }

    func testDefaultLocationIsTopLeft() {
        let l = rootLayout(CornerLayoutSpec(child: leaf(100, 50), corner: leaf(20, 20)), range(0, 0, 300, 300))
        assertFrame(l, 1, -10, -10, 20, 20)
    }

    func testOffset() {
        // topRight with offset (5, −3): (90 + 5, −10 − 3) = (95, −13).
        let l = rootLayout(corner(.topRight, offset: Point(x: 5, y: -3)), range(0, 0, 300, 300))
        assertFrame(l, 1, 95, -13, 20, 20)
    }

    func testWrapsCornerTopLeft() {
        // Union of (0,0,100,50) and (−10,−10,20,20) = (−10,−10,110,60); size clamp → 110×60; everything shifted by
        // (+10,+10): child (10,10), corner (0,0).
        let l = rootLayout(corner(.topLeft, wraps: true), range(0, 0, 300, 300))
        assertSize(l, 110, 60)
        assertFrame(l, 0, 10, 10, 100, 50)
        assertFrame(l, 1, 0, 0, 20, 20)
    }

    func testWrapsCornerTopRight() {
        // Corner (90,−10): union x 0…110, y −10…50 → (0,−10,110,60); shift y by +10: child (0,10), corner (90,0).
        let l = rootLayout(corner(.topRight, wraps: true), range(0, 0, 300, 300))
        assertSize(l, 110, 60)
        assertFrame(l, 0, 0, 10, 100, 50)
        assertFrame(l, 1, 90, 0, 20, 20)
    }

    func testWrapsCornerBottomLeft() {
        // Corner (−10,40): union (−10,0,110,60); shift x by +10: child (10,0), corner (0,40).
        let l = rootLayout(corner(.bottomLeft, wraps: true), range(0, 0, 300, 300))
        assertSize(l, 110, 60)
        assertFrame(l, 0, 10, 0, 100, 50)
        assertFrame(l, 1, 0, 40, 20, 20)
    }

    func testWrapsCornerBottomRight() {
        // Corner (90,40): union origin (0,0), size 110×60; no shift.
        let l = rootLayout(corner(.bottomRight, wraps: true), range(0, 0, 300, 300))
        assertSize(l, 110, 60)
        assertFrame(l, 0, 0, 0, 100, 50)
        assertFrame(l, 1, 90, 40, 20, 20)
    }

    func testWrappedSizeIsClamped() {
        // Range max (105, 300): size clamp((110,60)) = 105×60; origin shift still by the union origin (+10,+10).
        let l = rootLayout(corner(.topLeft, wraps: true), range(0, 0, 105, 300))
        assertSize(l, 105, 60)
        assertFrame(l, 0, 10, 10, 100, 50)
    }

    func testWrapsCornerInsideChild() {
        // Corner fully inside the child (offset (30,30) from topLeft → (20,20)): union = child frame → 100×50, no shift.
        let l = rootLayout(corner(.topLeft, offset: Point(x: 30, y: 30), wraps: true), range(0, 0, 300, 300))
        assertSize(l, 100, 50)
        assertFrame(l, 1, 20, 20, 20, 20)
    }

    func testCornerGetsTheFullRangeIncludingMin() {
        // §7.10 quirk: range [120,60]–[300,300]: child leaf 100×50 → 120×60; the corner also gets min (120,60) →
        // 120×60 (even with a preferredSize 20×20: the exact [20,20] loses to the range, §3.3).
        // topLeft: (0 − 60, 0 − 30) = (−60, −30).
        let l = rootLayout(corner(.topLeft, corner: box(20, 20)), range(120, 60, 300, 300))
        assertSize(l, 120, 60)
        assertFrame(l, 1, -60, -30, 120, 60)
    }

    func testCornerHalfPixelPositions() {
        // Corner leaf 15×15 (odd): topRight → (100 − 7.5, −7.5). Positions are raw (§4.4).
        let l = rootLayout(corner(.topRight, corner: leaf(15, 15)), range(0, 0, 300, 300))
        assertFrame(l, 1, 92.5, -7.5, 15, 15)
    }
}
