import LoomLayout

/// Builds a `LayoutRequest` from the request's bytes in one pass (no intermediate JSON
/// tree), with the exact path of the offending field in every error. Unknown fields are
/// errors; defaults are Texture's.
public struct RequestDecoder {
    public let limits: DecodeLimits
    public let textMeasurer: TextMeasuring?

    public init(limits: DecodeLimits = DecodeLimits(), textMeasurer: TextMeasuring? = nil) {
        self.limits = limits
        self.textMeasurer = textMeasurer
    }

    /// Parse and decode a request body.
    public func decode(body: [UInt8]) throws -> LayoutRequest {
        try body.withUnsafeBufferPointer { try decode(UnsafeBufferPointer(rebasing: $0[...]), document: $0) }
    }

    /// Decode the request at `range` of `body` (a batch item).
    public func decode(body: [UInt8], range: Range<Int>) throws -> LayoutRequest {
        try body.withUnsafeBufferPointer { try decode(UnsafeBufferPointer(rebasing: $0[range]), document: $0) }
    }

    private func decode(_ bytes: UnsafeBufferPointer<UInt8>, document: UnsafeBufferPointer<UInt8>) throws -> LayoutRequest {
        var state = DecodeState(bytes: bytes, limits: limits, textMeasurer: textMeasurer)
        do {
            return try state.request()
        } catch {
            // A body that is not JSON is reported as such, even where a field before its
            // syntax error is also wrong: the first syntax error of the whole document wins.
            do {
                try JSONScanner.validate(document, maxDepth: limits.jsonNesting)
            } catch let syntax as JSONParser.SyntaxError {
                throw Self.wireError(syntax)
            }
            if let syntax = error as? JSONParser.SyntaxError { throw Self.wireError(syntax) }
            throw error
        }
    }

    private static func wireError(_ e: JSONParser.SyntaxError) -> WireError {
        e.nestingLimit ? WireError.tooLarge("the tree is nested deeper than the limit") : WireError.malformed(e)
    }

    /// The byte ranges of the items of a batch body `{"items": [LayoutRequest, …]}`, after
    /// checking that the whole body is JSON of that shape.
    public func batchItems(body: [UInt8], maxItems: Int) throws -> [Range<Int>] {
        try body.withUnsafeBufferPointer { bytes in
            var scanner = JSONScanner(bytes: bytes, maxDepth: limits.batchNesting)
            var items: [Range<Int>] = []
            var shapeOK = false
            do {
                try scanner.beginDocument()
                if try scanner.valueStart() == UInt8(ascii: "{"), try scanner.beginObject() {
                    let key = try scanner.memberName()
                    if scanner.string(key) == "items", try scanner.valueStart() == UInt8(ascii: "[") {
                        if try scanner.beginArray() {
                            repeat {
                                _ = try scanner.valueStart()
                                let start = scanner.i
                                try scanner.skipValue()
                                items.append(start ..< scanner.i)
                            } while try scanner.nextItem()
                        }
                        shapeOK = try !scanner.nextMember()
                    }
                }
                if !shapeOK { try JSONScanner.validate(bytes, maxDepth: limits.batchNesting) } else { try scanner.endDocument() }
            } catch let e as JSONParser.SyntaxError {
                throw e.nestingLimit ? WireError.tooLarge("the batch is nested too deeply") : WireError.malformed(e)
            }
            guard shapeOK else { throw WireError.invalidSpec("a batch is {\"items\": [LayoutRequest, …]} and nothing else", path: "items") }
            guard items.count <= maxItems else { throw WireError.tooLarge("a batch holds at most \(maxItems) items", path: "items") }
            return items
        }
    }
}
