import Foundation
import LoomService
import XCTest

/// The five layouts of Texture's "Layout Examples" page (examples/*.json), each written
/// from its `layoutSpecThatFits:` line by line, laid out through the whole wire path.
/// The expected frames are derived by hand from docs/layout-semantics.md in
/// examples/README.md (one section per example, same numbers); they are hard-coded here.
final class ExamplesTests: XCTestCase {
    typealias Frame = (x: Double, y: Double, width: Double, height: Double)

    /// examples/ at the repository root, found from this file's path.
    static let examplesDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // LoomServiceTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // repository root
        .appendingPathComponent("examples")

    func check(_ file: String, size: (Double, Double), frames expected: [String: Frame],
               line: UInt = #line) throws {
        let url = Self.examplesDirectory.appendingPathComponent(file)
        let data = try Data(contentsOf: url)
        let outcome = LayoutService(textMeasurer: nil).layout(body: Array(data))
        let text = String(decoding: outcome.body, as: UTF8.self)
        XCTAssertEqual(outcome.status, 200, "\(file): \(text)", line: line)
        guard outcome.status == 200 else { return }

        let object = try JSONSerialization.jsonObject(with: Data(outcome.body))
        guard let response = object as? [String: Any],
              let sizeObject = response["size"] as? [String: Any],
              let framesObject = response["frames"] as? [String: Any] else {
            return XCTFail("\(file): not a LayoutResponse: \(text)", line: line)
        }
        XCTAssertEqual(number(sizeObject["width"]), size.0, "\(file): size.width", line: line)
        XCTAssertEqual(number(sizeObject["height"]), size.1, "\(file): size.height", line: line)

        XCTAssertEqual(Set(framesObject.keys), Set(expected.keys), "\(file): ids in frames", line: line)
        for (id, want) in expected.sorted(by: { $0.key < $1.key }) {
            guard let got = framesObject[id] as? [String: Any] else {
                XCTFail("\(file): no frame for \(id)", line: line)
                continue
            }
            let actual = (number(got["x"]), number(got["y"]), number(got["width"]), number(got["height"]))
            XCTAssertTrue(actual.0 == want.x && actual.1 == want.y && actual.2 == want.width && actual.3 == want.height,
                          "\(file): \(id) is \(actual), expected \(want)", line: line)
        }
    }

    private func number(_ v: Any?) -> Double? {
        (v as? NSNumber)?.doubleValue
    }

    /// README "1. Photo with inset text overlay".
    func testPhotoWithInsetTextOverlay() throws {
        try check("photo-with-inset-text-overlay.json", size: (150, 150), frames: [
            "textOverlaySpec": (0, 0, 150, 150),
            "backgroundImageStaticSpec": (0, 0, 150, 150),
            "photoNode": (0, 0, 150, 150),
            "textInsetSpec": (0, 0, 150, 150),
            "titleNode": (12, 118, 126, 20),
        ])
    }

    /// README "2. Photo with outset icon overlay".
    func testPhotoWithOutsetIconOverlay() throws {
        try check("photo-with-outset-icon-overlay.json", size: (190, 170), frames: [
            "staticLayoutSpec": (0, 0, 190, 170),
            "photoNode": (20, 20, 150, 150),
            "iconNode": (150, 0, 40, 40),
        ])
    }

    /// README "3. Header with left and right justified text".
    func testHeaderWithLeftRightJustifiedText() throws {
        try check("header-with-left-right-justified-text.json", size: (375, 48), frames: [
            "headerInsetSpec": (0, 0, 375, 48),
            "horizontalStackSpec": (10, 0, 355, 48),
            "verticalStackSpec": (10, 0, 280, 48),
            "usernameNode": (10, 0, 140, 24),
            "postLocationNode": (10, 24, 280, 24),
            "spacerSpec": (290, 24, 45, 0),
            "postTimeNode": (335, 12, 30, 24),
        ])
    }

    /// README "4. Simple inset text cell".
    func testSimpleInsetTextCell() throws {
        try check("simple-inset-text-cell.json", size: (136, 44), frames: [
            "centerSpec": (0, 0, 136, 44),
            "inset": (0, 10, 136, 24),
            "titleNode": (12, 10, 120, 20),
        ])
    }

    /// README "5. Top and bottom separator lines".
    func testTopBottomSeparatorLines() throws {
        try check("top-bottom-separator-lines.json", size: (375, 100), frames: [
            "verticalStackSpec": (0, 0, 375, 100),
            "topSeparator": (0, 0, 375, 30),
            "insetContentSpec": (0, 30, 375, 40),
            "textNode": (10, 40, 355, 20),
            "bottomSeparator": (0, 70, 375, 30),
        ])
    }

    // MARK: Yoga (examples/README.md 6–8, docs/yoga.md §8)

    /// README "6. A card row as the request's root".
    func testYogaCardRow() throws {
        try check("yoga-card-row.json", size: (300, 60), frames: [
            "card": (0, 0, 300, 60),
            "avatar": (10, 10, 40, 40),
            "label": (58, 21.5, 216, 17),
            "badge": (274, 22, 16, 16),
        ])
    }

    /// README "7. A Yoga root inside a stack".
    func testYogaToolbarInStack() throws {
        try check("yoga-toolbar-in-stack.json", size: (320, 152), frames: [
            "screen": (0, 0, 320, 152),
            "toolbar": (0, 0, 320, 44),
            "back": (12, 10, 24, 24),
            "title": (111, 11.5, 97.5, 20.5),
            "menu": (284, 10, 24, 24),
            "body": (0, 52, 320, 100),
        ])
    }

    /// README "8. A measured leaf with its own layout, an absolute child, scale 3".
    func testYogaChipAbsolute() throws {
        try check("yoga-chip-absolute.json", size: (200, 120), frames: [
            "root": (0, 0, 200, 120),
            "chip": (0, 42.333333333333336, 40.333333333333336, 28.333333333333332),
            "chipInset": (0, 42.333333333333336, 40.333333333333336, 28.333333333333332),
            "chipIcon": (10, 46.333333333333336, 20.333333333333332, 20.333333333333332),
            "dot": (185, 5, 10, 10),
            "bar": (0, 70.66666666666667, 66.66666666666667, 7),
        ])
    }
}
