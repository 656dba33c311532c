import LoomLayout

/// Every member an element may have; which ones a kind accepts is `ElementKind.fields`.
/// Case names are the member names.
enum ElementField: Int, CaseIterable {
    case type, id, style
    case direction, spacing, justifyContent, alignItems, flexWrap, alignContent, lineSpacing
    case horizontalAlignment, verticalAlignment, concurrent, children
    case insets, child, overlay, background, centeringOptions, sizingOptions
    case horizontalPosition, verticalPosition, sizingOption, ratio, sizing
    case corner, cornerLocation, offset, wrapsCorner, layout, intrinsicSize, url
    case text, spans, font, lineHeight, letterSpacing, alignment, maximumNumberOfLines, truncationMode, truncationText
    case textContainerInset
    case title, image, contentSpacing, laysOutHorizontally, contentHorizontalAlignment
    case contentVerticalAlignment, contentEdgeInsets, imageAlignment
    case yogaChildren

    var bit: UInt64 { 1 << UInt64(rawValue) }
    var name: String { ElementField.names.names[rawValue] }

    static let names = NameTable(ElementField.allCases.map { ("\($0)", $0) })

    static func mask(_ fields: [ElementField]) -> UInt64 { fields.reduce(0) { $0 | $1.bit } }

    /// The text members (a text element's, a button title's).
    static let textFields: [ElementField] = [.text, .spans, .font, .lineHeight, .lineSpacing, .letterSpacing, .alignment,
                                             .maximumNumberOfLines, .truncationMode, .truncationText, .textContainerInset]
    static let textFieldMask = mask(textFields)
}

/// Everything an element object may say, gathered member by member (in any order) and
/// checked against its kind at the end of the object.
struct ElementFields {
    /// The kind (nil until the `type` member).
    var kind: ElementKind.ID?
    var id: String?
    var style = LayoutElementStyle()
    /// `DecodeState.fractionalLimitStyles` when the element began.
    var fractionalLimitStylesBefore = 0
    // stack
    var direction = StackLayoutDirection.horizontal
    var spacing = 0.0
    var justifyContent = StackLayoutJustifyContent.start
    var alignItems: StackLayoutAlignItems?
    var flexWrap = StackLayoutFlexWrap.noWrap
    var alignContent = StackLayoutAlignContent.start
    var lineSpacing = 0.0
    var horizontalAlignment = HorizontalAlignment.none
    var verticalAlignment = VerticalAlignment.none
    var concurrent = false
    /// nil until a `children` member (leaves make and destroy no array).
    var children: [LayoutElement]?
    // single-child specs
    var insets = EdgeInsets()  // not `.zero`: a global, checked at every read
    var child: LayoutElement?
    var second: LayoutElement?  // overlay, background or corner
    var centeringOptions = CenterLayoutSpecCenteringOptions.none
    var sizingOptions = CenterLayoutSpecSizingOptions.default
    var horizontalPosition = RelativeLayoutSpecPosition.none
    var verticalPosition = RelativeLayoutSpecPosition.none
    var sizingOption: RelativeLayoutSpecSizingOption = []
    var ratio = 0.0
    var sizing = AbsoluteLayoutSpecSizing.default
    var cornerLocation = CornerLayoutSpecLocation.topLeft
    var offset = Point(x: 0, y: 0)
    var wrapsCorner = false
    // nodes
    var layout: LayoutElement?
    var intrinsicSize: Size?
    /// Image, text and button members, boxed: most elements have none, and a small
    /// `ElementFields` is cheap to make and destroy once per element.
    var extras: Extras?
    /// The element's Yoga style (stored, possibly shared with the previous one), if its
    /// `style` has Yoga fields; and the first one's entry in `styleNames` (a spec must not
    /// have any).
    var yogaBox: LayoutElement.YogaStyleBox?
    var yogaFirstField = -1

    final class Extras {
        var url: String?
        var text: DecodeState.TextFields?
        var button: DecodeState.ButtonFields?
        /// `yogaChildren` (nil when left out; empty is the same).
        var yogaChildren: [DisplayNode]?
    }

    /// `extras`, made on first use.
    mutating func madeExtras() -> Extras {
        if let extras { return extras }
        let made = Extras()
        extras = made
        return made
    }
}

/// The names of the enum values elements take.
enum ValueNames {
    static let directions = NameTable(cases: StackLayoutDirection.self)
    static let outputs = NameTable(cases: ResponseOutput.self)
    static let justifyContents = NameTable(cases: StackLayoutJustifyContent.self)
    static let alignItems = NameTable(cases: StackLayoutAlignItems.self)
    static let flexWraps = NameTable(cases: StackLayoutFlexWrap.self)
    static let alignContents = NameTable(cases: StackLayoutAlignContent.self)
    static let horizontalAlignments = NameTable(cases: HorizontalAlignment.self)
    static let verticalAlignments = NameTable(cases: VerticalAlignment.self)
    static let centeringOptions = NameTable(cases: CenterLayoutSpecCenteringOptions.self)
    static let centerSizingOptions = NameTable(cases: CenterLayoutSpecSizingOptions.self)
    static let relativePositions = NameTable(cases: RelativeLayoutSpecPosition.self)
    static let relativeSizingOptions = NameTable<RelativeLayoutSpecSizingOption>([
        ("default", []), ("minimumWidth", .minimumWidth), ("minimumHeight", .minimumHeight), ("minimumSize", .minimumSize),
    ])
    static let absoluteSizings = NameTable(cases: AbsoluteLayoutSpecSizing.self)
    static let cornerLocations = NameTable(cases: CornerLayoutSpecLocation.self)
    static let imageAlignments = NameTable(cases: ButtonNodeImageAlignment.self)
    static let alignSelf = NameTable(cases: AlignSelf.self)
    // Yoga style fields (`justifyContent` and `alignItems` take the stack's names).
    static let yogaFlexDirections = NameTable(cases: YogaFlexDirection.self)
    static let yogaDirections = NameTable(cases: YogaDirection.self)
    static let yogaWraps = NameTable(cases: YogaWrap.self)
    static let yogaPositionTypes = NameTable(cases: YogaPositionType.self)
}
