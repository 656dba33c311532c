import Foundation
import LoomService
import LoomText
import XCTest

/// The layouts of examples/ (the five of Texture's "Layout Examples" page, three Yoga
/// layouts, four with real text, a button, a wrapped stack and a ratio photo with a corner
/// badge), laid out through the whole wire path with the real Pango measurer and the
/// project's fonts. The expected frames are derived by hand in examples/README.md, from
/// docs/layout-semantics.md and docs/yoga.md, and for text from the font files' advances
/// and metrics (examples/text-widths.py); `Expected.all` holds the same numbers, and
/// `testReadmeTablesAreTheseNumbers` checks that the README's tables say exactly them.
final class ExamplesTests: XCTestCase {
    typealias Frame = (x: Double, y: Double, width: Double, height: Double)

    /// examples/ at the repository root, found from this file's path.
    static let examplesDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // LoomServiceTests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // repository root
        .appendingPathComponent("examples")

    /// One service for every example: the real measurer, so the text examples measure as
    /// `loom serve` does (the others hold no text and never call it).
    static let service = LayoutService(textMeasurer: try! PangoTextMeasurer())

    /// What one example must answer.
    struct Expected {
        var size: (Double, Double)
        var frames: [String: Frame]
        /// The root node's children in `layout` (type and frame relative to the root), when
        /// they carry no id and so are not in `frames` (a button's image and title).
        var rootChildren: [(type: String, frame: Frame)]? = nil
    }

    /// Every example file and its expected answer, in examples/README.md's order.
    static let all: [(file: String, expected: Expected)] = [
        // README "1. Photo with inset text overlay".
        ("photo-with-inset-text-overlay.json", Expected(size: (150, 150), frames: [
            "textOverlaySpec": (0, 0, 150, 150),
            "backgroundImageStaticSpec": (0, 0, 150, 150),
            "photoNode": (0, 0, 150, 150),
            "textInsetSpec": (0, 0, 150, 150),
            "titleNode": (12, 118, 126, 20),
        ])),
        // README "2. Photo with outset icon overlay".
        ("photo-with-outset-icon-overlay.json", Expected(size: (190, 170), frames: [
            "staticLayoutSpec": (0, 0, 190, 170),
            "photoNode": (20, 20, 150, 150),
            "iconNode": (150, 0, 40, 40),
        ])),
        // README "3. Header with left and right justified text".
        ("header-with-left-right-justified-text.json", Expected(size: (375, 48), frames: [
            "headerInsetSpec": (0, 0, 375, 48),
            "horizontalStackSpec": (10, 0, 355, 48),
            "verticalStackSpec": (10, 0, 280, 48),
            "usernameNode": (10, 0, 140, 24),
            "postLocationNode": (10, 24, 280, 24),
            "spacerSpec": (290, 24, 45, 0),
            "postTimeNode": (335, 12, 30, 24),
        ])),
        // README "4. Simple inset text cell".
        ("simple-inset-text-cell.json", Expected(size: (136, 44), frames: [
            "centerSpec": (0, 0, 136, 44),
            "inset": (0, 10, 136, 24),
            "titleNode": (12, 10, 120, 20),
        ])),
        // README "5. Top and bottom separator lines".
        ("top-bottom-separator-lines.json", Expected(size: (375, 100), frames: [
            "verticalStackSpec": (0, 0, 375, 100),
            "topSeparator": (0, 0, 375, 30),
            "insetContentSpec": (0, 30, 375, 40),
            "textNode": (10, 40, 355, 20),
            "bottomSeparator": (0, 70, 375, 30),
        ])),
        // README "6. A card row as the request's root" (docs/yoga.md §8).
        ("yoga-card-row.json", Expected(size: (300, 60), frames: [
            "card": (0, 0, 300, 60),
            "avatar": (10, 10, 40, 40),
            "label": (58, 21.5, 216, 17),
            "badge": (274, 22, 16, 16),
        ])),
        // README "7. A Yoga root inside a stack".
        ("yoga-toolbar-in-stack.json", Expected(size: (320, 152), frames: [
            "screen": (0, 0, 320, 152),
            "toolbar": (0, 0, 320, 44),
            "back": (12, 10, 24, 24),
            "title": (111, 11.5, 97.5, 20.5),
            "menu": (284, 10, 24, 24),
            "body": (0, 52, 320, 100),
        ])),
        // README "8. A measured leaf with its own layout, an absolute child, scale 3".
        ("yoga-chip-absolute.json", Expected(size: (200, 120), frames: [
            "root": (0, 0, 200, 120),
            "chip": (0, 42.333333333333336, 40.333333333333336, 28.333333333333332),
            "chipInset": (0, 42.333333333333336, 40.333333333333336, 28.333333333333332),
            "chipIcon": (10, 46.333333333333336, 20.333333333333332, 20.333333333333332),
            "dot": (185, 5, 10, 10),
            "bar": (0, 70.66666666666667, 66.66666666666667, 7),
        ])),
        // README "9. A cell with a title and a subtitle" (real text).
        ("text-cell-title-subtitle.json", Expected(size: (375, 64), frames: [
            "cellInset": (0, 0, 375, 64),
            "textStack": (16, 12, 343, 40),
            "titleNode": (16, 12, 89.5, 20),
            "subtitleNode": (16, 36, 107.5, 16),
        ])),
        // README "10. A button with an icon and a title".
        ("button-with-icon.json", Expected(size: (98, 34), frames: [
            "followButton": (0, 0, 98, 34),
        ], rootChildren: [
            ("image", (16, 9, 16, 16)),
            ("text", (38, 8, 44, 18)),
        ])),
        // README "11. Tags in a wrapped stack".
        ("wrapped-tag-stack.json", Expected(size: (117, 88), frames: [
            "tagStack": (0, 0, 117, 88),
            "swiftTag": (0, 0, 51, 24),
            "layoutTag": (59, 0, 58, 24),
            "textureTag": (0, 32, 63.5, 24),
            "iosTag": (71.5, 32, 39, 24),
            "webTag": (0, 64, 46, 24),
        ])),
        // README "12. A photo at a ratio with a badge in its corner".
        ("ratio-photo-with-corner-badge.json", Expected(size: (300, 168.5), frames: [
            "badgeCorner": (0, 0, 300, 168.5),
            "photoRatio": (0, 0, 300, 168.5),
            "photoNode": (0, 0, 300, 168.5),
            "badgeNode": (272, 4, 24, 24),
        ])),
    ]

