import LoomLayout

/// A member name that lives as long as the process (a literal, or a `NameTable` name):
/// on the path it costs no reference counting.
struct StaticName {
    let start: UnsafePointer<UInt8>
    let count: Int
    init(start: UnsafePointer<UInt8>, count: Int) { self.start = start; self.count = count }
    init(_ s: StaticString) { start = s.utf8Start; count = s.utf8CodeUnitCount }
}

/// A JSON path kept as a stack of components; rendered only for errors.
struct JSONPath: ~Copyable {
    /// A member name that lives as long as the process, or an array index. Plain data:
    /// pushing and popping one copies two words and counts no references.
    struct Component {
        /// The name's bytes; nil for an index.
        let start: UnsafePointer<UInt8>?
        /// The name's length, or the index.
        let count: Int
        static func name(_ n: StaticName) -> Component { Component(start: n.start, count: n.count) }
        static func name(_ s: StaticString) -> Component { name(StaticName(s)) }
        static func index(_ i: Int) -> Component { Component(start: nil, count: i) }
    }
    /// The components, in a buffer this path owns (non-copyable, so no other value can
    /// share or outlive it): a push is a store and an increment.
    private var base: UnsafeMutablePointer<Component>
    private var capacity: Int
    private(set) var count = 0

    init() {
        capacity = 64
        base = .allocate(capacity: capacity)
    }
    deinit { base.deallocate() }

    var components: UnsafeBufferPointer<Component> { UnsafeBufferPointer(start: base, count: count) }
    var isEmpty: Bool { count == 0 }

    @inline(__always) mutating func push(_ c: Component) {
        if count == capacity { grow() }
        base[count] = c
        count += 1
    }
    @inline(__always) mutating func push(_ n: StaticName) { push(.name(n)) }
    @inline(__always) mutating func push(_ s: StaticString) { push(.name(s)) }
    @inline(__always) mutating func push(_ i: Int) { push(.index(i)) }
    @inline(__always) mutating func pop() { count -= 1 }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Component>.allocate(capacity: capacity * 2)
        bigger.initialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }
    var rendered: String { rendered(appending: nil) }
    /// The path, and then `key` (any member name: an unknown one, say) when given.
    func rendered(appending key: String?) -> String {
        var s = ""
        for c in components {
            if let start = c.start {
                let name = String(decoding: UnsafeBufferPointer(start: start, count: c.count), as: UTF8.self)
                s += s.isEmpty ? name : "." + name
            } else {
                s += "[\(c.count)]"
            }
        }
        if let key { s += s.isEmpty ? key : "." + key }
        return s
    }
}

/// Reads typed wire values (numbers, Dimensions, sizes, insets, enum names …) from the
/// scanner, with the wire format's messages and the path of the value in every error.
/// Called with the value's member name already on `path`.
struct WireReader: ~Copyable {
    var scanner: JSONScanner
    var path = JSONPath()
    /// Tables held here rather than read from their statics (each static read checks that
    /// the lazy global was made).
    let sizeNames = WireReader.sizeFields
    let insetNames = WireReader.insetFields

    init(bytes: UnsafeBufferPointer<UInt8>, maxNesting: Int) {
        scanner = JSONScanner(bytes: bytes, maxDepth: maxNesting)
    }

    // MARK: errors

    /// An error at the current path (none at the top level, rather than an empty path).
    func fail(_ message: String) -> WireError {
        .invalidSpec(message, path: path.isEmpty ? nil : path.rendered)
    }
    func fail(_ message: String, at key: String) -> WireError {
        .invalidSpec(message, path: path.rendered(appending: key))
    }
    func typeError(_ expected: String, _ b: UInt8) -> WireError {
        fail("\(expected), not \(JSONScanner.kind(of: b))")
    }

    // MARK: objects

    /// Enters an object (`what` names it in the type error); false when it is empty.
    mutating func beginObject(_ what: @autoclosure () -> String) throws -> Bool {
        let b = try scanner.valueStart()
        guard b == UInt8(ascii: "{") else { throw typeError("\(what()) must be an object", b) }
        return try scanner.beginObject()
    }

    /// The next member's name, looked up in `table`: its index in `table.names` (each name
    /// once per object: a second time is a `duplicate field` error), or nil for a name not in
    /// the table (its value already skipped; the first such name is kept for `finish`).
    @inline(__always) mutating func member<F>(_ table: NameTable<F>, seen: inout UInt64, unknown: inout String?) throws -> Int? {
        let token = try scanner.memberName()
        if let index = scanner.index(of: token, in: table) {
            let bit: UInt64 = 1 << UInt64(index)
            if seen & bit != 0 { throw duplicate(table.names[index]) }
            seen |= bit
            return index
        }
        try unknownMember(token, &unknown)
        return nil
    }

