/// The text of one access log line, built as bytes (string interpolation costs several
/// times more per request).
struct AccessLine {
    private var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(128) }

    mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    mutating func append(_ s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Decimal, as `String(n)` writes it.
    mutating func append(_ n: Int) {
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        var v = n.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0) // 24 bytes: enough for 20 digits
        let count = withUnsafeMutableBytes(of: &digits) { buf -> Int in
            var k = 0
            repeat {
                buf[23 - k] = UInt8(truncatingIfNeeded: 48 &+ v % 10)
                v /= 10
                k += 1
            } while v != 0
            return k
        }
        withUnsafeBytes(of: &digits) { buf in
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[(24 - count)...]))
        }
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes(body)
    }
}
