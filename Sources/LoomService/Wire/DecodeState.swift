import LoomLayout

/// The decoding of one request: the reader, the element count, the ids seen. Its jobs are
/// split by what they read: the request object here, elements in `ElementDecoding.swift`
/// (their kinds in `ElementKinds.swift`), styles in `StyleDecoding.swift`, text and buttons
/// in `TextDecoding.swift`.
struct DecodeState: ~Copyable {
    var reader: WireReader
    let limits: DecodeLimits
    let textMeasurer: TextMeasuring?
    var ids = Set<String>()
    var elementCount = 0
    /// The kind of the last element whose `type` was read.
    var lastKind = ElementKind.ID.node
    var depth = 0
    var hasText = false
    var textBytes = 0
    /// Whether a Yoga style field was read (the hashing looks for them only then).
    var hasYoga = false
    /// The Yoga style fields of the `style` object being read (`style(into:)`).
    var yogaScratch = YogaStyle()
    /// The last Yoga style stored: the next equal one shares it (siblings usually are equal).
    var lastYogaBox: LayoutElement.YogaStyleBox?
    /// Styles read so far with a fractional min or max size (a stack checks its children's
    /// only when one was read inside it).
    var fractionalLimitStyles = 0
    /// Fonts checked in this request: the first `firstFontsKept`, then the rest.
    var firstFonts: [(font: FontDescriptor, verdict: TextMeasuringError?)] = []
    var fontVerdicts: [FontDescriptor: TextMeasuringError?] = [:]
    /// The tables read for every element, held here rather than read from their statics
    /// (a static is a lazy global: each read checks that it was made).
    let elementNames = ElementField.names
    let styleNames = DecodeState.styleFields
    let kinds = ElementKinds.shared
    let kindNames = ElementKinds.names
    let allowedFieldMasks = ElementKinds.allowedFields
    let alignSelfNames = ValueNames.alignSelf
    let directionNames = ValueNames.directions
    let justifyNames = ValueNames.justifyContents
    let alignItemsNames = ValueNames.alignItems
    let fontFieldNames = DecodeState.fontFields
    /// The order of element and style members so far (`MemberOrder`).
    let elementOrder = MemberOrder(names: ElementField.allCases.count, contexts: ElementKind.ID.allCases.count + 1)
    let styleOrder = MemberOrder(names: DecodeState.styleFields.names.count)

    init(bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits, textMeasurer: TextMeasuring?) {
        reader = WireReader(bytes: bytes, maxNesting: limits.jsonNesting)
        self.limits = limits
        self.textMeasurer = textMeasurer
    }

    // MARK: the request object

    enum RequestField: Int, CaseIterable { case sizeRange, scale, options, root }
    static let requestFields = NameTable(RequestField.allCases.map { ("\($0)", $0) })
    enum OptionsField: Int, CaseIterable { case includeSpecs, output, includeText }
    static let optionsFields = NameTable(OptionsField.allCases.map { ("\($0)", $0) })

    mutating func request() throws -> LayoutRequest {
        try reader.scanner.beginDocument()
        var sizeRange = SizeRange.unconstrained
        var scale = 2.0
        var includeSpecs = false
        var includeText = false
        var output = ResponseOutput.both
        var root: LayoutElement?
        var seen: UInt64 = 0, unknown: String?
        if try reader.beginObject("the request") {
            repeat {
                guard let k = try reader.member(Self.requestFields, seen: &seen, unknown: &unknown) else { continue }
                let field = Self.requestFields.values[k]
                reader.path.push(Self.requestFields.staticNames[k])
                switch field {
                case .sizeRange: sizeRange = try requestSizeRange()
                case .scale:
                    scale = try reader.number()
                    guard scale > 0 && scale <= 100 else { throw reader.fail("scale must be > 0 (and at most 100)") }
                case .options:
                    let (_, optionsUnknown) = try reader.members(Self.optionsFields, "options") { reader, field in
                        switch field {
                        case .includeSpecs: includeSpecs = try reader.bool()
                        case .output: output = try reader.name(ValueNames.outputs)
                        case .includeText: includeText = try reader.bool()
                        }
                    }
                    try reader.finish(optionsUnknown, "options")
                case .root: root = try element()
                }
                reader.path.pop()
            } while try reader.scanner.nextMember()
        }
        try reader.scanner.endDocument()
        guard let root else { throw reader.fail("the request needs 'root'", at: "root") }
        try reader.finish(unknown, "the request")
        return LayoutRequest(sizeRange: sizeRange, root: root, scale: scale, includeSpecs: includeSpecs,
                             includeText: includeText,
                             output: output, elementCount: elementCount, hasText: hasText, textBytes: textBytes, hasYoga: hasYoga)
    }

    enum RangeField: Int, CaseIterable { case min, max }
    static let rangeFields = NameTable(RangeField.allCases.map { ("\($0)", $0) })

    mutating func requestSizeRange() throws -> SizeRange {
        var range = SizeRange.unconstrained
        let (_, unknown) = try reader.members(Self.rangeFields, "sizeRange") { reader, field in
            let isMax = field == .max
            var size = isMax ? Size(width: .infinity, height: .infinity) : Size(width: 0, height: 0)
            let (_, sizeUnknown) = try reader.members(WireReader.sizeFields, isMax ? "max" : "min") { reader, side in
                // `max` sides may be null: unbounded.
                let value: Double
                if isMax, try reader.scanner.valueStart() == UInt8(ascii: "n") {
                    try reader.scanner.literal("null")
                    value = .infinity
                } else {
                    value = try reader.nonNegative()
                }
                if side == .width { size.width = value } else { size.height = value }
            }
            try reader.finish(sizeUnknown, isMax ? "max" : "min")
            if isMax { range.max = size } else { range.min = size }
        }
        try reader.finish(unknown, "sizeRange")
        if range.min.width > range.max.width { throw reader.fail("min.width must be <= max.width", at: "min") }
        if range.min.height > range.max.height { throw reader.fail("min.height must be <= max.height", at: "min") }
        return range
    }
}
