import COpenSSL

/// SHA-256 over bytes fed in pieces (OpenSSL's libcrypto): the request keys'
/// hash (`LayoutService.rawKey`, `responseKey`, `TreeDigest`).
struct SHA256 {
    /// A digest's 32 bytes.
    struct Digest {
        fileprivate var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

        func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try Swift.withUnsafeBytes(of: bytes, body)
        }
    }

    private var context = SHA256_CTX()

    init() { SHA256_Init(&context) }

    mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        guard let base = bufferPointer.baseAddress, bufferPointer.count > 0 else { return }
        SHA256_Update(&context, base, bufferPointer.count)
    }

    mutating func finalize() -> Digest {
        var digest = Digest()
        Swift.withUnsafeMutableBytes(of: &digest.bytes) { out in
            _ = SHA256_Final(out.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
        }
        return digest
    }

    static func hash(data: UnsafeRawBufferPointer) -> Digest {
        var h = SHA256()
        h.update(bufferPointer: data)
        return h.finalize()
    }
}