    /// `member(_:seen:unknown:)`, trying first the name that followed `previous` in `order`'s
    /// `context` last time; `previous` becomes the name read.
    @inline(__always) mutating func member<F>(_ table: NameTable<F>, seen: inout UInt64, unknown: inout String?,
                                              order: borrowing MemberOrder, context: Int = 0, previous: inout Int) throws -> Int? {
        let guess = order.guess(after: previous, in: context)
        if guess != MemberOrder.noGuess && scanner.memberName(guess, of: table) {
            let bit: UInt64 = 1 << UInt64(guess)
            if seen & bit != 0 { throw duplicate(table.names[guess]) }
            seen |= bit
            previous = guess
            return guess
        }
        guard let k = try member(table, seen: &seen, unknown: &unknown) else { return nil }
        order.follow(previous, with: k, in: context)
        previous = k
        return k
    }

    private mutating func duplicate(_ name: String) -> WireError {
        fail("duplicate field '\(name)'", at: name)
    }

    private mutating func unknownMember(_ token: JSONScanner.StringToken, _ unknown: inout String?) throws {
        let name = scanner.string(token)
        try scanner.skipValue()
        if unknown == nil { unknown = name }
    }

    /// After an object's members: reject the first unknown one.
    mutating func finish(_ unknown: String?, _ what: @autoclosure () -> String) throws {
        if let k = unknown { throw fail("unknown field '\(k)' in \(what())", at: k) }
    }

    /// The members of the object at the cursor (`what` names it in messages): each known
    /// member's value read by `read`, with its name on the path. Returns the members seen
    /// (bits by position in `table`) and the first unknown one, for `finish` after the
    /// caller's own checks.
    mutating func members<V>(_ table: NameTable<V>, _ what: @autoclosure () -> String,
                             _ read: (inout WireReader, V) throws -> Void) throws -> (seen: UInt64, unknown: String?) {
        var seen: UInt64 = 0, unknown: String?
        if try beginObject(what()) {
            repeat {
                guard let k = try member(table, seen: &seen, unknown: &unknown) else { continue }
                path.push(table.staticNames[k])
                try read(&self, table.values[k])
                path.pop()
            } while try scanner.nextMember()
        }
        return (seen, unknown)
    }

    // MARK: scalars

