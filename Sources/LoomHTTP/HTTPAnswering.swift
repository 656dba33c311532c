import CMicroHTTPD
import Logging
import Synchronization

/// From the handler's answer to libmicrohttpd: `respond` (any thread) prepares the answer
/// and resumes the suspended connection; `queue` (libmicrohttpd's thread) hands it over.
extension HTTPServer {
    func respond(_ ctx: RequestContext, _ response: HTTPResponse) {
        state.lock()
        if ctx.handlerResponded {
            state.unlock()
            logger.warning("respond called more than once for a request; ignored",
                           metadata: ["path": .string(AccessLine.escaped(ctx.path))])
            return
        }
        ctx.handlerResponded = true
        let origin = ctx.origin
        let acceptsGzip = ctx.acceptsGzip
        // Completed, answered by stop(), or the client left: the answer goes nowhere.
        let gone = ctx.phase == .completed || ctx.pending != nil || ctx.abandoned
        state.unlock()
        if gone { return }

        // Compression and headers are done here, on the handler's thread (or found done).
        let prepared = reuseKeyed(response, origin: origin, acceptsGzip: acceptsGzip)
            ?? prepare(response, origin: origin, acceptsGzip: acceptsGzip)

        state.lock()
        if ctx.phase == .completed || ctx.pending != nil || ctx.abandoned {
            state.unlock()
            return
        }
        ctx.pending = prepared
        // Not suspended yet: the access handler will pick the answer up. Claimed while not
        // stopping: counted in `resuming`, which stop() waits out before it stops the daemon
        // (no lock is held across the resume, so pool threads do not queue behind each other).
        let claimed = ctx.phase == .suspended && !stopping
        if claimed {
            ctx.phase = .resumed
            resuming.add(1, ordering: .acquiring)
        }
        state.unlock()
        if claimed {
            // The connection is suspended, hence alive; the next access-handler call for it
            // queues ctx.pending.
            MHD_resume_connection(ctx.connection)
            resuming.subtract(1, ordering: .releasing)
        }
    }

    /// The prepared response for a response with a reuse key: the shared one if there is
    /// one; else prepared now and shared from now on (nil when it cannot be shared).
    private func reuseKeyed(_ response: HTTPResponse, origin: String?, acceptsGzip: Bool) -> PreparedResponse? {
        guard let key = response.reuseKey else { return nil }
        let allowOrigin = allowedOrigin(origin)
        if let found = shared.find(key, allowedOrigin: allowOrigin, acceptsGzip: acceptsGzip) {
            return PreparedResponse(status: found.prepared.status, headers: [], body: [], close: false, shared: found,
                                    logFields: response.accessLogFields)
        }
        var prepared = prepare(response, origin: origin, acceptsGzip: acceptsGzip)
        if !prepared.close, prepared.body.count <= SharedResponses.maxBodyBytes,
           let made = SharedResponse(key: key, allowedOrigin: allowOrigin, acceptsGzip: acceptsGzip, prepared: prepared) {
            shared.insert(made)
            prepared = PreparedResponse(status: prepared.status, headers: [], body: [], close: false, shared: made,
                                        logFields: response.accessLogFields)
        }
        return prepared
    }

    /// Queues a prepared response on the connection (libmicrohttpd thread only).
    func queue(_ ctx: RequestContext, _ given: PreparedResponse) -> MHD_Result {
        ctx.deadlines?.work()
        state.lock()
        let closing = quiesced || stopping
        ctx.phase = .answered
        state.unlock()
        ctx.logFields = given.logFields
        if configuration.requestIDHeader != nil, ctx.requestID.isEmpty {
            // Refused before its headers were read (framing): an id of our own.
            ctx.requestID = requestIDs.next()
        }

        if let sharedResponse = given.shared {
            if !closing, let name = configuration.requestIDHeader {
                return queueShared(ctx, sharedResponse, requestIDHeader: name)
            }
            if !closing {
                ctx.sentStatus = sharedResponse.prepared.status
                ctx.sentBytes = sharedResponse.prepared.body.count
                let result = MHD_queue_response(ctx.connection, UInt32(sharedResponse.prepared.status),
                                                sharedResponse.response)
                if result == .NO {
                    logger.error("cannot queue a response", metadata: [
                        "path": .string(AccessLine.escaped(ctx.path)), "status": .stringConvertible(sharedResponse.prepared.status)])
                }
                return result
            }
            // Closing: this answer carries `Connection: close`, so it gets its own response.
            return queue(ctx, sharedResponse.prepared, closing: true)
        }
        return queue(ctx, given, closing: closing)
    }

    private func queue(_ ctx: RequestContext, _ prepared: PreparedResponse, closing: Bool) -> MHD_Result {
        let body = prepared.body
        let response: OpaquePointer?
        if body.isEmpty {
            response = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        } else {
            // Not copied: libmicrohttpd reads the array's own bytes (never written), which the
            // keeper holds until libmicrohttpd lets go of the response.
            let keeper = Unmanaged.passRetained(BodyKeeper(body))
            let bytes = keeper.takeUnretainedValue().bytes
            response = MHD_create_response_from_buffer_with_free_callback_cls(body.count, bytes, releaseBodyKeeper,
                                                                                keeper.toOpaque())
            if response == nil { keeper.release() }
        }
        guard let response else {
            logger.error("cannot create a response", metadata: ["path": .string(AccessLine.escaped(ctx.path))])
            return .NO
        }
        defer { MHD_destroy_response(response) }
        for (name, value) in prepared.headers {
            if addResponseHeader(response, name, value) == .NO {
                logger.warning("response header rejected by libmicrohttpd: \(name)",
                               metadata: ["path": .string(AccessLine.escaped(ctx.path))])
            }
        }
        if let name = configuration.requestIDHeader {
            _ = addResponseHeader(response, name, ctx.requestID)
        }
        if closing || prepared.close {
            _ = addResponseHeader(response, "Connection", "close")
        }
        ctx.sentStatus = prepared.status
        ctx.sentBytes = body.count
        let result = MHD_queue_response(ctx.connection, UInt32(prepared.status), response)
        if result == .NO {
            logger.error("cannot queue a response", metadata: ["path": .string(AccessLine.escaped(ctx.path)),
                                                               "status": .stringConvertible(prepared.status)])
        }
        return result
    }

