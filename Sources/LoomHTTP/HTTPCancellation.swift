import Synchronization

/// Tells a handler that its request is no longer wanted: the server cancels it when the
/// client closes its connection while the handler works (the answer would go nowhere).
/// Whoever else holds it may cancel it too (e.g. a deadline). Cancelling only sets the flag
/// and runs the `onCancel` bodies; the handler decides how to stop (it must still call
/// `respond`, whose answer the server then drops).
public final class HTTPCancellation: Sendable {
    private let flag = Atomic<Bool>(false)
    /// The bodies to run on cancellation; nil once cancelled.
    private let waiting = Mutex<[@Sendable () -> Void]?>([])

    public init() {}

    /// Whether the request was cancelled (cheap: one atomic load; poll it in loops).
    public var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Runs `body` once when the request is cancelled: at once, on this thread, if it
    /// already is; else on the thread that cancels it (the server's watch thread: keep it
    /// short and do not block).
    public func onCancel(_ body: @escaping @Sendable () -> Void) {
        let runNow = waiting.withLock { list -> Bool in
            guard list != nil else { return true }
            list!.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Cancels (once; later calls do nothing) and runs the `onCancel` bodies.
    public func cancel() {
        let bodies = waiting.withLock { list -> [@Sendable () -> Void] in
            let bodies = list ?? []
            list = nil
            return bodies
        }
        flag.store(true, ordering: .releasing)
        for body in bodies { body() }
    }
}

/// A request as the precheck sees it: its headers are in, its body (if any) is not read
/// yet. Method and path as `HTTPRequest` has them.
public struct HTTPRequestHead: Sendable {
    /// The request method as sent ("HEAD" is given as "GET", as in `HTTPRequest`).
    public var method: String
    /// The URL path without the query string, percent-decoded.
    public var path: String
    /// Query parameters, as in `HTTPRequest.query`.
    public var query: [String: String]
    /// Whether a body follows (a Content-Length over 0, or a chunked body).
    public var announcesBody: Bool
    var storage: HeaderStorage

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                announcesBody: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.announcesBody = announcesBody
        self.storage = .dictionary(headers)
    }

    init(method: String, path: String, query: [String: String], rawHeaders: RawValues, announcesBody: Bool) {
        self.method = method
        self.path = path
        self.query = query
        self.announcesBody = announcesBody
        self.storage = .raw(rawHeaders)
    }

    /// The value of a header, looked up case-insensitively; repeated headers are joined
    /// with ", ".
    public func header(_ name: String) -> String? {
        storage.value(name)
    }
}
