import Foundation
import LoomLayout
import LoomService
import XCTest

/// The canonical digests of requests without Yoga fields are exactly what they were before
/// the Yoga wire format came (digests written down from the code before it): the Yoga
/// fields add to the records only when present.
final class YogaKeyPinTests: XCTestCase {
    static let bodies: [(String, String)] = [
        ("spec tree", #"{"sizeRange":{"max":{"width":320,"height":480}},"root":{"type":"stack","id":"s","direction":"vertical","spacing":8,"alignItems":"start","children":[{"type":"node","id":"a","style":{"width":50,"height":"25%","flexGrow":1,"alignSelf":"center","ascender":3,"descender":-2}},{"type":"inset","insets":{"top":4,"left":4,"bottom":4,"right":"inf"},"child":{"type":"node","style":{"height":10},"layout":{"type":"center","centeringOptions":"xy","child":{"type":"image","id":"i","url":"u","intrinsicSize":{"width":3,"height":4}}}}}]}}"#),
        ("nodes", #"{"root":{"type":"wrapper","children":[{"type":"node","intrinsicSize":{"width":7,"height":8}},{"type":"image"},{"type":"node","id":"n","style":{"minWidth":"10%","maxHeight":20,"flexBasis":"auto","flexShrink":true}},{"type":"spacer"},{"type":"static","children":[{"type":"node","style":{"layoutPosition":{"x":1,"y":2}}}]}]}}"#),
        ("text and button", #"{"root":{"type":"stack","children":[{"type":"text","id":"t","text":"Hello","font":{"size":12}},{"type":"button","id":"b","title":{"text":"OK"},"image":{"intrinsicSize":{"width":10,"height":10}},"contentSpacing":4}]}}"#),
        ("feed", #"{"root":{"type":"stack","direction":"vertical","children":[{"type":"stack","children":[{"type":"node","id":"a1","style":{"width":40,"height":40}},{"type":"stack","direction":"vertical","children":[{"type":"node","style":{"height":10}},{"type":"node","style":{"height":12}},{"type":"ratio","ratio":0.5,"child":{"type":"node"}}]}]},{"type":"stack","children":[{"type":"node","id":"a2","style":{"width":40,"height":40}},{"type":"stack","direction":"vertical","children":[{"type":"node","style":{"height":10}},{"type":"node","style":{"height":12}},{"type":"ratio","ratio":0.5,"child":{"type":"node"}}]}]}]}}"#),
    ]

    static let pinned: [String: (tree: String, ids: String)] = [
        "spec tree": ("c962c6ec653500e7b5220a93ed6668d9", "9c125f35a09aeac155c88fd590192de9"),
        "nodes": ("e29407134d21af364c0ab512bbc0a10d", "b5e30e7993a4f77adc742eac0d6f1f1b"),
        "text and button": ("4852bb039c3b30d707207d6f7010bcbe", "404114bb575e123e0c45e5bb02309a47"),
        "feed": ("da693127ac3e7d53736bcf8d59bc3f5a", "7c3f763f5f8a2872224f7185d2217e73"),
    ]

    func testDigestsOfRequestsWithoutYogaAreUnchanged() throws {
        for (name, body) in Self.bodies {
            let request = try RequestDecoder(textMeasurer: AttributeSensitiveTextMeasurer()).decode(body: Array(body.utf8))
            let (tree, ids) = request.hashTree()
            guard let want = Self.pinned[name] else { XCTFail("no pinned digest for \(name)"); continue }
            XCTAssertEqual(tree.description, want.tree, name)
            XCTAssertEqual(ids.description, want.ids, name)
            // The decoder saw no Yoga field, and looking for them changes nothing.
            XCTAssertFalse(request.hasYoga, name)
            let looked = TreeDigest.compute(request.root, hasYoga: true)
            XCTAssertEqual(looked.tree, tree, name)
            XCTAssertEqual(looked.ids, ids, name)
        }
    }

    func testExampleKeysAreUnchanged() throws {
        // The five Texture examples that predate the Yoga fields (the later ones hold text
        // or were added after them: nothing to pin).
        for file in Self.exampleKeys.keys.sorted() {
            let data = try Data(contentsOf: ExamplesTests.examplesDirectory.appendingPathComponent(file))
            let outcome = LayoutService(textMeasurer: nil).layout(body: Array(data))
            XCTAssertEqual(outcome.key, Self.exampleKeys[file], file)
        }
    }

    static let exampleKeys: [String: String] = [
        "header-with-left-right-justified-text.json": "164509eaf74c3b8940869d6b81b3d35e2f63a3d66be628f34654e6c62e50d1ee",
        "photo-with-inset-text-overlay.json": "42184529db174d4a01b3113e7fe04703d0e4805cc1d29e07e77521ca757283fa",
        "photo-with-outset-icon-overlay.json": "45bc6ecdb0fd365a19d46416571a36cf6ed05f8eb3ae6d10b6052ebaf9cc2f10",
        "simple-inset-text-cell.json": "e670d89f50857470450d137d13ac1e4acb8162176c49b91d247e46f571d97a8f",
        "top-bottom-separator-lines.json": "fe5f724b719381b514cbb8b3c74026e5d59172073a2fafa86614140f9c6bc74f",
    ]
}
