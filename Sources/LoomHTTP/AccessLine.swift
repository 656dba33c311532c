/// The text of one access log line, written as bytes into a caller's buffer (string
/// interpolation costs several times more per request).
struct AccessLine {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    private(set) var count = 0

    /// `buffer` must hold what will be appended (see `room(for:)`).
    init(_ buffer: UnsafeMutableRawBufferPointer) {
        base = buffer.baseAddress!
        capacity = buffer.count
    }

    /// Bytes needed for the strings of a line plus its numbers and separators.
    static func room(for strings: String...) -> Int {
        strings.reduce(96) { $0 + $1.utf8.count }
    }

    private mutating func put(_ p: UnsafeRawPointer, _ n: Int) {
        precondition(count + n <= capacity, "access line buffer too small")
        (base + count).copyMemory(from: p, byteCount: n)
        count += n
    }

    mutating func append(_ s: StaticString) {
        put(s.utf8Start, s.utf8CodeUnitCount)
    }

    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { if let p = $0.baseAddress { put(p, $0.count) } }
    }

    /// Decimal, as `String(n)` writes it.
    mutating func append(_ n: Int) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: a sign and 20 digits fit
        let used = withUnsafeMutableBytes(of: &digits) { buf -> Int in
            var v = n.magnitude
            var k = 0
            repeat {
                buf[23 - k] = UInt8(truncatingIfNeeded: 48 &+ v % 10)
                v /= 10
                k += 1
            } while v != 0
            if n < 0 { buf[23 - k] = UInt8(ascii: "-"); k += 1 }
            return k
        }
        withUnsafeBytes(of: &digits) { put($0.baseAddress! + (24 - used), used) }
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
