extension HTTPServer {
    public struct Configuration: Sendable {
        /// Address to listen on: "127.0.0.1", "0.0.0.0", "::", "localhost", …
        public var host: String = "127.0.0.1"
        /// 0 picks a free port (see `boundPort`).
        public var port: Int = 8080
        /// Larger request bodies are answered with 413 and never buffered.
        public var maxBodyBytes: Int = 4 << 20
        /// Open connections at most (MHD_OPTION_CONNECTION_LIMIT, split among the threads);
        /// at the limit libmicrohttpd stops accepting, so more wait in the listen backlog.
        public var maxConnections: Int = 1024
        /// A connection idle (or stalled mid-request) this long is closed. Does not run
        /// while the handler works on a request.
        public var connectionTimeoutSeconds: Int = 10
        /// libmicrohttpd's own polling threads (MHD_OPTION_THREAD_POOL_SIZE).
        public var threads: Int = 2
        /// Origins given CORS access; "*" allows any. Empty (the default): CORS is off, no
        /// `Access-Control-*` header is ever sent and no preflight is approved.
        public var corsAllowedOrigins: [String] = []
        /// Response bodies at least this long are gzip-compressed for clients that accept
        /// it.
        public var gzipMinimumBytes: Int = 1024
        /// Total time a client has to send a request's headers, counted from the connection's
        /// start or, on a kept-alive connection, from the end of the previous answer (so idle
        /// time counts too). A connection past it is closed. 0: no limit.
        public var headerTimeoutSeconds: Int = 10
        /// Total time a client has to send a request's body, counted from the end of its
        /// headers. A connection past it is closed. 0: no limit.
        public var bodyTimeoutSeconds: Int = 30
        /// A body arriving slower than this on average, measured from the end of the headers
        /// once `bodyRateGraceSeconds` have passed, is cut (the connection is closed). 0: no
        /// minimum.
        public var minBodyBytesPerSecond: Int = 1024
        /// How long a body may arrive at any rate before `minBodyBytesPerSecond` applies.
        public var bodyRateGraceSeconds: Int = 5
        /// Bytes held, server-wide, in request bodies still arriving (not yet handed to the
        /// handler). A request that would pass it is refused with `.bodiesBuffered` (503,
        /// `Retry-After: 1`), and its connection is closed.
        public var maxBufferedBodyBytes: Int = 128 << 20
        /// Response headers a cross-origin page may read: sent as
        /// `Access-Control-Expose-Headers` with every answer to an allowed origin. Empty
        /// (the default): the header is not sent.
        public var exposedHeaders: [String] = []
        /// The answers the server gives itself, without the handler (see `HTTPRefusal`);
        /// the server adds CORS headers, `nosniff` and, for `.bodiesBuffered`,
        /// `Retry-After`. The default: the refusal's status and message as plain text.
        public var refusalResponse: @Sendable (HTTPRefusal) -> HTTPResponse = { $0.plainTextResponse }
        /// Request headers a cross-origin page may send (`Access-Control-Allow-Headers` of
        /// an approved preflight).
        public var corsAllowedHeaders: [String] = ["Content-Type", "Accept", "Accept-Encoding"]
        /// The methods a path answers, as the `Allow` value of the server's `OPTIONS` answer
        /// (and its preflight's `Access-Control-Allow-Methods`). A handler's `405` for the
        /// same path should carry the same value.
        public var allowedMethods: @Sendable (_ path: String) -> String = { _ in "GET, HEAD, POST, OPTIONS" }
        /// The header carrying a request's id (e.g. "X-Request-Id"). When set, every request
        /// gets an id: the client's value when it is 1–128 characters of `A-Z a-z 0-9 - _ .
        /// : + / = @`, else one the server makes up; it is handed to the handler
        /// (`HTTPRequest.requestID`), sent back in this header with every answer and written
        /// in the access line. nil (the default): no ids.
        public var requestIDHeader: String? = nil
        /// Accept request bodies sent with `Content-Encoding: gzip` (handed to the handler
        /// decompressed; inflating stops at `maxBodyBytes`, answered `.bodyTooLarge`); any
        /// other encoding but `identity` is refused before the body is read
        /// (`.unsupportedContentEncoding`). Off (the default): bodies are handed over as
        /// they came, whatever their encoding.
        public var decodesGzipBodies = false

