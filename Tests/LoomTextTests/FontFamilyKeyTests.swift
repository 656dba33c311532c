@testable import LoomText
import XCTest

/// A family name is found the same way whether it takes the ASCII fast path (plain names)
/// or the general one (white space, quotes, non-ASCII): a plain name and the same name
/// padded with spaces or quoted, which only the general path reads, give the same key.
final class FontFamilyKeyTests: XCTestCase {
    func testPlainNamesAndTheirPaddedOrQuotedSpellingsGiveTheSameKey() throws {
        let catalog = try FontCatalog(extraFontDirectories: [])
        let names = ["Roboto", "ROBOTO", "roboto", "Liberation Sans", "LIBERATION sans", "Inter", "DejaVu Sans",
                     "Helvetica", "Helvetica Neue", "SF Pro Text", "-apple-system", "Arial", "Comic Sans MS", "x"]
        for name in names {
            XCTAssertNotNil(FontCatalog.plainLowercased(name), "\(name) takes the fast path")
            let fast = catalog.familyKey(for: name)
            for general in [" \(name)", "\(name)\t", "\"\(name)\"", "'\(name)'", " '\(name)' "] {
                XCTAssertNil(FontCatalog.plainLowercased(general), "\(general) takes the general path")
                XCTAssertEqual(catalog.familyKey(for: general), fast, "\(general) vs \(name)")
            }
        }
        XCTAssertEqual(catalog.familyKey(for: "ROBOTO"), "roboto")
        XCTAssertEqual(catalog.familyKey(for: "Helvetica"), "liberation sans")
        XCTAssertNil(catalog.familyKey(for: "Comic Sans MS"))
    }

    func testOnlyPlainASCIINamesTakeTheFastPath() {
        XCTAssertEqual(FontCatalog.plainLowercased("Liberation Sans"), "liberation sans")
        XCTAssertEqual(FontCatalog.plainLowercased("A-Z_09"), "a-z_09")
        for name in ["", " ", "Roboto ", "\nRoboto", "\"Roboto\"", "'Inter'", "Ünicode", "Noto Sans CJK 日本"] {
            XCTAssertNil(FontCatalog.plainLowercased(name), name)
        }
    }
}
