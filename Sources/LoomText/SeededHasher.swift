/// A fast 64-bit hash with a random per-process seed: every step is one full-width
/// multiplication folded to 64 bits, two input words at a time for byte runs (the
/// construction of wyhash). It only locates things in this module's tables, which always
/// compare what they find whole and bound their probes, so a crafted collision costs a
/// probe, never a wrong answer; the seed keeps collisions from being computed offline.
/// About a tenth of what `Hasher` (SipHash) costs for a short text, whose
/// `combine(bytes:)` and `combine(Int)` are calls into the standard library.
struct SeededHasher {
    typealias Seed = (UInt64, UInt64, UInt64, UInt64)

    /// Random per process (taken from `Hasher`'s seed), odd.
    static let seed: Seed = {
        func random(_ k: Int) -> UInt64 {
            var h = Hasher()
            h.combine(k)
            return UInt64(UInt(bitPattern: h.finalize())) | 1
        }
        return (random(0), random(1), random(2), random(3))
    }()

    /// Both halves of the 128-bit product, folded.
    @inline(__always) static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let p = a.multipliedFullWidth(by: b)
        return p.high ^ p.low
    }

    private var state: UInt64
    private let seed: Seed

    @inline(__always) init() {
        seed = SeededHasher.seed
        state = seed.0
    }

    /// Two words in one step.
    @inline(__always) mutating func combine(_ a: UInt64, _ b: UInt64) {
        state = SeededHasher.mix(a ^ seed.1, b ^ state)
    }

    /// The bytes and their count, sixteen bytes per step. The last step reads its bytes
    /// with loads that overlap (copying them into a word first would stall the load on the
    /// copy's stores): the last sixteen bytes of a longer run, two pairs of 4-byte loads for
    /// 4–16 bytes, three single bytes for 1–3; for a given count every byte is read.
    @inline(__always) mutating func combine(bytes: UnsafeBufferPointer<UInt8>) {
        let n = bytes.count
        guard n > 0, let p = UnsafeRawPointer(bytes.baseAddress) else {
            combine(0, 0)
            return
        }
        @inline(__always) func word(_ offset: Int) -> UInt64 { p.loadUnaligned(fromByteOffset: offset, as: UInt64.self) }
        @inline(__always) func half(_ offset: Int) -> UInt64 { UInt64(p.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        let count = UInt64(n) &* 0x9E37_79B9_7F4A_7C15
        if n > 16 {
            var i = 0
            while n - i > 16 {
                combine(word(i), word(i + 8))
                i += 16
            }
            combine(word(n - 16), word(n - 8) ^ count)
        } else if n >= 4 {
            let step = (n >> 3) << 2
            combine(half(0) << 32 | half(step), (half(n - 4) << 32 | half(n - 4 - step)) ^ count)
        } else {
            let b = p.assumingMemoryBound(to: UInt8.self)
            combine(UInt64(b[0]) << 16 | UInt64(b[n >> 1]) << 8 | UInt64(b[n - 1]), count)
        }
    }

    @inline(__always) func finalize() -> Int {
        Int(bitPattern: UInt(SeededHasher.mix(state ^ seed.3, seed.1 ^ seed.2)))
    }
}