        public init(host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 4 << 20,
                    maxConnections: Int = 1024, connectionTimeoutSeconds: Int = 10, threads: Int = 2,
                    corsAllowedOrigins: [String] = [], gzipMinimumBytes: Int = 1024,
                    headerTimeoutSeconds: Int = 10, bodyTimeoutSeconds: Int = 30,
                    minBodyBytesPerSecond: Int = 1024, bodyRateGraceSeconds: Int = 5,
                    maxBufferedBodyBytes: Int = 128 << 20) {
            self.host = host
            self.port = port
            self.maxBodyBytes = maxBodyBytes
            self.maxConnections = maxConnections
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
            self.threads = threads
            self.corsAllowedOrigins = corsAllowedOrigins
            self.gzipMinimumBytes = gzipMinimumBytes
            self.headerTimeoutSeconds = headerTimeoutSeconds
            self.bodyTimeoutSeconds = bodyTimeoutSeconds
            self.minBodyBytesPerSecond = minBodyBytesPerSecond
            self.bodyRateGraceSeconds = bodyRateGraceSeconds
            self.maxBufferedBodyBytes = maxBufferedBodyBytes
        }
    }

    /// Called on a libmicrohttpd thread once a request is complete. It must return at once
    /// and call `respond` exactly once, from any thread, before or after returning (a
    /// second call is ignored with a warning; calls after `stop()` do nothing). It must
    /// not call `stop()` itself on that thread.
    public typealias Handler = @Sendable (HTTPRequest, _ respond: @escaping @Sendable (HTTPResponse) -> Void) -> Void
    /// Looks at a request as soon as its headers are in, before any body byte is read (and
    /// before `100 Continue` is sent), on a libmicrohttpd thread: it must be quick and must
    /// not block. A response rejects the request: it is sent instead of calling the handler
    /// (and instead of the CORS preflight answer for `OPTIONS`); when the request announced
    /// a body, the connection is closed after it. nil lets the request through.
    public typealias Precheck = @Sendable (HTTPRequestHead) -> HTTPResponse?
}

/// Why the server answers a request itself, without calling the handler. The answer's body
/// comes from `Configuration.refusalResponse`.
public enum HTTPRefusal: Sendable, Hashable {
    /// Framing RFC 9112 forbids (`HTTPFraming.swift`); what is wrong with it.
    case malformedFraming(String)
    /// A body longer than `maxBodyBytes` (the limit).
    case bodyTooLarge(limit: Int)
    /// The bodies being received already hold `maxBufferedBodyBytes`.
    case bodiesBuffered
    /// The server stopped before the handler answered.
    case shuttingDown
    /// A `Content-Encoding` the server does not decode (`decodesGzipBodies`); the value.
    case unsupportedContentEncoding(String)
    /// A body whose `Content-Encoding` it does not follow (not a valid gzip stream).
    case undecodableBody(String)

    /// The status the server answers with.
    public var status: Int {
        switch self {
        case .malformedFraming, .undecodableBody: return 400
        case .bodyTooLarge: return 413
        case .unsupportedContentEncoding: return 415
        case .bodiesBuffered, .shuttingDown: return 503
        }
    }

    /// When to come back, for the refusals that pass (sent as `Retry-After`): a moment
    /// for bodies in flight; for a shutdown, the time another instance takes over.
    public var retryAfterSeconds: Int? {
        switch self {
        case .bodiesBuffered, .shuttingDown: return 1
        case .malformedFraming, .bodyTooLarge, .unsupportedContentEncoding, .undecodableBody: return nil
        }
    }

    /// What went wrong, in a sentence for the client.
    public var message: String {
        switch self {
        case .malformedFraming(let problem): return "malformed request framing: \(problem)"
        case .bodyTooLarge(let limit): return "request body larger than \(limit) bytes"
        case .bodiesBuffered: return "too many request bodies are being received; retry"
        case .shuttingDown: return "the server is shutting down"
        case .unsupportedContentEncoding(let encoding):
            return "Content-Encoding '\(encoding)' is not supported; send the body as it is or with gzip"
        case .undecodableBody(let problem): return "the request body cannot be decoded: \(problem)"
        }
    }

    /// `status` with `message` as a plain-text body.
    public var plainTextResponse: HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(message.utf8))
    }
}
