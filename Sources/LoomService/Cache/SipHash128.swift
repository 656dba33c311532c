/// SipHash with a 128-bit output (Aumasson and Bernstein), streaming, for the subtree
/// digests: a keyed pseudo-random function, so with a key drawn at random per process clients
/// can neither compute nor aim at collisions. `compressionRounds` and `finalizationRounds`
/// are SipHash's c and d: the subtree digests use 1-3 (the rounds Swift's own `Hasher` uses),
/// the tests check the same code with 2-4 against the reference vectors.
///
/// Written here rather than taken from `Hasher`: `Hasher` gives 64 bits, so a 128-bit digest
/// took two of them over the same bytes, each step a call into the standard library.
struct SipHash128 {
    typealias Key = (UInt64, UInt64)

    private var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64
    /// Bytes not yet compressed (the low `pending` bytes of `tail`, little-endian).
    private var tail: UInt64 = 0
    private var pending = 0
    private var length: UInt64 = 0
    private let compressionRounds: Int
    private let finalizationRounds: Int

    @inline(__always) init(key: Key, compressionRounds: Int = 1, finalizationRounds: Int = 3) {
        v0 = key.0 ^ 0x736f_6d65_7073_6575
        v1 = key.1 ^ 0x646f_7261_6e64_6f6d ^ 0xee  // 0xee: the 128-bit variant
        v2 = key.0 ^ 0x6c79_6765_6e65_7261
        v3 = key.1 ^ 0x7465_6462_7974_6573
        self.compressionRounds = compressionRounds
        self.finalizationRounds = finalizationRounds
    }

    @inline(__always) private static func rotl(_ x: UInt64, _ b: UInt64) -> UInt64 { (x << b) | (x >> (64 - b)) }

    @inline(__always) private mutating func round() {
        v0 &+= v1; v1 = Self.rotl(v1, 13); v1 ^= v0; v0 = Self.rotl(v0, 32)
        v2 &+= v3; v3 = Self.rotl(v3, 16); v3 ^= v2
        v0 &+= v3; v3 = Self.rotl(v3, 21); v3 ^= v0
        v2 &+= v1; v1 = Self.rotl(v1, 17); v1 ^= v2; v2 = Self.rotl(v2, 32)
    }

    @inline(__always) private mutating func compress(_ m: UInt64) {
        v3 ^= m
        for _ in 0..<compressionRounds { round() }
        v0 ^= m
    }

    /// Eight bytes, as their little-endian word.
    @inline(__always) mutating func combine(_ word: UInt64) {
        length &+= 8
        if pending == 0 { return compress(word) }
        // Not aligned to the message's blocks: the word straddles two of them.
        let shift = UInt64(pending * 8)
        compress(tail | word << shift)
        tail = word >> (64 - shift)
    }

    mutating func combine(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var i = 0
        let n = bytes.count
        // Bytes one at a time until a block boundary, then whole words, then the rest.
        while pending != 0 && i < n { combine(byte: base.load(fromByteOffset: i, as: UInt8.self)); i += 1 }
        while n - i >= 8 {
            compress(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
            length &+= 8
        }
        while i < n { combine(byte: base.load(fromByteOffset: i, as: UInt8.self)); i += 1 }
    }

    @inline(__always) private mutating func combine(byte: UInt8) {
        tail |= UInt64(byte) << UInt64(pending * 8)
        pending += 1
        length &+= 1
        if pending == 8 { compress(tail); tail = 0; pending = 0 }
    }

    /// The 128 bits: the first eight output bytes as `high`'s little-endian word, the next
    /// eight as `low`'s (the reference implementation's byte order, read in two words).
    @inline(__always) mutating func finalize() -> (high: UInt64, low: UInt64) {
        compress(tail | (length & 0xff) << 56)
        v2 ^= 0xee
        for _ in 0..<finalizationRounds { round() }
        let first = v0 ^ v1 ^ v2 ^ v3
        v1 ^= 0xdd
        for _ in 0..<finalizationRounds { round() }
        return (first, v0 ^ v1 ^ v2 ^ v3)
    }
}
