/// What the server makes of a response before libmicrohttpd gets it (CORS, `nosniff`,
/// compression, `Vary`), and the answers it builds itself.
extension HTTPServer {
    struct PreparedResponse {
        var status: Int
        var headers: [(String, String)]
        var body: [UInt8]
        var close: Bool
        /// A libmicrohttpd response made once (status, headers and body are in it).
        var shared: SharedResponse? = nil
        /// For the access line (`HTTPResponse.accessLogFields`).
        var logFields: [(String, String)] = []
    }

    static let preflightMaxAge = "86400"

    /// Access-Control-Allow-Origin for this origin, or nil if it is not allowed (always nil
    /// while `corsAllowedOrigins` is empty: CORS off).
    func allowedOrigin(_ origin: String?) -> String? {
        guard let origin, !origin.isEmpty else { return nil }
        if configuration.corsAllowedOrigins.contains("*") { return "*" }
        return configuration.corsAllowedOrigins.contains(origin) ? origin : nil
    }

    /// Whether answers depend on the Origin header (`Vary: Origin`): a list of origins
    /// that is not "*".
    var corsVariesByOrigin: Bool {
        !configuration.corsAllowedOrigins.contains("*") && !configuration.corsAllowedOrigins.isEmpty
    }

    /// The answer to OPTIONS (a CORS preflight) the precheck let through: 204, approved for
    /// an allowed origin only.
    func preflight(_ ctx: RequestContext) -> PreparedResponse {
        let methods = configuration.allowedMethods(ctx.path)
        var headers: [(String, String)] = [("Allow", methods), Self.nosniff]
        if let allow = allowedOrigin(ctx.origin) {
            headers.append(("Access-Control-Allow-Origin", allow))
            headers.append(("Access-Control-Allow-Methods", methods))
            headers.append(("Access-Control-Allow-Headers", corsAllowedHeaders))
            headers.append(("Access-Control-Max-Age", Self.preflightMaxAge))
        }
        if corsVariesByOrigin {
            headers.append(("Vary", "Origin"))
        }
        return PreparedResponse(status: 204, headers: headers, body: [], close: false)
    }

    /// An answer the server gives itself (`Configuration.refusalResponse`); the connection
    /// is closed after it.
    func refusal(_ refusal: HTTPRefusal, _ ctx: RequestContext) -> PreparedResponse {
        var prepared = prepare(refusalResponse(refusal), origin: ctx.origin, acceptsGzip: false)
        prepared.close = true
        return prepared
    }

    /// The configured answer to `refusal`, with `Retry-After` where waiting helps.
    func refusalResponse(_ refusal: HTTPRefusal) -> HTTPResponse {
        var response = configuration.refusalResponse(refusal)
        if let seconds = refusal.retryAfterSeconds { response.headers.append(("Retry-After", String(seconds))) }
        return response
    }

    static let nosniff = ("X-Content-Type-Options", "nosniff")

    /// Adds CORS headers and `nosniff`, and compresses; drops headers libmicrohttpd owns.
    func prepare(_ response: HTTPResponse, origin: String?, acceptsGzip: Bool) -> PreparedResponse {
        let status = (100...599).contains(response.status) ? response.status : 500
        var headers: [(String, String)] = []
        headers.reserveCapacity(response.headers.count + 4)
        var vary: [String] = []
        var close = false
        var hasEncoding = false
        var hasAllowOrigin = false
        var hasNosniff = false
        for (name, value) in response.headers {
            switch asciiLowercased(name) {
            case "content-length", "transfer-encoding":
                continue
            case "connection":
                if value.lowercased().contains("close") { close = true }
                continue
            case "vary":
                if value.utf8.contains(UInt8(ascii: ",")) {
                    vary.append(contentsOf: value.split(separator: ",").map { $0.trimmingSpacesAndTabs() })
                } else {
                    vary.append(value.trimmingSpacesAndTabs())
                }
                continue
            case "content-encoding":
                hasEncoding = true
            case "access-control-allow-origin":
                hasAllowOrigin = true
            case "x-content-type-options":
                hasNosniff = true
            default:
                break
            }
            headers.append((name, value))
        }

        if !hasNosniff {
            headers.append(Self.nosniff)
        }
        if !hasAllowOrigin, let allow = allowedOrigin(origin) {
            headers.append(("Access-Control-Allow-Origin", allow))
            if let exposedHeaders { headers.append(("Access-Control-Expose-Headers", exposedHeaders)) }
        }
        if corsVariesByOrigin {
            vary.append("Origin")
        }

        var body = response.body
        if !hasEncoding, status != 204, status != 304, body.count >= max(0, configuration.gzipMinimumBytes),
           !body.isEmpty {
            vary.append("Accept-Encoding")
            if acceptsGzip, let compressed = Gzip.compress(body), compressed.count < body.count {
                body = compressed
                headers.append(("Content-Encoding", "gzip"))
            }
        }
        if vary.count == 1 {
            if !vary[0].isEmpty { headers.append(("Vary", vary[0])) }
        } else if !vary.isEmpty {
            headers.append(("Vary", Self.joinedUnique(vary)))
        }
        return PreparedResponse(status: status, headers: headers, body: body, close: close,
                                logFields: response.accessLogFields)
    }

    /// The names of `vary`, the empty ones and repeats (by case-insensitive comparison)
    /// left out, joined by ", ". A handful of names: compared pairwise, without a set of
    /// lower-cased copies.
    static func joinedUnique(_ vary: [String]) -> String {
        var out = ""
        var kept: [Int] = []
        kept.reserveCapacity(vary.count)
        for (i, name) in vary.enumerated() where !name.isEmpty {
            if kept.contains(where: { sameIgnoringCase(vary[$0], name) }) { continue }
            if !kept.isEmpty { out += ", " }
            out += name
            kept.append(i)
        }
        return out
    }

    /// Whether `a` and `b` are the same names but for case (ASCII compared in place; any
    /// other byte by Unicode lower-casing).
    static func sameIgnoringCase(_ a: String, _ b: String) -> Bool {
        if a.utf8.allSatisfy({ $0 < 0x80 }) && b.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII lower-casing keeps the length: names of other lengths differ.
            return a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
                (x >= 65 && x <= 90 ? x | 0x20 : x) == (y >= 65 && y <= 90 ? y | 0x20 : y)
            }
        }
        return a.lowercased() == b.lowercased()
    }

    /// `name.lowercased()` when it is one of the header names `prepare` treats specially,
    /// else "" — compared without making a lower-cased copy.
    private func asciiLowercased(_ name: String) -> String {
        let candidate: StaticString
        switch name.utf8.count {
        case 14: candidate = "content-length"
        case 17: candidate = "transfer-encoding"
        case 10: candidate = "connection"
        case 4: candidate = "vary"
        case 16: candidate = "content-encoding"
        case 27: candidate = "access-control-allow-origin"
        case 22: candidate = "x-content-type-options"
        default: return ""
        }
        var name = name
        let match: Bool? = name.withUTF8 { u in
            for i in 0..<u.count {
                var b = u[i]
                if b >= 0x80 { return nil }
                if b >= 65 && b <= 90 { b |= 0x20 }
                if b != candidate.utf8Start[i] { return false }
            }
            return true
        }
        switch match {
        case true?: return candidate.description
        case false?: return ""
        case nil: return name.lowercased() // not ASCII: Unicode rules decide
        }
    }
}