    static func expected(_ file: String) -> Expected {
        guard let entry = all.first(where: { $0.file == file }) else { preconditionFailure("no expectation for \(file)") }
        return entry.expected
    }

    func check(_ file: String, line: UInt = #line) throws {
        let expected = Self.expected(file)
        let url = Self.examplesDirectory.appendingPathComponent(file)
        let data = try Data(contentsOf: url)
        let outcome = Self.service.layout(body: Array(data))
        let text = String(decoding: outcome.body, as: UTF8.self)
        XCTAssertEqual(outcome.status, 200, "\(file): \(text)", line: line)
        guard outcome.status == 200 else { return }

        let object = try JSONSerialization.jsonObject(with: Data(outcome.body))
        guard let response = object as? [String: Any],
              let sizeObject = response["size"] as? [String: Any],
              let framesObject = response["frames"] as? [String: Any] else {
            return XCTFail("\(file): not a LayoutResponse: \(text)", line: line)
        }
        XCTAssertEqual(number(sizeObject["width"]), expected.size.0, "\(file): size.width", line: line)
        XCTAssertEqual(number(sizeObject["height"]), expected.size.1, "\(file): size.height", line: line)

        XCTAssertEqual(Set(framesObject.keys), Set(expected.frames.keys), "\(file): ids in frames", line: line)
        for (id, want) in expected.frames.sorted(by: { $0.key < $1.key }) {
            guard let got = framesObject[id] as? [String: Any] else {
                XCTFail("\(file): no frame for \(id)", line: line)
                continue
            }
            assertFrame(got, want, "\(file): \(id)", line: line)
        }
        if let children = expected.rootChildren {
            let entries = ((response["layout"] as? [String: Any])?["children"] as? [[String: Any]]) ?? []
            XCTAssertEqual(entries.map { $0["type"] as? String ?? "?" }, children.map(\.type), "\(file): root's children", line: line)
            for (entry, want) in zip(entries, children) {
                assertFrame(entry["frame"] as? [String: Any] ?? [:], want.frame, "\(file): root's \(want.type) child", line: line)
            }
        }
    }

