#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import LoomLayout

/// What makes two texts the same for the measurement cache: every field of their
/// attributes, strings by their UTF-8 bytes and numbers by their bit patterns (so NaN equals
/// itself, and canonically equivalent strings with different bytes, which Pango may shape
/// differently, are different texts; Swift's `==` on strings would compare canonical
/// equivalence, normalizing non-ASCII text on every comparison).
///
/// One walk over the fields (`visit`) serves three readers: the fingerprint hashes them,
/// `encode` writes them into the flat key the cache stores, and `matches` compares a text
/// with such a key in one pass over contiguous memory.
enum TextIdentity {
    /// A 64-bit hash of the identity (`SeededHasher`: seeded per process).
    static func fingerprint(_ a: TextAttributes) -> Int {
        var h = SeededHasher()
        _ = visit(a, &h)
        return h.finalize()
    }

    /// The identity as bytes: words in native byte order, strings as a length word and
    /// their bytes padded to a multiple of 8.
    static func encode(_ a: TextAttributes) -> [UInt8] {
        var writer = Writer()
        _ = visit(a, &writer)
        return writer.output
    }

    /// Writes `encode(a)` into `key`, which is `encodedSize(a)` bytes (no array made).
    static func encode(_ a: TextAttributes, into key: UnsafeMutableRawBufferPointer) {
        var writer = RawWriter(key: key)
        _ = visit(a, &writer)
        precondition(writer.offset == key.count, "TextIdentity.encode: size mismatch")
    }

    /// The length of `encode(a)`, without making it.
    static func encodedSize(_ a: TextAttributes) -> Int {
        var counter = Counter()
        _ = visit(a, &counter)
        return counter.count
    }

    /// Whether `a` has the identity `key` (made by `encode`).
    static func matches(_ a: TextAttributes, _ key: UnsafeRawBufferPointer) -> Bool {
        var matcher = Matcher(key: key)
        return visit(a, &matcher) && matcher.offset == key.count
    }

    // MARK: The fields, in order

    /// Feeds the fields to `v`; stops (false) as soon as `v` returns false.
    @inline(__always)
    private static func visit<V: Visitor>(_ a: TextAttributes, _ v: inout V) -> Bool {
        guard v.words(UInt64(a.spans.count), UInt64(bitPattern: Int64(a.maximumNumberOfLines))) else { return false }
        // The visitor stays a local of one function (in registers): inout across the closure
        // it would be stored and reloaded between the steps of a hash's dependency chain.
        let start = v
        let (ok, end) = a.spans.withUnsafeBufferPointer { spans -> (Bool, V) in
            var v = start
            for i in spans.indices {
                let spacing = spans[i].letterSpacing
                guard v.string(spans[i].text),
                      v.words(spacing?.bitPattern ?? 0, (spacing == nil ? 1 : 0) | (spans[i].font == nil ? 2 : 0))
                else { return (false, v) }
                if let f = spans[i].font, !font(f, &v) { return (false, v) }
            }
            return (true, v)
        }
        v = end
        return ok && font(a.font, &v)
            && v.words(a.lineHeight?.bitPattern ?? 0, a.lineSpacing.bitPattern)
            && v.words(a.letterSpacing.bitPattern,
                       code(a.alignment) | code(a.truncationMode) << 3 | (a.lineHeight == nil ? 64 : 0))
            && v.string(a.truncationText)
    }

    @inline(__always) private static func font<V: Visitor>(_ f: FontDescriptor, _ v: inout V) -> Bool {
        v.string(f.family) && v.words(f.size.bitPattern, UInt64(bitPattern: Int64(f.weight)) << 1 | (f.italic ? 1 : 0))
    }

    static func code(_ a: TextAlignment) -> UInt64 {
        switch a { case .left: 0; case .center: 1; case .right: 2; case .justified: 3; case .natural: 4 }
    }
    static func code(_ m: TruncationMode) -> UInt64 {
        switch m { case .tail: 0; case .head: 1; case .middle: 2; case .clip: 3; case .wordWrap: 4; case .charWrap: 5 }
    }

    // MARK: Readers

