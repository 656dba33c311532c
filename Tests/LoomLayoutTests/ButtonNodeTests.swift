import XCTest
import LoomLayout

/// §10 button node. Titles use the fake measurer (size 10: 5 per character, 12.5 per line).
final class ButtonNodeTests: XCTestCase {

    private func button(title: String? = "OK", image: Size? = Size(width: 20, height: 20),
                        laysOutHorizontally: Bool = true, insets: EdgeInsets = .zero,
                        imageAlignment: ButtonNodeImageAlignment = .beginning) -> ButtonNode {
        ButtonNode(title: title.map { text($0, size: 10, id: "title") },
                   image: image.map { ImageNode(intrinsicSize: $0, id: "image") },
                   laysOutHorizontally: laysOutHorizontally, contentEdgeInsets: insets, imageAlignment: imageAlignment)
    }

    func testDefaults() {
        // §10 defaults: spacing 8, horizontal, middle/center, zero insets, image at the beginning, title flexShrink 1.
        let b = button()
        XCTAssertEqual(b.contentSpacing, 8)
        XCTAssertTrue(b.laysOutHorizontally)
        XCTAssertEqual(b.contentHorizontalAlignment, .middle)
        XCTAssertEqual(b.contentVerticalAlignment, .center)
        XCTAssertEqual(b.contentEdgeInsets, .zero)
        XCTAssertEqual(b.imageAlignment, .beginning)
        XCTAssertEqual(b.titleNode?.style.flexShrink, 1)
    }

    func testHorizontalButtonWrapsContent() {
        // Range [0,0]–[200,100]: stack (justify center, alignItems center) used [0,200]×[0,100]; image 20×20,
        // title "OK" 10×12.5. Sum 20 + 8 + 10 = 38 inside [0,200] → v = 0. Line cross 20.
        // image (0, 0); title (28, floorPx(3.75) = 3.5). Button 38×20.
        let b = button()
        let l = rootLayout(b, range(0, 0, 200, 100), measurer: FakeTextMeasurer())
        assertSize(l, 38, 20)
        XCTAssertEqual(flattenedChildren(of: b, l), [
            FlatFrame(id: "image", x: 0, y: 0, width: 20, height: 20),
            FlatFrame(id: "title", x: 28, y: 3.5, width: 10, height: 12.5),
        ])
    }

    func testHorizontalButtonCentresInExactSize() {
        // Exact 200×100: v = 162 → offset 81. Cross 100: image y floorPx(40) = 40, title y floorPx(43.75) = 43.5.
        // Title x = 81 + 20 + 8 = 109.
        let b = button()
        let l = rootLayout(b, exact(200, 100), measurer: FakeTextMeasurer())
        assertSize(l, 200, 100)
        XCTAssertEqual(flattenedChildren(of: b, l), [
            FlatFrame(id: "image", x: 81, y: 40, width: 20, height: 20),
            FlatFrame(id: "title", x: 109, y: 43.5, width: 10, height: 12.5),
        ])
    }

    func testImageAlignmentEnd() {
        // [title, image]: title x 81, image x 81 + 10 + 8 = 99.
        let b = button(imageAlignment: .end)
        let l = rootLayout(b, exact(200, 100), measurer: FakeTextMeasurer())
        XCTAssertEqual(flattenedChildren(of: b, l).map(\.id), ["title", "image"])
        XCTAssertEqual(flattenedChildren(of: b, l).map(\.x), [81, 99])
    }

    func testVerticalButton() {
        // laysOutHorizontally false: vertical stack, alignItems center (from middle), justify center (from center).
        // [0,0]–[200,100]: sum 20 + 8 + 12.5 = 40.5 inside → v = 0; line cross = max(20, 10) = 20.
        // image (0,0); title (floorPx(5) = 5, 28). Button 20×40.5.
        let b = button(laysOutHorizontally: false)
        let l = rootLayout(b, range(0, 0, 200, 100), measurer: FakeTextMeasurer())
        assertSize(l, 20, 40.5)
        XCTAssertEqual(flattenedChildren(of: b, l), [
            FlatFrame(id: "image", x: 0, y: 0, width: 20, height: 20),
            FlatFrame(id: "title", x: 5, y: 28, width: 10, height: 12.5),
        ])
    }

