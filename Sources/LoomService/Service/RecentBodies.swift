import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Request bodies recently answered from the cache, with their raw keys: a body sent again
/// byte for byte gets its key by one comparison instead of SHA-256 (the key of equal bytes
/// is the same key). Direct-mapped: a slot holds the last body remembered in it. Only
/// bodies up to `maxBodyBytes` are kept, so the table stays under 64 × 16 KiB.
final class RecentBodies: @unchecked Sendable {
    static let slots = 64
    static let maxBodyBytes = 16 << 10

    private struct Entry {
        var body: [UInt8]
        var format: OutputFormat
        var key: LayoutService.RawKey
    }

    private let table = Mutex<[Entry?]>(Array(repeating: nil, count: RecentBodies.slots))

    /// The slot of a body: its length and three 8-byte words (start, middle, end) mixed.
    private static func slot(_ body: UnsafeRawBufferPointer, _ format: OutputFormat) -> Int {
        let n = body.count
        var h = UInt64(truncatingIfNeeded: n) &* 0x9E37_79B9_7F4A_7C15 ^ (format == .json ? 0 : 0x5555)
        if n >= 8 {
            func mix(_ offset: Int) {
                h = (h ^ body.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                h ^= h >> 29
            }
            mix(0)
            mix(n / 2 - 4)
            mix(n - 8)
        } else {
            for b in body { h = (h ^ UInt64(b)) &* 0xFF51_AFD7_ED55_8CCD }
        }
        return Int(truncatingIfNeeded: (h >> 32) % UInt64(slots))
    }

    /// The key remembered for exactly these bytes, if any.
    func key(for body: [UInt8], format: OutputFormat) -> LayoutService.RawKey? {
        guard body.count <= Self.maxBodyBytes else { return nil }
        return body.withUnsafeBytes { b -> LayoutService.RawKey? in
            let i = Self.slot(b, format)
            return table.withLock { t -> LayoutService.RawKey? in
                guard let e = t[i], e.format == format, e.body.count == b.count else { return nil }
                let same = e.body.withUnsafeBytes { stored in
                    b.count == 0 || memcmp(stored.baseAddress!, b.baseAddress!, b.count) == 0
                }
                return same ? e.key : nil
            }
        }
    }

    func remember(_ body: [UInt8], format: OutputFormat, key: LayoutService.RawKey) {
        guard body.count <= Self.maxBodyBytes else { return }
        let i = body.withUnsafeBytes { Self.slot($0, format) }
        // The body array is shared, not copied (arrays are values: it cannot change).
        let old = table.withLock { t -> Entry? in
            let old = t[i]
            t[i] = Entry(body: body, format: format, key: key)
            return old
        }
        _ = old // released outside the lock
    }
}