    private func assertFrame(_ got: [String: Any], _ want: Frame, _ what: String, line: UInt) {
        let actual = (number(got["x"]), number(got["y"]), number(got["width"]), number(got["height"]))
        XCTAssertTrue(actual.0 == want.x && actual.1 == want.y && actual.2 == want.width && actual.3 == want.height,
                      "\(what) is \(actual), expected \(want)", line: line)
    }

    private func number(_ v: Any?) -> Double? {
        (v as? NSNumber)?.doubleValue
    }

    func testPhotoWithInsetTextOverlay() throws { try check("photo-with-inset-text-overlay.json") }
    func testPhotoWithOutsetIconOverlay() throws { try check("photo-with-outset-icon-overlay.json") }
    func testHeaderWithLeftRightJustifiedText() throws { try check("header-with-left-right-justified-text.json") }
    func testSimpleInsetTextCell() throws { try check("simple-inset-text-cell.json") }
    func testTopBottomSeparatorLines() throws { try check("top-bottom-separator-lines.json") }

    // MARK: Yoga (examples/README.md 6–8, docs/yoga.md §8)

    func testYogaCardRow() throws { try check("yoga-card-row.json") }
    func testYogaToolbarInStack() throws { try check("yoga-toolbar-in-stack.json") }
    func testYogaChipAbsolute() throws { try check("yoga-chip-absolute.json") }

    // MARK: real text, a button, a wrapped stack, a ratio with a corner (README 9–12)

    func testTextCellTitleSubtitle() throws { try check("text-cell-title-subtitle.json") }
    func testButtonWithIcon() throws { try check("button-with-icon.json") }
    func testWrappedTagStack() throws { try check("wrapped-tag-stack.json") }
    func testRatioPhotoWithCornerBadge() throws { try check("ratio-photo-with-corner-badge.json") }

    // MARK: the files and the README agree with these numbers

    /// Every request file in examples/ has its expectation here (a new example cannot go
    /// unchecked), and none is listed that is not there.
    func testEveryExampleFileIsChecked() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examplesDirectory.path)
            .filter { $0.hasSuffix(".json") }
        XCTAssertEqual(Set(files), Set(Self.all.map(\.file)))
    }

    /// examples/README.md: each numbered section names its file in backticks and gives an
    /// `| id | frame |` table; those tables must hold exactly the frames checked above, so the
    /// README cannot drift from what is tested.
    func testReadmeTablesAreTheseNumbers() throws {
        let readme = try String(contentsOf: Self.examplesDirectory.appendingPathComponent("README.md"), encoding: .utf8)
        var tables: [String: [String: Frame]] = [:]
        var file: String?
        var inTable = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("## ") || line.hasPrefix("### ") {
                file = nil
                inTable = false
                continue
            }
            if file == nil, let range = line.range(of: #"`[a-z0-9-]+\.json`"#, options: .regularExpression) {
                file = String(line[range].dropFirst().dropLast())
                continue
            }
            guard let current = file else { continue }
            if line.replacingOccurrences(of: " ", with: "") == "|id|frame|" {
                inTable = true
                continue
            }
            guard inTable, line.hasPrefix("|") else {
                if inTable && !line.hasPrefix("|") { inTable = false }
                continue
            }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 2, cells[1].hasPrefix("(") else { continue }  // the |---| row
            let numbers = cells[1].dropFirst().dropLast().split(separator: ",")
                .compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            XCTAssertEqual(numbers.count, 4, "README \(current): \(line)")
            guard numbers.count == 4 else { continue }
            for id in cells[0].split(separator: ",") {
                tables[current, default: [:]][id.trimmingCharacters(in: .whitespaces)] = (numbers[0], numbers[1], numbers[2], numbers[3])
            }
        }
        XCTAssertEqual(Set(tables.keys), Set(Self.all.map(\.file)), "examples with a frames table in the README")
        for (file, expected) in Self.all {
            let table = tables[file] ?? [:]
            XCTAssertEqual(Set(table.keys), Set(expected.frames.keys), "README \(file): ids")
            for (id, want) in expected.frames {
                guard let got = table[id] else { continue }
                XCTAssertTrue(got == want, "README \(file): \(id) is \(got), the test expects \(want)")
            }
        }
    }
}
