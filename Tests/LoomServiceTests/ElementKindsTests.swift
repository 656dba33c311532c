import LoomLayout
@testable import LoomService
import XCTest

/// The table of element kinds: each engine class answers with its wire name, and each
/// kind's name decodes to an element of its class.
final class ElementKindsTests: XCTestCase {
    let kinds = ElementKinds.shared

    private func name(_ e: LayoutElement) -> String { kinds[of: e].name.description }

    func testEngineClassesAnswerWithTheirWireNames() {
        // The names the engine tests asserted on `typeName` before the engine lost wire names.
        XCTAssertEqual(name(LayoutSpec()), "spacer")
        XCTAssertEqual(name(DisplayNode()), "node")
        XCTAssertEqual(name(ImageNode(intrinsicSize: nil)), "image")
        XCTAssertEqual(name(ButtonNode(title: nil, image: nil)), "button")
        XCTAssertEqual(name(StaticLayoutSpec(children: [])), "static")
        XCTAssertEqual(name(AbsoluteLayoutSpec(sizing: .sizeToFit, children: [])), "absolute")
        XCTAssertEqual(name(WrapperLayoutSpec(children: [])), "wrapper")
        XCTAssertEqual(name(CenterLayoutSpec(centeringOptions: .xy, sizingOptions: .default, child: LayoutSpec())), "center")
        XCTAssertEqual(name(RelativeLayoutSpec(horizontalPosition: .start, verticalPosition: .start, sizingOption: [],
                                               child: LayoutSpec())), "relative")
    }

    func testEveryKindDecodesToItsClassAndAnswersWithItsName() throws {
        XCTAssertEqual(kinds.entries.count, 16)
        for (k, kind) in kinds.entries.enumerated() {
            XCTAssertEqual(ElementKinds.names.values[k], k)
            XCTAssertEqual(ElementKinds.names.names[k], kind.name.description)
        }
        let decoder = RequestDecoder()
        for root in [#"{"type": "spacer"}"#, #"{"type": "static"}"#, #"{"type": "absolute"}"#, #"{"type": "node"}"#,
                     #"{"type": "image"}"#, #"{"type": "wrapper"}"#, #"{"type": "stack"}"#, #"{"type": "button"}"#,
                     #"{"type": "inset", "child": {"type": "spacer"}}"#, #"{"type": "ratio", "ratio": 1, "child": {"type": "spacer"}}"#] {
            let e = try decoder.decode(body: Array(#"{"root": \#(root)}"#.utf8)).root
            let kind = kinds[of: e]
            XCTAssertTrue(type(of: e) == kind.elementClass, root)
            XCTAssertTrue(root.contains(#""\#(kind.name)""#), root)
        }
    }

    /// A class no kind names takes its nearest superclass's kind.
    func testSubclassTakesItsSuperclassKind() {
        final class Custom: DisplayNode {}
        XCTAssertEqual(name(Custom()), "node")
    }
}
