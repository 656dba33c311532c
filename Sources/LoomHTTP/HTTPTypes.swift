/// A complete HTTP request, handed to the handler once the whole body is in.
public struct HTTPRequest: Sendable {
    /// The request method exactly as sent ("GET", "POST", … or any other token, however
    /// long: mapping unknown ones is the handler's job). A `HEAD` request is handed to the
    /// handler as "GET" (the server then sends the headers only).
    public var method: String
    /// The URL path without the query string, percent-decoded by libmicrohttpd.
    public var path: String
    /// Query parameters, percent-decoded ('+' is a space). A parameter without a value
    /// (`?flag`) maps to "". When a name repeats, the last value wins.
    public var query: [String: String]
    /// Request headers; keys are lower-cased, repeated headers are joined with ", ".
    /// (Built on demand from the headers as received; `header(_:)` is cheaper.)
    public var headers: [String: String] {
        get { storage.dictionary }
        set { storage = .dictionary(newValue) }
    }
    /// The request body (never longer than `Configuration.maxBodyBytes`), decompressed when
    /// it came gzipped and `Configuration.decodesGzipBodies` is on.
    public var body: [UInt8]
    /// The client's IP address ("127.0.0.1", "::1"), or "" when unknown.
    public var remoteAddress: String
    /// Cancelled by the server when the client closes its connection while the handler
    /// works on the request (its answer would go nowhere).
    public var cancellation: HTTPCancellation
    /// The request's id (`Configuration.requestIDHeader`), "" when ids are off.
    public var requestID: String = ""

    private var storage: HeaderStorage

    public init(method: String, path: String, query: [String: String] = [:],
                headers: [String: String] = [:], body: [UInt8] = [], remoteAddress: String = "",
                cancellation: HTTPCancellation = HTTPCancellation()) {
        self.method = method
        self.path = path
        self.query = query
        self.storage = .dictionary(headers)
        self.body = body
        self.remoteAddress = remoteAddress
        self.cancellation = cancellation
    }

    /// A request whose headers are kept as received (see `RawValues`).
    init(method: String, path: String, query: [String: String], rawHeaders: RawValues, body: [UInt8],
         remoteAddress: String, cancellation: HTTPCancellation = HTTPCancellation()) {
        self.method = method
        self.path = path
        self.query = query
        self.storage = .raw(rawHeaders)
        self.body = body
        self.remoteAddress = remoteAddress
        self.cancellation = cancellation
    }

    /// The value of a header, looked up case-insensitively.
    public func header(_ name: String) -> String? {
        storage.value(name)
    }
}

/// Request headers: a dictionary (lower-cased keys), or as received.
enum HeaderStorage: Sendable {
    case dictionary([String: String])
    case raw(RawValues)

    var dictionary: [String: String] {
        switch self {
        case .dictionary(let d): return d
        case .raw(let r): return r.dictionary
        }
    }

    func value(_ name: String) -> String? {
        switch self {
        case .dictionary(let d): return d[name.lowercased()]
        case .raw(let r):
            if let answer = r.asciiLookup(name) { return answer }
            return r.dictionary[name.lowercased()]
        }
    }
}

/// Request headers as libmicrohttpd handed them over, copied into one buffer
/// (`loom_mhd_collect_values`: records of UInt32 key length, UInt32 value length, key, value),
/// so that a request costs one allocation for its headers, not a dictionary of strings.
struct RawValues: Sendable {
    let bytes: [UInt8]

    /// Visits the records in order; `body` returns false to stop.
    @inline(__always)
    private func forEach(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Bool) {
        bytes.withUnsafeBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            var offset = 0
            while offset + 8 <= buf.count {
                let raw = UnsafeRawPointer(base + offset)
                let k = Int(raw.loadUnaligned(as: UInt32.self))
                let v = Int(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
                let key = UnsafeBufferPointer(start: base + offset + 8, count: k)
                let value = UnsafeBufferPointer(start: base + offset + 8 + k, count: v)
                offset += 8 + k + v
                if !body(key, value) { return }
            }
        }
    }

