import Foundation
import LoomTestSupport
import XCTest

/// The playground's files served from the binary: the page, its script and style, the
/// JavaScript client and every file of examples/ (which cannot drift from the folder).
final class PlaygroundAssetsTests: ServiceOverHTTPTestCase {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `GET /examples.json` holds exactly the files of examples/*.json, by name, with their
    /// content: adding or changing an example without embedding it fails here.
    func testExamplesServedAreExactlyTheFilesOfExamples() throws {
        let loom = try startLoom()
        let response = try request(loom, "GET", "/examples.json")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let served = try XCTUnwrap(object(response)["examples"] as? [[String: Any]])
        let folder = Self.repository.appendingPathComponent("examples")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 12)
        XCTAssertEqual(served.map { $0["name"] as? String ?? "" }, files.map { String($0.dropLast(5)) })
        for (entry, file) in zip(served, files) {
            let onDisk = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(file)))
            XCTAssertEqual(entry["request"] as? NSDictionary, onDisk as? NSDictionary, file)
        }
    }

    /// `GET /loom.js` is clients/js/loom.js byte for byte, as a JavaScript module.
    func testTheClientModuleIsServed() throws {
        let loom = try startLoom()
        let response = try request(loom, "GET", "/loom.js")
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.header("Content-Type"), "text/javascript; charset=utf-8")
        XCTAssertEqual(response.header("X-Content-Type-Options"), "nosniff")
        let file = try Data(contentsOf: Self.repository.appendingPathComponent("clients/js/loom.js"))
        XCTAssertEqual(response.body, Array(file))
        XCTAssertTrue(response.text.contains("export class LoomClient"))
    }

    /// The page runs no inline code: one module script from this server, which imports the
    /// client; the policy allows scripts and styles from 'self' only.
    func testThePageLoadsItsModuleFromSelfUnderATightPolicy() throws {
        let loom = try startLoom()
        let page = try request(loom, "GET", "/")
        XCTAssertEqual(page.status, 200)
        let csp = try XCTUnwrap(page.header("Content-Security-Policy"))
        XCTAssertTrue(csp.contains("script-src 'self';"), csp)
        XCTAssertTrue(csp.contains("style-src 'self';"), csp)
        XCTAssertFalse(csp.contains("unsafe"), csp)
        XCTAssertTrue(page.text.contains(#"<script type="module" src="/playground.js"></script>"#))
        XCTAssertEqual(page.text.components(separatedBy: "<script").count, 2, "one script element")
        XCTAssertFalse(page.text.contains("<style"), "no inline style")
        XCTAssertFalse(page.text.contains(" style=\""), "no style attributes")
        let script = try request(loom, "GET", "/playground.js")
        XCTAssertEqual(script.status, 200)
        XCTAssertEqual(script.header("Content-Type"), "text/javascript; charset=utf-8")
        XCTAssertTrue(script.text.contains(#"from "/loom.js""#))
        let style = try request(loom, "GET", "/playground.css")
        XCTAssertEqual(style.status, 200)
        XCTAssertEqual(style.header("Content-Type"), "text/css; charset=utf-8")
    }

    /// The contract lists each of the playground's files.
    func testTheContractListsThePlaygroundsFiles() throws {
        let loom = try startLoom()
        let spec = try request(loom, "GET", "/openapi.yaml").text
        for path in ["/", "/loom.js", "/playground.js", "/playground.css", "/examples.json"] {
            XCTAssertTrue(spec.contains("\n  \(path):\n    get:\n"), path)
            XCTAssertEqual(try request(loom, "GET", path).status, 200, path)
        }
    }

    /// The files answer GET (and HEAD, OPTIONS) only; other paths stay 404.
    func testAssetsAnswerGetOnly() throws {
        let loom = try startLoom()
        let post = try request(loom, "POST", "/loom.js", headers: Self.json, body: Array("{}".utf8))
        XCTAssertEqual(post.status, 405)
        XCTAssertEqual(post.header("Allow"), "GET, HEAD, OPTIONS")
        XCTAssertEqual(try request(loom, "GET", "/loom.jsx").status, 404)
        XCTAssertEqual(try request(loom, "GET", "/examples/").status, 404)
    }
}
