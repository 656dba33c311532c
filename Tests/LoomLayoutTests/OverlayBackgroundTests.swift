import XCTest
import LoomLayout

/// §7.4 overlay, §7.5 background, §8.3 (back-to-front order).
final class OverlayBackgroundTests: XCTestCase {

    func testOverlayMeasuresOverlayAtChildSize() {
        // §7.4: child leaf 80×40 in [0,0]–[200,200]; overlay plain node measured at exactly 80×40.
        // Order: child (slot 0) then overlay (slot 1), both at (0,0). Size = child size.
        let l = rootLayout(OverlayLayoutSpec(child: leaf(80, 40), overlay: plain()), range(0, 0, 200, 200))
        assertSize(l, 80, 40)
        assertFrame(l, 0, 0, 0, 80, 40, slot: 0)
        assertFrame(l, 1, 0, 0, 80, 40, slot: 1)
    }

    func testOverlayElementCannotEscapeTheExactRange() {
        // §3.3: the overlay's own width 10 loses to the exact range [80,80] (lo 80 > hi 10, 80 < 10 false → [80,80]).
        let l = rootLayout(OverlayLayoutSpec(child: leaf(80, 40), overlay: box(10, 10)), range(0, 0, 200, 200))
        assertFrame(l, 1, 0, 0, 80, 40)
    }

    func testBackgroundOrderIsBackgroundFirst() {
        // §7.5: sublayouts [background (slot 1), child (slot 0)], both at (0,0), background exactly child size.
        let l = rootLayout(BackgroundLayoutSpec(child: leaf(80, 40), background: plain()), range(0, 0, 200, 200))
        assertSize(l, 80, 40)
        assertFrame(l, 0, 0, 0, 80, 40, slot: 1)
        assertFrame(l, 1, 0, 0, 80, 40, slot: 0)
    }

    func testOverlayAndBackgroundIgnoreTheirOwnStyle() {
        // §3.3 exception: width 150 on the overlay/background spec itself does nothing → 80×40.
        let s = style { $0.width = .points(150); $0.height = .points(150) }
        assertSize(rootLayout(OverlayLayoutSpec(child: leaf(80, 40), overlay: plain(), style: s), range(0, 0, 200, 200)), 80, 40)
        assertSize(rootLayout(BackgroundLayoutSpec(child: leaf(80, 40), background: plain(), style: s), range(0, 0, 200, 200)), 80, 40)
    }

    func testChildGetsTheSpecsRangeAndParentSize() {
        // §7.4/§7.5: the child is measured with (c, P): plain child with width 25% in root range max (200, 100)
        // → 50 wide; height auto → 100 (fills max). Spec = 50×100.
        let l = rootLayout(OverlayLayoutSpec(child: plain { $0.width = .fraction(0.25) }, overlay: plain()), range(0, 0, 200, 100))
        assertSize(l, 50, 100)
    }

    func testOverlayParentSizeIsChildSizeButBackgroundParentSizeIsSpecsParent() {
        // §3.4: overlay element's parent size = child size (80,40); background's = the spec's parent size (200,200).
        // Observed through an inset with infinite left/right (child min width 0, centred, §7.3) around a node of
        // width 25%:
        // overlay: parent 80 → node 20 wide; x = 80 − (roundPx(30) + 20) = 30.
        // background: parent 200 → node 50 wide (∩ [0,80] → [50,50]); x = 80 − (roundPx(15) + 50) = 15.
        func decorated() -> InsetLayoutSpec {
            InsetLayoutSpec(insets: EdgeInsets(top: 0, left: inf, bottom: 0, right: inf),
                            child: plain { $0.width = .fraction(0.25) })
        }
        let o = rootLayout(OverlayLayoutSpec(child: leaf(80, 40), overlay: decorated()), range(0, 0, 200, 200))
        assertFrame(o.sublayouts[1].layout, 0, 30, 0, 20, 40)
        let b = rootLayout(BackgroundLayoutSpec(child: leaf(80, 40), background: decorated()), range(0, 0, 200, 200))
        assertFrame(b.sublayouts[0].layout, 0, 15, 0, 50, 40)
    }

    func testFlattenedOrderIsBackToFront() {
        // §8.3: background before content, content before overlay.
        let spec = OverlayLayoutSpec(child: BackgroundLayoutSpec(child: leaf(80, 40, id: "content"), background: plain(id: "bg")),
                                     overlay: plain(id: "badge"))
        let l = rootLayout(spec, range(0, 0, 200, 200))
        XCTAssertEqual(flattenedChildren(of: spec, l).map(\.id), ["bg", "content", "badge"])
    }

    func testOverlayInStackUsesStackRange() {
        // An overlay inside a vertical stretch stack of width 320 (unbounded height): child plain node gets
        // [320,320]×[0,inf] → 320×0 (§4.2); overlay measured at exactly 320×0.
        let l = rootLayout(StackLayoutSpec(direction: .vertical, children: [OverlayLayoutSpec(child: plain(), overlay: plain())]),
                           range(320, 0, 320, inf))
        assertFrame(l, 0, 0, 0, 320, 0)
        assertFrame(l.sublayouts[0].layout, 1, 0, 0, 320, 0)
    }
}
