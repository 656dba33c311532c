import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One libmicrohttpd response built once and queued for every request answered with the
/// same `HTTPResponse.reuseKey` in the same variant (CORS origin answered, gzip or not).
/// libmicrohttpd counts the connections using it; `deinit` drops our reference.
final class SharedResponse: @unchecked Sendable {
    /// Held, so that its identity cannot be taken by another object while we are here.
    let key: AnyObject
    let allowedOrigin: String?
    let acceptsGzip: Bool
    /// What `prepare` made of the response: kept for the rare answer that needs its own
    /// libmicrohttpd response (`Connection: close` while the server stops).
    let prepared: HTTPServer.PreparedResponse
    let response: OpaquePointer
    /// The body libmicrohttpd frees with `response` (alive as long as this object is).
    let bodyBytes: UnsafeMutableRawPointer
    let bodyCount: Int

    init?(key: AnyObject, allowedOrigin: String?, acceptsGzip: Bool, prepared: HTTPServer.PreparedResponse) {
        // The body is copied once into memory libmicrohttpd frees itself, when the last
        // connection using the response is done with it.
        let count = prepared.body.count
        guard let copy = malloc(Swift.max(1, count)) else { return nil }
        prepared.body.withUnsafeBytes { if count > 0 { copy.copyMemory(from: $0.baseAddress!, byteCount: count) } }
        guard let response = MHD_create_response_from_buffer_with_free_callback(count, copy, free) else {
            free(copy)
            return nil
        }
        for (name, value) in prepared.headers where addResponseHeader(response, name, value) == .NO {
            MHD_destroy_response(response)
            return nil
        }
        self.key = key
        self.allowedOrigin = allowedOrigin
        self.acceptsGzip = acceptsGzip
        self.prepared = prepared
        self.response = response
        self.bodyBytes = copy
        self.bodyCount = count
    }

    deinit { MHD_destroy_response(response) }
}

/// A small table of shared responses: direct-mapped by (key, variant), a newer entry
/// replaces an older one in its slot. Only bodies up to `maxBodyBytes` are kept.
final class SharedResponses: @unchecked Sendable {
    static let slots = 64
    static let maxBodyBytes = 64 << 10
    private let table = Mutex<[SharedResponse?]>(Array(repeating: nil, count: SharedResponses.slots))

    @inline(__always) private func slot(_ key: AnyObject, _ allowedOrigin: String?, _ acceptsGzip: Bool) -> Int {
        var h = UInt(bitPattern: ObjectIdentifier(key).hashValue)
        h = h &* 0x9E37_79B9_7F4A_7C15 &+ (acceptsGzip ? 1 : 0) &+ UInt(bitPattern: allowedOrigin?.utf8.count ?? -1)
        return Int(truncatingIfNeeded: (h >> 32) % UInt(SharedResponses.slots))
    }

    func find(_ key: AnyObject, allowedOrigin: String?, acceptsGzip: Bool) -> SharedResponse? {
        let i = slot(key, allowedOrigin, acceptsGzip)
        return table.withLock { t in
            guard let s = t[i], s.key === key, s.acceptsGzip == acceptsGzip, s.allowedOrigin == allowedOrigin else { return nil }
            return s
        }
    }

    func insert(_ shared: SharedResponse) {
        let i = slot(shared.key, shared.allowedOrigin, shared.acceptsGzip)
        // The replaced entry is released outside the lock.
        let old = table.withLock { t -> SharedResponse? in
            let old = t[i]
            t[i] = shared
            return old
        }
        _ = old
    }

    func removeAll() {
        let old = table.withLock { t -> [SharedResponse?] in
            let old = t
            t = Array(repeating: nil, count: SharedResponses.slots)
            return old
        }
        _ = old
    }
}