    /// A shared response with this request's id. The id differs per request, so the answer
    /// is a libmicrohttpd response of its own over the shared body (kept alive until
    /// libmicrohttpd is done with it), with the shared headers, made once. The connection
    /// keeps it: libmicrohttpd answers one request at a time on a connection and lets go of
    /// an answer before it reads the next request, so the next answer from the same shared
    /// response on this connection only swaps the id header.
    private func queueShared(_ ctx: RequestContext, _ sharedResponse: SharedResponse, requestIDHeader: String) -> MHD_Result {
        let response: OpaquePointer
        if let kept = ctx.deadlines?.lastShared, kept.shared === sharedResponse {
            response = kept.response
            if kept.requestID != ctx.requestID {
                _ = deleteResponseHeader(response, requestIDHeader, kept.requestID)
                kept.requestID = addResponseHeader(response, requestIDHeader, ctx.requestID) == .YES ? ctx.requestID : ""
            }
        } else {
            let keeper = Unmanaged.passRetained(sharedResponse).toOpaque()
            guard let made = MHD_create_response_from_buffer_with_free_callback_cls(
                sharedResponse.bodyCount, sharedResponse.bodyBytes, releaseSharedResponse, keeper) else {
                Unmanaged<SharedResponse>.fromOpaque(keeper).release()
                return queue(ctx, sharedResponse.prepared, closing: false)
            }
            for (name, value) in sharedResponse.prepared.headers {
                _ = addResponseHeader(made, name, value)
            }
            let added = addResponseHeader(made, requestIDHeader, ctx.requestID) == .YES
            response = made
            if let deadlines = ctx.deadlines, sharedResponse.bodyCount <= ConnectionResponse.maxBodyBytes {
                // Replaces (and releases) the connection's previous one.
                deadlines.lastShared = ConnectionResponse(shared: sharedResponse, response: made,
                                                          requestID: added ? ctx.requestID : "")
            } else {
                defer { MHD_destroy_response(made) }
                return queueSharedResponse(ctx, sharedResponse, made)
            }
        }
        return queueSharedResponse(ctx, sharedResponse, response)
    }

    private func queueSharedResponse(_ ctx: RequestContext, _ sharedResponse: SharedResponse,
                                     _ response: OpaquePointer) -> MHD_Result {
        ctx.sentStatus = sharedResponse.prepared.status
        ctx.sentBytes = sharedResponse.bodyCount
        let result = MHD_queue_response(ctx.connection, UInt32(sharedResponse.prepared.status), response)
        if result == .NO {
            logger.error("cannot queue a response", metadata: ["path": .string(AccessLine.escaped(ctx.path)),
                                                               "status": .stringConvertible(sharedResponse.prepared.status)])
        }
        return result
    }
}

/// A connection's own libmicrohttpd response over a shared response, with the request id
/// it carries now (`HTTPServer.queueShared`); destroyed with the connection or when the
/// connection answers from another shared response.
final class ConnectionResponse {
    /// Bodies kept per connection at most (so idle connections hold little).
    static let maxBodyBytes = 16 << 10
    let shared: SharedResponse
    let response: OpaquePointer
    var requestID: String

    init(shared: SharedResponse, response: OpaquePointer, requestID: String) {
        self.shared = shared
        self.response = response
        self.requestID = requestID
    }

    deinit { MHD_destroy_response(response) }
}

/// `MHD_add_response_header` with the strings' own bytes (passing a String where C wants a
/// pointer copies it twice).
@inline(__always) func addResponseHeader(_ response: OpaquePointer, _ name: String, _ value: String) -> MHD_Result {
    name.withCString { n in value.withCString { v in MHD_add_response_header(response, n, v) } }
}

/// `MHD_del_response_header`, as `addResponseHeader`.
@inline(__always) func deleteResponseHeader(_ response: OpaquePointer, _ name: String, _ value: String) -> MHD_Result {
    name.withCString { n in value.withCString { v in MHD_del_response_header(response, n, v) } }
}

/// Holds a response body for libmicrohttpd, which reads it in place until it calls
/// `releaseBodyKeeper`.
final class BodyKeeper {
    let body: [UInt8]
    /// The first byte of `body` (not empty): its storage stays put while `body` is held and
    /// never changed.
    let bytes: UnsafeMutableRawPointer

    init(_ body: [UInt8]) {
        self.body = body
        self.bytes = body.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
    }
}

private let releaseBodyKeeper: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<BodyKeeper>.fromOpaque(cls).release()
}

/// Drops the reference a per-request response held on its shared response.
private let releaseSharedResponse: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<SharedResponse>.fromOpaque(cls).release()
}
