import LoomLayout

/// An error of the wire format: HTTP status, code, message and the JSON path of the
/// offending field (`root.children[2].style.width`).
public struct WireError: Error, Equatable, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var path: String?
    /// For `budget_exceeded`: which budget ran out ("measurements", "characters", "lines").
    public var budget: String?

    public init(status: Int, code: String, message: String, path: String? = nil, budget: String? = nil) {
        self.status = status; self.code = code; self.message = message; self.path = path; self.budget = budget
    }

    public static func invalidSpec(_ message: String, path: String?) -> WireError {
        WireError(status: 400, code: "invalid_spec", message: message, path: path)
    }
    public static func tooLarge(_ message: String, path: String? = nil) -> WireError {
        WireError(status: 413, code: "too_large", message: message, path: path)
    }
    public static func malformed(_ e: JSONParser.SyntaxError) -> WireError {
        WireError(status: 400, code: "malformed_json", message: "\(e.message) at line \(e.line), column \(e.column)")
    }
    public static let notFound = WireError(status: 404, code: "not_found", message: "no such route")
    public static let methodNotAllowed = WireError(status: 405, code: "method_not_allowed", message: "method not allowed on this route")
    public static let unsupportedMediaType = WireError(status: 415, code: "unsupported_media_type",
                                                       message: "the body must be application/json")
    public static let overloaded = WireError(status: 503, code: "overloaded", message: "the layout queue is full; retry later")
    public static let deadlineExceeded = WireError(status: 503, code: "deadline_exceeded",
                                                   message: "the layout did not finish within the server's deadline; retry later")
    public static let cancelled = WireError(status: 503, code: "cancelled", message: "the client went away")

    /// 422: a layout needed more work than one request may ask for.
    public static func budgetExceeded(_ budget: LayoutStop.Budget, limit: Int, path: String?) -> WireError {
        let what: String
        switch budget {
        case .measurements: what = "element measurements"
        case .characters: what = "bytes of text measured"
        case .lines: what = "lines of text produced"
        }
        return WireError(status: 422, code: "budget_exceeded",
                         message: "the layout needs more than \(limit) \(what) (the '\(budget.rawValue)' budget of one request)",
                         path: path, budget: budget.rawValue)
    }

    /// `{"error": {"code", "message", "path"?}}`
    public var jsonBytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("error"); w.beginObject()
        w.key("code"); w.string(code)
        w.key("message"); w.string(message)
        if let path { w.key("path"); w.string(path) }
        if let budget { w.key("budget"); w.string(budget) }
        w.endObject()
        w.endObject()
        return w.bytes
    }
}
