import CMicroHTTPD
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One request on a connection, from its first access-handler call to its completion.
/// Mutable fields after dispatch are guarded by the server's `state` lock; before dispatch
/// only the libmicrohttpd thread of the connection touches it.
final class RequestContext: @unchecked Sendable {
    enum Phase {
        case receiving, dispatched, suspending, suspended, resumed, answered, completed
    }

    let connection: OpaquePointer
    let method: String
    let path: String
    /// The method's and path's bytes as received, kept only when they are not UTF-8 (`method`
    /// and `path` then hold U+FFFD for the bad bytes), for the access log.
    var rawMethod: [UInt8]?
    var rawPath: [UInt8]?
    /// When the headers were in (DispatchTime uptime nanoseconds).
    let started = DispatchTime.now().uptimeNanoseconds
    var remoteAddress = ""
    var origin: String?
    var acceptsGzip = false
    var query: [String: String] = [:]
    var rawHeaders = RawValues(bytes: [])
    /// The connection's deadlines (nil only if libmicrohttpd did not tell us of it).
    var deadlines: ConnectionDeadlines?

    /// The declared Content-Length (0: none or chunked).
    var declaredLength = 0
    var body: [UInt8] = []
    /// Body bytes counted in the server's `bufferedBodyBytes` (released when the body is
    /// handed over or the request ends).
    var heldBytes = 0
    /// Body bytes received so far, kept or discarded (for the minimum rate).
    var received = 0
    /// The body is read and dropped: the answer is already decided (`rejection`, or the
    /// preflight for OPTIONS).
    var discarding = false
    var discarded = 0
    /// The answer decided before the handler, sent once the body is in.
    var rejection: HTTPServer.PreparedResponse?

    /// Counted in `inFlightCount`; in `parked`.
    var inFlight = false
    var parked = false
    /// Handed to the handler with the request.
    var cancellation: HTTPCancellation?
    /// The client left while the handler worked: the connection was resumed to be closed.
    var abandoned = false

    var phase: Phase = .receiving
    var pending: HTTPServer.PreparedResponse?
    var handlerResponded = false

    var sentStatus = 0
    var sentBytes = 0
    /// The request's id ("" while ids are off or not yet decided).
    var requestID = ""
    /// The body came with `Content-Encoding: gzip` (and the server decodes such bodies).
    var gzipBody = false
    /// The answer's `HTTPResponse.accessLogFields`.
    var logFields: [(String, String)] = []

    init(connection: OpaquePointer, method: String, path: String) {
        self.connection = connection
        self.method = method
        self.path = path
    }
}

/// A C string as a String, and its bytes when they are not UTF-8 (for the log).
func decodeCString(_ text: UnsafePointer<CChar>?, default fallback: String) -> (String, [UInt8]?) {
    guard let text else { return (fallback, nil) }
    if let valid = String(validatingCString: text) { return (valid, nil) }
    let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
    return (String(cString: text), Array(UnsafeBufferPointer(start: bytes, count: strlen(text))))
}

// MARK: - reading request values

extension HTTPServer {
    /// Every value of one kind, copied as received into one buffer.
    func rawValues(_ connection: OpaquePointer, kind: MHD_ValueKind) -> RawValues {
        var capacity = 512
        while true {
            var needed = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                needed = loom_mhd_collect_values(connection, kind, buffer.baseAddress, buffer.count)
                initialized = needed <= buffer.count ? needed : 0
            }
            if needed <= capacity { return RawValues(bytes: bytes) }
            capacity = needed
        }
    }

    func collectValues(_ connection: OpaquePointer, kind: MHD_ValueKind,
                       lowercaseKeys: Bool, join: Bool) -> [String: String] {
        let box = ValueCollector(lowercaseKeys: lowercaseKeys, join: join)
        let unmanaged = Unmanaged.passRetained(box)
        defer { unmanaged.release() }
        _ = MHD_get_connection_values(connection, kind, mhdValueIterator, unmanaged.toOpaque())
        return box.values
    }
}

private final class ValueCollector {
    let lowercaseKeys: Bool
    let join: Bool
    var values: [String: String] = [:]

    init(lowercaseKeys: Bool, join: Bool) {
        self.lowercaseKeys = lowercaseKeys
        self.join = join
    }

    func add(_ key: String, _ value: String) {
        let k = lowercaseKeys ? key.lowercased() : key
        if join, let existing = values[k] {
            values[k] = existing + ", " + value
        } else {
            values[k] = value
        }
    }
}

private let mhdValueIterator: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let box = Unmanaged<ValueCollector>.fromOpaque(cls).takeUnretainedValue()
    box.add(String(cString: key), value.map { String(cString: $0) } ?? "")
    return .YES
}
