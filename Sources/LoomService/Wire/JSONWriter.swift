/// A small, fast JSON writer into bytes. Numbers: integral values print without a fraction,
/// others as Swift's shortest round-trip form; -0 prints as 0; non-finite values print as 0
/// (they never reach the output: Texture replaces them by 0 too).
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    @inline(__always) private mutating func comma() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() { comma(); bytes.append(UInt8(ascii: "{")); needsComma = false }
    public mutating func endObject() { bytes.append(UInt8(ascii: "}")); needsComma = true }
    public mutating func beginArray() { comma(); bytes.append(UInt8(ascii: "[")); needsComma = false }
    public mutating func endArray() { bytes.append(UInt8(ascii: "]")); needsComma = true }

    public mutating func key(_ k: StaticString) {
        comma()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: k.utf8Start, count: k.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func key(_ k: String) {
        string(k)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func bool(_ b: Bool) {
        comma()
        if b { bytes.append(contentsOf: [116, 114, 117, 101]) } else { bytes.append(contentsOf: [102, 97, 108, 115, 101]) }
        needsComma = true
    }

    public mutating func null() { comma(); bytes.append(contentsOf: [110, 117, 108, 108]); needsComma = true }

    public mutating func int(_ v: Int) {
        comma()
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONNumber.maxBytes) { buf in
            let n = JSONNumber.writeInt(v, to: buf.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress, count: n))
        }
        needsComma = true
    }

    public mutating func number(_ v: Double) {
        comma()
        let written = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONNumber.maxBytes) { buf -> Bool in
            let n = JSONNumber.write(v, to: buf.baseAddress!)
            guard n > 0 else { return false }
            bytes.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress, count: n))
            return true
        }
        if !written { bytes.append(contentsOf: v.description.utf8) }
        needsComma = true
    }

    public mutating func string(_ s: String) {
        comma()
        bytes.append(UInt8(ascii: "\""))
        var s = s
        let plain: Bool? = s.withUTF8 { u in
            for b in u where JSONString.needsEscape(b) { return nil }
            bytes.append(contentsOf: u)
            return true
        }
        if plain != nil {
            bytes.append(UInt8(ascii: "\""))
            needsComma = true
            return
        }
        for b in s.utf8 {
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { buf in
                let n = JSONString.writeEscaped(b, to: buf.baseAddress!)
                bytes.append(contentsOf: UnsafeBufferPointer(start: buf.baseAddress, count: n))
            }
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// Splice already-encoded JSON as one value.
    public mutating func raw(_ json: [UInt8]) {
        comma()
        bytes.append(contentsOf: json)
        needsComma = true
    }
}

/// Number text, shared by `JSONWriter` and `ByteSink` (the response encoder's buffer).
enum JSONNumber {
    /// Room `write` and `writeInt` need at the destination.
    static let maxBytes = 32

    /// Writes `v` as JSON and returns the byte count, or 0 when `v` needs Swift's
    /// `description` (the caller writes that; it is never shorter than one byte).
    ///
    /// Fast paths, each printing exactly what `description` prints:
    /// - 0, -0 and non-finite values: "0".
    /// - |v| < 2^18 and a multiple of 2^-10 (every pixel-aligned value at scale 1, 2, 4, 8
    ///   …, and integers): the exact decimal expansion, at most 10 fraction digits. It is
    ///   the shortest round-trip form: any decimal with fewer fraction digits is at least
    ///   10^-10 away from v, while v's neighbouring doubles are at most 2^-35 away, so no
    ///   shorter decimal reads back as v; and among decimals as long as it, v itself is the
    ///   closest. Below 2^18 `description` never switches to exponent notation (that starts
    ///   under 2^-10's order of magnitude, 1e-4, and at 2^53).
    /// - Integral values below 9e15: the integer's digits.
    @inline(__always)
    static func write(_ v: Double, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if !v.isFinite || v == 0 { p[0] = 48; return 1 }
        let a = v.magnitude
        var n = 0
        if a < 262_144 {
            let t = a * 1024 // exact: a power of two
            let m = Int64(t) // below 2^28: a signed conversion, one instruction each way
            guard Double(m) == t else { return 0 }
            if v < 0 { p[0] = 45; n = 1 }
            n += writeBelowMillion(UInt32(truncatingIfNeeded: m &>> 10), to: p + n)
            var f = m & 1023
            if f != 0 {
                p[n] = 46; n += 1
                repeat {
                    f &*= 10
                    p[n] = UInt8(truncatingIfNeeded: 48 &+ (f &>> 10)); n += 1
                    f &= 1023
                } while f != 0
            }
            return n
        }
        guard a < 9.0e15, a == a.rounded(.towardZero) else { return 0 }
        if v < 0 { p[0] = 45; n = 1 }
        return n + writeUInt(UInt64(a), to: p + n)
    }

    @inline(__always)
    static func writeInt(_ v: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if v < 0 { p[0] = 45; return 1 + writeUInt(UInt64(v.magnitude), to: p + 1) }
        return writeUInt(UInt64(v), to: p)
    }

    /// "00" "01" … "99".
    private static let pairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Decimal digits of `v` < 1,000,000 (every whole part `write` prints inline, and
    /// `writeUInt`'s small values): a digit or a pair from `pairs` at a time, the length found
    /// by comparisons rather than a loop.
    @inline(__always)
    static func writeBelowMillion(_ v: UInt32, to p: UnsafeMutablePointer<UInt8>) -> Int {
        let table = UnsafeRawPointer(pairs.utf8Start)
        let out = UnsafeMutableRawPointer(p)
        @inline(__always) func pair(_ r: UInt32, at k: Int) {
            out.storeBytes(of: table.loadUnaligned(fromByteOffset: 2 &* Int(r), as: UInt16.self), toByteOffset: k, as: UInt16.self)
        }
        @inline(__always) func digit(_ d: UInt32) { p[0] = UInt8(truncatingIfNeeded: 48 &+ d) }
        if v < 100 {
            if v < 10 { digit(v); return 1 }
            pair(v, at: 0)
            return 2
        }
        if v < 10_000 {
            let high = v / 100, low = v &- high &* 100
            if high < 10 { digit(high); pair(low, at: 1); return 3 }
            pair(high, at: 0); pair(low, at: 2)
            return 4
        }
        let high = v / 10_000, rest = v &- high &* 10_000
        let middle = rest / 100, low = rest &- middle &* 100
        if high < 10 { digit(high); pair(middle, at: 1); pair(low, at: 3); return 5 }
        pair(high, at: 0); pair(middle, at: 2); pair(low, at: 4)
        return 6
    }

    /// Decimal digits of `v` (at most 20).
    @inline(__always)
    static func writeUInt(_ v: UInt64, to p: UnsafeMutablePointer<UInt8>) -> Int {
        if v < 1_000_000 { return writeBelowMillion(UInt32(truncatingIfNeeded: v), to: p) }
        var digits = 2
        var t = v / 100
        while t != 0 { t /= 10; digits &+= 1 }
        // Two digits at a time from the end.
        let table = pairs.utf8Start
        var x = v
        var k = digits
        while x >= 100 {
            let r = Int(truncatingIfNeeded: x % 100)
            x /= 100
            k -= 2
            p[k] = table[2 &* r]
            p[k &+ 1] = table[2 &* r &+ 1]
        }
        if x >= 10 {
            let r = Int(truncatingIfNeeded: x)
            p[0] = table[2 &* r]
            p[1] = table[2 &* r &+ 1]
        } else {
            p[0] = UInt8(truncatingIfNeeded: 48 &+ x)
        }
        return digits
    }
}

/// String escaping, shared by `JSONWriter` and `ByteSink`: `"` `\` and control characters
/// are escaped (\n \r \t by name, others as \u00XX); everything else, UTF-8 included, is
/// copied.
enum JSONString {
    @inline(__always) static func needsEscape(_ b: UInt8) -> Bool {
        b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\")
    }

    /// Writes byte `b` escaped if needed (at most 6 bytes); returns the count.
    static func writeEscaped(_ b: UInt8, to p: UnsafeMutablePointer<UInt8>) -> Int {
        switch b {
        case UInt8(ascii: "\""): p[0] = 92; p[1] = 34; return 2
        case UInt8(ascii: "\\"): p[0] = 92; p[1] = 92; return 2
        case 0x0A: p[0] = 92; p[1] = UInt8(ascii: "n"); return 2
        case 0x0D: p[0] = 92; p[1] = UInt8(ascii: "r"); return 2
        case 0x09: p[0] = 92; p[1] = UInt8(ascii: "t"); return 2
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            p[0] = 92; p[1] = UInt8(ascii: "u"); p[2] = 48; p[3] = 48
            p[4] = hex.utf8Start[Int(b >> 4)]; p[5] = hex.utf8Start[Int(b & 15)]
            return 6
        default: p[0] = b; return 1
        }
    }
}

/// A growable byte buffer written through a raw pointer: no per-byte bounds, uniqueness or
/// exclusivity checks. A local helper of one encoding call: whoever makes it calls
/// `release()` exactly once (after `makeArray()` when the bytes are wanted), and it is never
/// copied while in use.
struct ByteSink {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int) {
        self.capacity = Swift.max(64, capacity)
        base = .allocate(capacity: self.capacity)
    }

    func release() { base.deallocate() }

    /// Makes room for `n` more bytes.
    @inline(__always) mutating func reserve(_ n: Int) {
        if _slowPath(capacity &- count < n) { grow(n) }
    }

    @inline(never) private mutating func grow(_ n: Int) {
        let newCapacity = Swift.max(capacity &* 2, count &+ n)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// The last byte written (nil when empty).
    @inline(__always) var last: UInt8? { count > 0 ? base[count &- 1] : nil }

    @inline(__always) mutating func append(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count &+= 1
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        append(s.utf8Start, count: s.utf8CodeUnitCount)
    }

    @inline(__always) mutating func append(_ p: UnsafePointer<UInt8>, count n: Int) {
        reserve(n)
        (base + count).update(from: p, count: n)
        count &+= n
    }

    mutating func append(_ other: ByteSink) { append(other.base, count: other.count) }

    /// The first `kept` bytes of a block of `size` bytes (a constant: the copy is a few
    /// moves), copied whole into the room after the bytes written.
    @inline(__always) mutating func block(_ p: UnsafePointer<UInt8>, of size: Int, keeping kept: Int) {
        reserve(size)
        UnsafeMutableRawPointer(base + count).copyMemory(from: p, byteCount: size)
        count &+= kept
    }

    @inline(__always) mutating func number(_ v: Double) {
        reserve(JSONNumber.maxBytes)
        var p = base + count
        put(v, &p)
        count = p - base
    }

    /// `{"x":…,"y":…,"width":…,"height":…}`, the frame object of every entry, after one
    /// capacity check for all of it.
    @inline(__always) mutating func frame(x: Double, y: Double, width: Double, height: Double) {
        reserve(Self.frameBytes)
        var p = base + count
        put(#"{"x":"#, &p)
        put(x, &p)
        put(#","y":"#, &p)
        put(y, &p)
        put(#","width":"#, &p)
        put(width, &p)
        put(#","height":"#, &p)
        put(height, &p)
        p.pointee = UInt8(ascii: "}")
        count = p + 1 - base
    }

    /// The most bytes `frame` writes: its names and punctuation, four numbers.
    private static let frameBytes = 30 + 4 * JSONNumber.maxBytes

    @inline(__always) private func put(_ s: StaticString, _ p: inout UnsafeMutablePointer<UInt8>) {
        p.update(from: s.utf8Start, count: s.utf8CodeUnitCount)
        p += s.utf8CodeUnitCount
    }

    /// A number at `p` (room for `JSONNumber.maxBytes` from it), `p` moved past it.
    @inline(__always) private mutating func put(_ v: Double, _ p: inout UnsafeMutablePointer<UInt8>) {
        let n = JSONNumber.write(v, to: p)
        if _fastPath(n > 0) { p += n } else { putSlow(v, &p) }
    }

    /// A number `JSONNumber.write` leaves to `description`, appended (which may move the
    /// buffer); then room again for the rest of a frame, the most any caller writes next.
    @inline(never) private mutating func putSlow(_ v: Double, _ p: inout UnsafeMutablePointer<UInt8>) {
        count = p - base
        numberSlow(v)
        reserve(Self.frameBytes)
        p = base + count
    }

    @inline(never) private mutating func numberSlow(_ v: Double) {
        var s = v.description
        s.withUTF8 { u in append(u.baseAddress!, count: u.count) }
    }

    @inline(__always) mutating func int(_ v: Int) {
        reserve(JSONNumber.maxBytes)
        count &+= JSONNumber.writeInt(v, to: base + count)
    }

    mutating func bool(_ b: Bool) { if b { append("true") } else { append("false") } }

    /// A JSON string literal.
    mutating func string(_ s: String) {
        let done = s.utf8.withContiguousStorageIfAvailable { u -> Bool in
            stringLiteral(u)
            return true
        }
        if done == nil {
            var copy = s
            copy.withUTF8 { stringLiteral($0) }
        }
    }

    @inline(__always) private mutating func stringLiteral(_ u: UnsafeBufferPointer<UInt8>) {
        let n = u.count
        reserve(n &+ 2)
        var p = base + count
        p[0] = 34
        p += 1
        var k = 0
        while k < n {
            let b = u[k]
            if _slowPath(JSONString.needsEscape(b)) { return stringEscaped(u) }
            p[k] = b
            k &+= 1
        }
        p[n] = 34
        count &+= n &+ 2
    }

    @inline(never) private mutating func stringEscaped(_ u: UnsafeBufferPointer<UInt8>) {
        append(34)
        for b in u {
            reserve(6)
            count &+= JSONString.writeEscaped(b, to: base + count)
        }
        append(34)
    }

    /// The bytes written, as an array.
    func makeArray() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { buffer.baseAddress!.initialize(from: base, count: count) }
            initialized = count
        }
    }

    /// The bytes written and then those of `other`, as one array.
    func makeArray(followedBy other: ByteSink) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count + other.count) { buffer, initialized in
            if count > 0 { buffer.baseAddress!.initialize(from: base, count: count) }
            if other.count > 0 { (buffer.baseAddress! + count).initialize(from: other.base, count: other.count) }
            initialized = count + other.count
        }
    }
}
