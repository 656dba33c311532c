import Foundation
import LoomLayout
import XCTest
@testable import LoomServer

/// `GET /fonts` lists the fallback chain (issue 20) in its order, after the families.
final class FontsFallbackTests: XCTestCase {
    func testFontsBodyListsTheChainInOrder() throws {
        let face = FontFaceInfo(style: "Regular", weight: 400, italic: false, file: "/x.ttf")
        let families = [
            FontFamilyInfo(name: "Roboto", aliases: [], faces: [face]),
            FontFamilyInfo(name: "Noto Color Emoji", aliases: [], faces: [face], fallbackOrder: 2),
            FontFamilyInfo(name: "Noto Sans", aliases: [], faces: [face], fallbackOrder: 0),
            FontFamilyInfo(name: "Noto Sans Arabic", aliases: [], faces: [face], fallbackOrder: 1),
        ]
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(Router.fontsBody(families))) as? [String: Any])
        XCTAssertEqual(object["fallback"] as? [String], ["Noto Sans", "Noto Sans Arabic", "Noto Color Emoji"])
        XCTAssertEqual((object["families"] as? [[String: Any]])?.count, 4)
        // No file paths.
        XCTAssertFalse(String(decoding: Router.fontsBody(families), as: UTF8.self).contains("x.ttf"))
    }
}
