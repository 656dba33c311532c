import XCTest
import LoomLayout

// `DisplayNode.setYogaStyle(_:sharingWith:)`: equal styles share one stored copy, and each
// node reads back exactly the style it was given.
final class YogaStyleSharingTests: XCTestCase {
    func testEqualStylesShareAndDifferentOnesDoNot() {
        var a = YogaStyle()
        a.margin.right = .points(4); a.margin.bottom = .points(4); a.flexDirection = .horizontal
        var b = a
        b.margin.bottom = .points(5)
        let first = DisplayNode(), second = DisplayNode(), third = DisplayNode(), fourth = DisplayNode()
        XCTAssertFalse(first.setYogaStyle(a, sharingWith: nil))
        XCTAssertTrue(second.setYogaStyle(a, sharingWith: first))
        XCTAssertFalse(third.setYogaStyle(b, sharingWith: second))
        // A node without a Yoga style has nothing to share.
        XCTAssertFalse(fourth.setYogaStyle(a, sharingWith: DisplayNode()))
        XCTAssertEqual(first.yogaStyle, a)
        XCTAssertEqual(second.yogaStyle, a)
        XCTAssertEqual(third.yogaStyle, b)
        XCTAssertEqual(fourth.yogaStyle, a)
    }

    func testEdgesCompareBySetSides() {
        var e = YogaEdges(top: .points(1))
        XCTAssertNotEqual(e, YogaEdges())
        e.top = nil
        XCTAssertEqual(e, YogaEdges(), "a side set and cleared is unset")
        e.left = .auto
        XCTAssertEqual(e, YogaEdges(), "auto reads as unset, as Yoga reads it")
        XCTAssertNil(e.left)
        XCTAssertNotEqual(YogaEdges(all: .points(0.5)), YogaEdges(all: .fraction(0.5)), "points and percentages differ")
        XCTAssertEqual(YogaEdges(start: .fraction(0.25)).start, .fraction(0.25))
        XCTAssertEqual(YogaEdges(start: .fraction(0.25)).hashValue, YogaEdges(start: .fraction(0.25)).hashValue)
    }
}