    @inline(__always) mutating func number() throws -> Double {
        let b = try scanner.valueStart()
        guard b == UInt8(ascii: "-") || (b >= 48 && b <= 57) else { throw typeError("must be a number", b) }
        return try numberAtStart()
    }
    @inline(__always) mutating func nonNegative() throws -> Double {
        let d = try number()
        guard d >= 0 else { throw fail("must be >= 0") }
        return d
    }
    /// The number whose first byte (`-` or a digit) `valueStart` just returned: finite.
    @inline(__always) private mutating func numberAtStart() throws -> Double {
        let d = try scanner.number()
        guard d.isFinite else { throw fail("must be a finite number") }
        return d
    }
    /// `nonNegative()` where `valueStart` just returned the number's first byte.
    @inline(__always) private mutating func nonNegativeAtStart() throws -> Double {
        let d = try numberAtStart()
        guard d >= 0 else { throw fail("must be >= 0") }
        return d
    }
    mutating func bool() throws -> Bool {
        switch try scanner.valueStart() {
        case UInt8(ascii: "t"): try scanner.literal("true"); return true
        case UInt8(ascii: "f"): try scanner.literal("false"); return false
        case let b: throw typeError("must be a boolean", b)
        }
    }
    mutating func string() throws -> String {
        let b = try scanner.valueStart()
        guard b == UInt8(ascii: "\"") else { throw typeError("must be a string", b) }
        return try scanner.string()
    }
    /// A name from `table` (an enum's raw values).
    mutating func name<E>(_ table: NameTable<E>) throws -> E {
        let b = try scanner.valueStart()
        guard b == UInt8(ascii: "\"") else { throw typeError("must be a string", b) }
        let token = try scanner.stringToken()
        if let k = scanner.index(of: token, in: table) { return table.values[k] }
        throw fail("'\(scanner.string(token))' is not one of \(table.names.map { "\"\($0)\"" }.joined(separator: ", "))")
    }
    mutating func integer() throws -> Int {
        let d = try nonNegative()
        guard d == d.rounded(), d < 1e9 else { throw fail("must be a whole number") }
        return Int(d)
    }
    /// A flex factor: a number >= 0, or a boolean as in API 1.x.
    @inline(__always) mutating func flexFactor() throws -> Double {
        switch try scanner.valueStart() {
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return try bool() ? 1 : 0
        case UInt8(ascii: "-"), 48...57: return try nonNegativeAtStart()
        case let b: throw typeError("must be a number >= 0 (or a boolean, as in API 1.x)", b)
        }
    }

    /// Digits with at most one '.', as in "12.5" (no sign, exponent, hex or spaces).
    static func isPlainNumber(_ s: Substring) -> Bool {
        var dots = 0, digits = 0
        for c in s.utf8 {
            if c == UInt8(ascii: ".") { dots += 1 } else if c >= 48 && c <= 57 { digits += 1 } else { return false }
        }
        return digits > 0 && dots <= 1
    }

    /// A Dimension: a number (points, >= 0), "NN%" (0–100 %), "NNpt" or "auto". Numbers, the
    /// common case, are read inline; everything else by `dimensionSlow`.
    @inline(__always) mutating func dimension() throws -> Dimension {
        let b = try scanner.valueStart()
        if b == UInt8(ascii: "-") || (b >= 48 && b <= 57) { return .points(try nonNegativeAtStart()) }
        return try dimensionSlow(b)
    }

    @inline(never) private mutating func dimensionSlow(_ b: UInt8) throws -> Dimension {
        guard b == UInt8(ascii: "\"") else { throw typeError("must be a Dimension (a number of points, \"NN%\" or \"auto\")", b) }
        let s = try scanner.string()
        if s == "auto" { return .auto }
        if s.hasSuffix("%"), Self.isPlainNumber(s.dropLast()), let f = Double(s.dropLast()), f.isFinite {
            guard f >= 0 && f <= 100 else { throw fail("a fraction must be between 0% and 100%") }
            return .fraction(f / 100)
        }
        if s.hasSuffix("pt"), Self.isPlainNumber(s.dropLast(2)), let p = Double(s.dropLast(2)), p.isFinite {
            guard p >= 0 else { throw fail("must be >= 0") }
            return .points(p)
        }
        throw fail("'\(s)' is not a Dimension (a number of points, \"NN%\" or \"auto\")")
    }

    enum SizeField { case width, height }
    static let sizeFields = NameTable<SizeField>([("width", .width), ("height", .height)])

    /// `{"width": n, "height": n}`, both required, >= 0.
    mutating func size(_ what: String) throws -> Size {
        var size = Size(width: 0, height: 0)
        let (seen, unknown) = try members(sizeNames, what) { r, field in
            switch field {
            case .width: size.width = try r.nonNegative()
            case .height: size.height = try r.nonNegative()
            }
        }
        guard seen & 1 != 0 else { throw fail("\(what) needs 'width'") }
        guard seen & 2 != 0 else { throw fail("\(what) needs 'height'") }
        try finish(unknown, what)
        return size
    }

    enum PointField { case x, y }
    static let pointFields = NameTable<PointField>([("x", .x), ("y", .y)])

    mutating func point(_ what: String) throws -> Point {
        var p = Point.zero
        let (_, unknown) = try members(Self.pointFields, what) { r, field in
            switch field {
            case .x: p.x = try r.number()
            case .y: p.y = try r.number()
            }
        }
        try finish(unknown, what)
        return p
    }

    enum InsetField { case top, left, bottom, right }
    static let insetFields = NameTable<InsetField>([("top", .top), ("left", .left), ("bottom", .bottom), ("right", .right)])

    /// Insets: each side a number (negative allowed) or "inf" when `allowInfinite`.
    mutating func insets(allowInfinite: Bool) throws -> EdgeInsets {
        var e = EdgeInsets()
        let (_, unknown) = try members(insetNames, "insets") { r, field in
            let value: Double
            let b = try r.scanner.valueStart()
            if b == UInt8(ascii: "\"") && allowInfinite {
                let s = try r.scanner.string()
                guard s == "inf" || s == "infinity" else { throw r.fail("must be a number or \"inf\", not a string") }
                value = .infinity
            } else if b == UInt8(ascii: "-") || (b >= 48 && b <= 57) {
                value = try r.number()
            } else {
                throw allowInfinite ? r.typeError("must be a number or \"inf\"", b) : r.fail("must be a number")
            }
            switch field {
            case .top: e.top = value
            case .left: e.left = value
            case .bottom: e.bottom = value
            case .right: e.right = value
            }
        }
        try finish(unknown, "insets")
        return e
    }
}
