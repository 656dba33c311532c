import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoomClient
import XCTest

/// The Swift client against a real `loom serve`.
final class LoomClientTests: XCTestCase {
    static var server: LoomServeProcess?

    override class func tearDown() {
        server?.stop()
        server = nil
    }

    func serverURL() throws -> URL {
        if Self.server == nil { Self.server = try LoomServeProcess() }
        return Self.server!.baseURL
    }

    static let examplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../examples").standardized

    /// POSTs bytes as they are, for the file's own key and frames.
    func postRaw(_ body: Data, to base: URL) async throws -> (key: String?, json: [String: Any]) {
        var request = URLRequest(url: base.appendingPathComponent("layout"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try XCTUnwrap(response as? HTTPURLResponse)
        XCTAssertEqual(http.statusCode, 200, String(decoding: data, as: UTF8.self))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
        return (http.value(forHTTPHeaderField: "X-Layout-Key"), json)
    }

    func testEveryExampleWrittenWithTheBuilderIsTheFilesRequest() async throws {
        let base = try serverURL()
        let client = LoomClient(baseURL: base)
        XCTAssertEqual(ExampleBuilders.all.count,
                       try FileManager.default.contentsOfDirectory(atPath: Self.examplesDirectory.path)
                        .filter { $0.hasSuffix(".json") }.count,
                       "every file of examples/ has a builder version")
        for (file, build) in ExampleBuilders.all {
            let bytes = try Data(contentsOf: Self.examplesDirectory.appendingPathComponent(file))
            let direct = try await postRaw(bytes, to: base)
            let result = try await client.layout(build())
            XCTAssertNotNil(direct.key)
            XCTAssertEqual(result.key, direct.key, "\(file): X-Layout-Key")
            let frames = try XCTUnwrap(direct.json["frames"] as? [String: [String: Double]])
            XCTAssertEqual(Set(result.frames.keys), Set(frames.keys), file)
            for (id, f) in frames {
                XCTAssertEqual(result.frames[id], Frame(x: f["x"]!, y: f["y"]!, width: f["width"]!, height: f["height"]!),
                               "\(file): \(id)")
            }
        }
    }

    func testStyleSettersActInTheOrderWritten() async throws {
        let client = LoomClient(baseURL: try serverURL())
        // preferredSize then width: the later width wins; the other order keeps preferredSize's.
        let later = DisplayNode().id("n").style { $0.preferredSize = Size(width: 10, height: 20); $0.width = 5 }
        let earlier = DisplayNode().id("n").style { $0.width = 5; $0.preferredSize = Size(width: 10, height: 20) }
        let a = try await client.layout(LayoutRequest(later, scale: 1))
        let b = try await client.layout(LayoutRequest(earlier, scale: 1))
        XCTAssertEqual(a.frame("n"), Frame(x: 0, y: 0, width: 5, height: 20))
        XCTAssertEqual(b.frame("n"), Frame(x: 0, y: 0, width: 10, height: 20))
        XCTAssertNotEqual(a.key, b.key)
    }

    func testGeneratedIdsComeFromPositionsSoTheSameCodeHitsTheCache() async throws {
        let client = LoomClient(baseURL: try serverURL())
        func cell() -> LayoutRequest {
            .width(320, Stack(.horizontal, spacing: 8, alignItems: .start) {
                DisplayNode(intrinsicSize: Size(width: 40, height: 40))
                DisplayNode(intrinsicSize: Size(width: 90, height: 20)).id("title")
            }, scale: 2)
        }
        let first = try await client.layout(cell())
        let second = try await client.layout(cell())
        XCTAssertEqual(first.key, second.key)
        XCTAssertEqual(second.cache, "hit")
        XCTAssertNotNil(first.etag, "the server gives layouts an ETag")
        // Texture's stack: the avatar at 0, the title after it and the spacing; the root
        // takes the exact width 320 of its range.
        XCTAssertEqual(first.frame("@root.children[0]"), Frame(x: 0, y: 0, width: 40, height: 40))
        XCTAssertEqual(first.frame("title"), Frame(x: 48, y: 0, width: 90, height: 20))
        XCTAssertEqual(first.frame("@root"), Frame(x: 0, y: 0, width: 320, height: 40))
        let wire = try cell().wire()
        guard case .stack(let s) = wire.root else { return XCTFail("root is a stack") }
        XCTAssertEqual(s.id, "@root")
    }

    func testOutputFramesAsksForTheFramesOnly() async throws {
        let client = LoomClient(baseURL: try serverURL())
        let tree = Inset(EdgeInsets(top: 1, left: 2, bottom: 3, right: 4),
                         DisplayNode(intrinsicSize: Size(width: 10, height: 20)).id("c")).id("i")
        let both = try await client.layout(LayoutRequest(tree, scale: 1))
        let frames = try await client.layout(LayoutRequest(tree, scale: 1, output: .frames))
        XCTAssertEqual(frames.frames, both.frames)
        XCTAssertEqual(frames.frame("c"), Frame(x: 2, y: 1, width: 10, height: 20))
        XCTAssertNotEqual(frames.key, both.key, "each output has its own key")
        XCTAssertEqual(frames.layout.children, [], "the tree was not asked for")
        XCTAssertEqual(both.layout.children.count, 1)
    }

    func testIncludeTextGivesEachTextNodeItsLines() async throws {
        let client = LoomClient(baseURL: try serverURL())
        let tree = Stack(.vertical) {
            TextNode("One two three four five six seven eight nine ten eleven twelve",
                     font: Font(family: "Liberation Sans", size: 16), maximumNumberOfLines: 2, truncationMode: .tail).id("t")
        }
        let plain = try await client.layout(LayoutRequest(tree, maxWidth: 120, scale: 1))
        let result = try await client.layout(LayoutRequest(tree, maxWidth: 120, scale: 1, includeText: true))
        XCTAssertNotEqual(result.key, plain.key)
        XCTAssertEqual(result.frames, plain.frames)
        XCTAssertNil(plain.layout.children[0].textLines)
        let text = result.layout.children[0]
        let lines = try XCTUnwrap(text.textLines)
        XCTAssertEqual(lines.count, 2)
        XCTAssertEqual(lines[0].location, 0)
        XCTAssertEqual(lines[1].location, lines[0].length)
        XCTAssertEqual(lines[0].fonts, ["Liberation Sans"])
        XCTAssertTrue(text.truncatedString?.hasSuffix("\u{2026}") ?? false)
    }

    func testAnErrorComesBackTypedWithItsPath() async throws {
        let client = LoomClient(baseURL: try serverURL())
        let bad = Stack(.vertical) {
            DisplayNode().id("a")
            Ratio(-1, DisplayNode().id("b")).id("r")
        }
        do {
            _ = try await client.layout(LayoutRequest(bad))
            XCTFail("a negative ratio is refused")
        } catch let e as LoomError {
            XCTAssertEqual(e.status, 400)
            XCTAssertEqual(e.code, "invalid_spec")
            XCTAssertEqual(e.path, "root.children[1].ratio")
        }
    }

    func testRequestsTheServerWouldRefuseAreRefusedBeforeSending() async throws {
        let client = LoomClient(baseURL: URL(string: "http://127.0.0.1:9")!)
        let twice = Stack { DisplayNode().id("a"); DisplayNode().id("a") }
        do { _ = try await client.layout(LayoutRequest(twice)); XCTFail("duplicate id") } catch let e as LoomError {
            XCTAssertEqual(e.status, 0)
            XCTAssertEqual(e.path, "root.children[1].id")
        }
        let yogaOnSpec = Stack { DisplayNode() }.style { $0.flexDirection = .horizontal }
        do { _ = try await client.layout(LayoutRequest(yogaOnSpec)); XCTFail("Yoga field on a spec") } catch let e as LoomError {
            XCTAssertEqual(e.path, "root.style")
        }
    }

    func testBatchKeepsOrderAndItemErrors() async throws {
        let client = LoomClient(baseURL: try serverURL())
        let results = try await client.batch([
            LayoutRequest(DisplayNode(intrinsicSize: Size(width: 10, height: 20)).id("a"), scale: 1),
            LayoutRequest(Ratio(0, DisplayNode())),
            LayoutRequest(Inset(EdgeInsets(top: 1, left: 2, bottom: 3, right: 4),
                                DisplayNode(intrinsicSize: Size(width: 10, height: 20)).id("c")), scale: 1),
        ])
        XCTAssertEqual(results.count, 3)
        XCTAssertEqual(try results[0].get().frame("a"), Frame(x: 0, y: 0, width: 10, height: 20))
        guard case .failure(let e) = results[1] else { return XCTFail("ratio 0 is refused") }
        XCTAssertEqual(e.code, "invalid_spec")
        XCTAssertEqual(e.path, "items[1].root.ratio")
        // The inset adds its insets around the child.
        let inset = try results[2].get()
        XCTAssertEqual(inset.size, Size(width: 16, height: 24))
        XCTAssertEqual(inset.frame("c"), Frame(x: 2, y: 1, width: 10, height: 20))
    }

    func testSVG() async throws {
        let client = LoomClient(baseURL: try serverURL())
        let svg = try await client.svg(LayoutRequest(
            Overlay(ImageNode(intrinsicSize: Size(width: 150, height: 150)).id("photo"),
                    overlay: Corner(Spacer(), corner: DisplayNode(intrinsicSize: Size(width: 20, height: 20)).id("badge"),
                                    location: .topRight))))
        XCTAssertTrue(svg.hasPrefix("<svg"), String(svg.prefix(80)))
        XCTAssertTrue(svg.contains("photo"))
        XCTAssertTrue(svg.contains("badge"))
    }

    func testTextIsMeasuredWithRealFonts() async throws {
        let client = LoomClient(baseURL: try serverURL())
        let font = Font(family: "Roboto", size: 16)
        let one = try await client.layout(LayoutRequest(TextNode("Hello", font: font).id("t"), scale: 2))
        let two = try await client.layout(LayoutRequest(TextNode("Hello Hello", font: font).id("t"), scale: 2))
        let w1 = try XCTUnwrap(one.frame("t")).width, w2 = try XCTUnwrap(two.frame("t")).width
        XCTAssertGreaterThan(w1, 20)
        XCTAssertLessThan(w1, 60)
        XCTAssertGreaterThan(w2, 2 * w1 - 1)
        XCTAssertLessThan(w2, 2 * w1 + 8)
        XCTAssertEqual(one.frame("t")?.height, two.frame("t")?.height)
        XCTAssertEqual(one.warnings, [])
        // U+10FFFD (a private-use character no font has) is measured and reported.
        let missing = try await client.layout(LayoutRequest(TextNode("a\u{10FFFD}", font: font).id("m")))
        XCTAssertEqual(missing.warnings.map(\.code), ["missing_glyphs"])
        XCTAssertEqual(missing.warnings.first?.codePoints, ["U+10FFFD"])
        XCTAssertEqual(missing.warnings.first?.path, "root")
    }
}