    /// Lower-cased keys, repeated keys joined with ", " (what `HTTPRequest.headers` says).
    var dictionary: [String: String] {
        var d: [String: String] = [:]
        forEach { key, value in
            let k = String(decoding: key, as: UTF8.self).lowercased()
            let v = String(decoding: value, as: UTF8.self)
            if let existing = d[k] { d[k] = existing + ", " + v } else { d[k] = v }
            return true
        }
        return d
    }

    /// The value for `name` (any case) without building the dictionary: `.some(nil)` when
    /// absent; nil (undecided) whenever `name` or a header name is not plain ASCII, where the
    /// caller asks `dictionary`, whose Unicode lower-casing is the reference.
    func asciiLookup(_ name: String) -> String?? {
        var name = name
        return name.withUTF8 { n -> String?? in
            for b in n where b >= 0x80 { return nil }
            var found: String?
            var ascii = true
            forEach { key, value in
                guard key.count == n.count else {
                    for b in key where b >= 0x80 { ascii = false; return false }
                    return true
                }
                var equal = true
                for i in 0..<key.count {
                    let a = key[i], b = n[i]
                    if a >= 0x80 { ascii = false; return false }
                    if a != b && asciiLower(a) != asciiLower(b) { equal = false }
                }
                if equal {
                    let v = String(decoding: value, as: UTF8.self)
                    found = found.map { $0 + ", " + v } ?? v
                }
                return true
            }
            return ascii ? .some(found) : nil
        }
    }

    @inline(__always) private func asciiLower(_ b: UInt8) -> UInt8 {
        b &- 65 < 26 ? b | 0x20 : b
    }
}

/// An HTTP response. The server adds `Content-Length`, `Date`, CORS headers,
/// `X-Content-Type-Options: nosniff` and, when it compresses the body, `Content-Encoding`
/// and `Vary`; the handler should not set
/// `Content-Length`, `Transfer-Encoding` or `Connection` (they are ignored, except
/// `Connection: close`).
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Set when every response made with this object is this very one (status, headers,
    /// body) for as long as the object lives, e.g. a cache entry. The server may then keep
    /// what it built from it (CORS headers, compressed body, libmicrohttpd response) and
    /// answer later responses with the same object from that.
    public var reuseKey: (AnyObject & Sendable)?
    /// Fields the access line of this request carries besides the server's own (e.g. an
    /// error code, a cache status): logger metadata, key and value. Values are escaped as
    /// the line's path is.
    public var accessLogFields: [(String, String)]

    public init(status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [],
                reuseKey: (AnyObject & Sendable)? = nil, accessLogFields: [(String, String)] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.reuseKey = reuseKey
        self.accessLogFields = accessLogFields
    }

    /// The first value of a header, looked up case-insensitively.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first(where: { $0.0.lowercased() == lower })?.1
    }
}

public enum HTTPServerError: Error, CustomStringConvertible, Equatable {
    /// The host does not parse or resolve to an address.
    case invalidAddress(host: String, reason: String)
    /// Another process (or server) already listens on this address and port.
    case addressInUse(host: String, port: Int)
    /// socket(2), bind(2) or listen(2) failed for another reason.
    case bindFailed(host: String, port: Int, reason: String)
    /// libmicrohttpd refused to start; `reason` holds its log messages.
    case startFailed(reason: String)
    /// start() was called twice, or after stop().
    case invalidState(String)

    public var description: String {
        switch self {
        case let .invalidAddress(host, reason):
            return "cannot listen on host '\(host)': \(reason)"
        case let .addressInUse(host, port):
            return "cannot listen on \(host):\(port): the address is already in use (another server is running on this port?)"
        case let .bindFailed(host, port, reason):
            return "cannot listen on \(host):\(port): \(reason)"
        case let .startFailed(reason):
            return "cannot start the HTTP daemon: \(reason)"
        case let .invalidState(what):
            return "HTTP server: \(what)"
        }
    }
}
