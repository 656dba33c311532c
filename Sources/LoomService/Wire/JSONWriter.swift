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
        appendInt(v)
        needsComma = true
    }

    private mutating func appendInt(_ v: Int) {
        if v == 0 { bytes.append(48); return }
        var n = v.magnitude
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        var tmp: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                  UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &tmp) { buf in
            while n > 0 { buf[count] = UInt8(48 + n % 10); n /= 10; count += 1 }
            for k in stride(from: count - 1, through: 0, by: -1) { bytes.append(buf[k]) }
        }
    }

    public mutating func number(_ v: Double) {
        comma()
        if !v.isFinite || v == 0 {
            bytes.append(48)
        } else if v == v.rounded(.towardZero) && abs(v) < 9.0e15 {
            appendInt(Int(v))
        } else {
            bytes.append(contentsOf: v.description.utf8)
        }
        needsComma = true
    }

    public mutating func string(_ s: String) {
        comma()
        bytes.append(UInt8(ascii: "\""))
        var s = s
        let plain: Bool? = s.withUTF8 { u in
            for b in u where b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") { return nil }
            bytes.append(contentsOf: u)
            return true
        }
        if plain != nil {
            bytes.append(UInt8(ascii: "\""))
            needsComma = true
            return
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(92); bytes.append(34)
            case UInt8(ascii: "\\"): bytes.append(92); bytes.append(92)
            case 0x0A: bytes.append(92); bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(92); bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(92); bytes.append(UInt8(ascii: "t"))
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex[Int(b >> 4)], hex[Int(b & 15)]])
            default: bytes.append(b)
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
