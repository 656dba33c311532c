import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Bodies are read whole: a layout answer is bounded by the server's own limits.
private let bodyLimit = 256 << 20

/// Retries a `503` after its `Retry-After`, with the request body replayed.
struct RetryMiddleware: ClientMiddleware {
    var retries: Int
    var maxDelay: Double

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        let bytes: Data? = if let body { try await Data(collecting: body, upTo: bodyLimit) } else { nil }
        var attempt = 0
        while true {
            let (response, answer) = try await next(request, bytes.map { HTTPBody($0) }, baseURL)
            guard response.status.code == 503, attempt < retries else { return (response, answer) }
            attempt += 1
            let after = response.headerFields[.retryAfter].flatMap(Double.init) ?? 1
            try await Task.sleep(nanoseconds: UInt64(max(0, min(after, maxDelay)) * 1e9))
        }
    }
}

/// Keeps answers that carry an `ETag` and asks for them again with `If-None-Match`;
/// a `304` is answered from what was kept. Bounded: the least recently used goes first.
final class ETagMiddleware: ClientMiddleware, @unchecked Sendable {
    private struct Kept { var etag: String; var response: HTTPResponse; var body: Data; var used: UInt64 }
    private let capacity: Int
    private let lock = NSLock()
    private var kept: [Data: Kept] = [:]
    private var clock: UInt64 = 0

    init(capacity: Int) { self.capacity = capacity }

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        guard capacity > 0, request.method == .post, let body else { return try await next(request, body, baseURL) }
        let bytes = try await Data(collecting: body, upTo: bodyLimit)
        let key = Data((request.path ?? "").utf8) + Data([0]) + bytes
        var request = request
        let previous = lookup(key)
        if let previous { request.headerFields[.ifNoneMatch] = previous.etag }
        let (response, answer) = try await next(request, HTTPBody(bytes), baseURL)
        if response.status.code == 304, let previous {
            // Answered from what this client kept: a cache hit, as the server's own would be.
            var kept = previous.response
            if let name = HTTPField.Name("X-Layout-Cache") { kept.headerFields[name] = "hit" }
            return (kept, HTTPBody(previous.body))
        }
        guard response.status.code == 200, let etag = response.headerFields[.eTag] else { return (response, answer) }
        let data = if let answer { try await Data(collecting: answer, upTo: bodyLimit) } else { Data() }
        store(key, Kept(etag: etag, response: response, body: data, used: 0))
        return (response, HTTPBody(data))
    }

    private func lookup(_ key: Data) -> Kept? {
        lock.lock(); defer { lock.unlock() }
        guard var k = kept[key] else { return nil }
        clock += 1; k.used = clock; kept[key] = k
        return k
    }

    private func store(_ key: Data, _ value: Kept) {
        lock.lock(); defer { lock.unlock() }
        clock += 1
        var v = value; v.used = clock
        kept[key] = v
        if kept.count > capacity, let oldest = kept.min(by: { $0.value.used < $1.value.used })?.key {
            kept[oldest] = nil
        }
    }
}

/// Turns every answer that is not 2xx into a `LoomError` with the server's code, message
/// and path (`{"error": {"code", "message", "path"}}`).
struct ErrorMiddleware: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        let (response, answer) = try await next(request, body, baseURL)
        let status = response.status.code
        guard status >= 400 else { return (response, answer) }
        let data = if let answer { try await Data(collecting: answer, upTo: 1 << 20) } else { Data() }
        let retryAfter = response.headerFields[.retryAfter].flatMap(Double.init)
        if let e = try? JSONDecoder().decode(Components.Schemas._Error.self, from: data) {
            throw LoomError(e, status: status, retryAfter: retryAfter)
        }
        throw LoomError(status: status, code: "http_\(status)",
                        message: String(decoding: data.prefix(500), as: UTF8.self), path: nil, retryAfter: retryAfter)
    }
}