    fileprivate protocol Visitor {
        mutating func words(_ a: UInt64, _ b: UInt64) -> Bool
        mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) -> Bool
    }

    private struct Writer: Visitor {
        var output: [UInt8] = []
        init() { output.reserveCapacity(128) }
        mutating func words(_ a: UInt64, _ b: UInt64) -> Bool {
            Swift.withUnsafeBytes(of: a) { output.append(contentsOf: $0) }
            Swift.withUnsafeBytes(of: b) { output.append(contentsOf: $0) }
            return true
        }
        mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            Swift.withUnsafeBytes(of: UInt64(b.count)) { output.append(contentsOf: $0) }
            output.append(contentsOf: b)
            output.append(contentsOf: repeatElement(0, count: (8 - b.count % 8) % 8))
            return true
        }
    }

    private struct RawWriter: Visitor {
        let key: UnsafeMutableRawBufferPointer
        var offset = 0
        @inline(__always) private mutating func word(_ w: UInt64) {
            key.storeBytes(of: w, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        mutating func words(_ a: UInt64, _ b: UInt64) -> Bool { word(a); word(b); return true }
        mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            word(UInt64(b.count))
            let padded = (b.count + 7) & ~7
            if let base = b.baseAddress, b.count > 0 {
                (key.baseAddress! + offset).copyMemory(from: base, byteCount: b.count)
            }
            // Zero padding, as `Writer` writes it.
            for i in b.count..<padded { key[offset + i] = 0 }
            offset += padded
            return true
        }
    }

    private struct Counter: Visitor {
        var count = 0
        mutating func words(_ a: UInt64, _ b: UInt64) -> Bool { count += 16; return true }
        mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) -> Bool { count += 8 + (b.count + 7) & ~7; return true }
    }

    private struct Matcher: Visitor {
        let key: UnsafeRawBufferPointer
        var offset = 0
        init(key: UnsafeRawBufferPointer) { self.key = key }

        @inline(__always) private func word(_ at: Int) -> UInt64 {
            key.loadUnaligned(fromByteOffset: at, as: UInt64.self)
        }
        mutating func words(_ a: UInt64, _ b: UInt64) -> Bool {
            guard offset + 16 <= key.count, word(offset) == a, word(offset + 8) == b else { return false }
            offset += 16
            return true
        }
        mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
            let n = b.count
            guard offset + 8 + n <= key.count, word(offset) == UInt64(n) else { return false }
            if n > 0, !Matcher.equal(key.baseAddress! + offset + 8, UnsafeRawPointer(b.baseAddress!), n) { return false }
            offset += 8 + (n + 7) & ~7
            return true
        }

        /// `n` (> 0) bytes at `p` and `q` equal: words compared in place, the last one
        /// overlapping (short strings, most of them, cost no call).
        @inline(__always) private static func equal(_ p: UnsafeRawPointer, _ q: UnsafeRawPointer, _ n: Int) -> Bool {
            if n > 32 { return memcmp(p, q, n) == 0 }
            if n >= 8 {
                var i = 0
                while i + 8 < n {
                    if p.loadUnaligned(fromByteOffset: i, as: UInt64.self) != q.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                        return false
                    }
                    i += 8
                }
                return p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == q.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            }
            if n >= 4 {
                return p.loadUnaligned(as: UInt32.self) == q.loadUnaligned(as: UInt32.self)
                    && p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self) == q.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            }
            for i in 0..<n where p.load(fromByteOffset: i, as: UInt8.self) != q.load(fromByteOffset: i, as: UInt8.self) {
                return false
            }
            return true
        }
    }
}

extension SeededHasher: TextIdentity.Visitor {
    @inline(__always) mutating func words(_ a: UInt64, _ b: UInt64) -> Bool {
        combine(a, b)
        return true
    }
    @inline(__always) mutating func bytes(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        combine(bytes: b)
        return true
    }
}

extension TextIdentity.Visitor {
    /// A string's UTF-8 bytes (contiguous for every native string; copied otherwise).
    @inline(__always) mutating func string(_ s: String) -> Bool {
        if let ok = s.utf8.withContiguousStorageIfAvailable({ bytes($0) }) { return ok }
        return Array(s.utf8).withUnsafeBufferPointer { bytes($0) }
    }
}