    func testContentEdgeInsets() {
        // Insets (5,10,5,10), exact 200×100: inset child range exactly 180×90 → stack v = 180 − 38 = 142 → offset 71;
        // image (71, floorPx(35) = 35), title (99, floorPx(38.75) = 38.5); stack placed at (10,5) →
        // flattened image (81, 40), title (109, 43.5).
        let b = button(insets: EdgeInsets(top: 5, left: 10, bottom: 5, right: 10))
        let l = rootLayout(b, exact(200, 100), measurer: FakeTextMeasurer())
        XCTAssertEqual(flattenedChildren(of: b, l), [
            FlatFrame(id: "image", x: 81, y: 40, width: 20, height: 20),
            FlatFrame(id: "title", x: 109, y: 43.5, width: 10, height: 12.5),
        ])
        // Wrapping content: [0,0]–[200,100] → stack 38×20 → inset 58×30.
        assertSize(rootLayout(button(insets: EdgeInsets(top: 5, left: 10, bottom: 5, right: 10)), range(0, 0, 200, 100),
                              measurer: FakeTextMeasurer()), 58, 30)
    }

    func testNoContentTakesMin() {
        // §10.2: no children → the stack takes its min → 10×20.
        assertSize(rootLayout(button(title: nil, image: nil), range(10, 20, 200, 100)), 10, 20)
        // An empty title and an image node without an image are not children either.
        let b = ButtonNode(title: text("", size: 10), image: ImageNode(intrinsicSize: nil))
        assertSize(rootLayout(b, range(10, 20, 200, 100), measurer: FakeTextMeasurer()), 10, 20)
    }

    func testTitleOnly() {
        // Title alone: 10×12.5 in [0,0]–[200,100] → button 10×12.5.
        assertSize(rootLayout(button(image: nil), range(0, 0, 200, 100), measurer: FakeTextMeasurer()), 10, 12.5)
    }

    func testTitleShrinks() {
        // §10: the title has flexShrink 1. Exact 60×40, image 20, title "Hello World!" (12 chars → 60): sum 88 →
        // v = −28, W = 60 → title target 32 → container 32 → 6 per line → 2 lines (30×25) → clamped into [32,32]
        // → 32×25. Sum 60 → v = 0. image (0, 10), title (28, floorPx(7.5) = 7.5).
        let b = ButtonNode(title: text("Hello World!", size: 10, id: "title"),
                           image: ImageNode(intrinsicSize: Size(width: 20, height: 20), id: "image"))
        let l = rootLayout(b, exact(60, 40), measurer: FakeTextMeasurer())
        XCTAssertEqual(flattenedChildren(of: b, l), [
            FlatFrame(id: "image", x: 0, y: 10, width: 20, height: 20),
            FlatFrame(id: "title", x: 28, y: 7.5, width: 32, height: 25),
        ])
    }

    func testButtonStyleAppliesToButton() {
        // §3.3: button width 100 in [0,0]–[200,100] → used [100,100]×[0,100]; its stack gets that range: main
        // exact 100 → v = 100 − 38 = 62 → offset 31; line cross 20 (cross not exact) → button 100×20;
        // image x 31, title x 31 + 20 + 8 = 59.
        let b = ButtonNode(title: text("OK", size: 10, id: "title"),
                           image: ImageNode(intrinsicSize: Size(width: 20, height: 20), id: "image"),
                           style: style { $0.width = .points(100) })
        let l = rootLayout(b, range(0, 0, 200, 100), measurer: FakeTextMeasurer())
        assertSize(l, 100, 20)
        XCTAssertEqual(flattenedChildren(of: b, l).map(\.x), [31, 59])
    }
}
