import CMicroHTTPD
import Dispatch
import Logging

/// A request from its headers to the handler, on libmicrohttpd's threads: checked at the
/// first access-handler call (framing, precheck, size, buffered bytes), its body gathered,
/// then handed to the handler with the connection suspended until the answer.
extension HTTPServer {
    /// First call: headers are in, no body yet. Anything answered here is answered before a
    /// body byte is read (libmicrohttpd then sends no `100 Continue`, and closes the
    /// connection after the answer).
    func beginRequest(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                      version: UnsafePointer<CChar>?,
                      conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        let (methodText, rawMethod) = decodeCString(method, default: "")
        let (pathText, rawPath) = decodeCString(url, default: "/")
        let ctx = RequestContext(connection: connection, method: methodText, path: pathText)
        ctx.rawMethod = rawMethod
        ctx.rawPath = rawPath
        if let address = loom_mhd_client_address(connection) {
            ctx.remoteAddress = numericHost(address)
        }
        let head = loom_mhd_scan_head(connection)
        if let origin = head.origin {
            ctx.origin = String(cString: origin)
        }
        if let acceptEncoding = head.accept_encoding {
            ctx.acceptsGzip = Gzip.accepts(String(cString: acceptEncoding))
        }
        ctx.deadlines = deadlines(of: connection)
        conCls.pointee = Unmanaged.passRetained(ctx).toOpaque()

        // In flight from now on: a drain waits for its body and its answer.
        state.lock()
        ctx.inFlight = true
        inFlightCount += 1
        state.unlock()

        if let problem = Self.framingProblem(head, version: version) {
            return queue(ctx, refusal(.malformedFraming(problem), ctx))
        }
        var declared: UInt64 = 0
        var overflow = false
        if let value = head.content_length {
            // (libmicrohttpd itself refuses a value that is not a number; kept for safety.)
            guard let (length, tooLong) = Self.contentLength(value), length != nil || tooLong else {
                return queue(ctx, refusal(.malformedFraming("Content-Length is not a number"), ctx))
            }
            declared = length ?? .max
            overflow = tooLong
        }
        return checkedBody(ctx, head: head, declared: declared, overflow: overflow)
    }

    /// The rest of the first call: the precheck, then the body's size.
    private func checkedBody(_ ctx: RequestContext, head: loom_request_head, declared: UInt64,
                             overflow: Bool) -> MHD_Result {
        let connection = ctx.connection
        let announcesBody = head.transfer_encoding != nil || declared > 0
        ctx.rawHeaders = rawValues(connection, kind: .HEADER_KIND)
        if loom_mhd_count_values(connection, .GET_ARGUMENT_KIND) > 0 {
            ctx.query = collectValues(connection, kind: .GET_ARGUMENT_KIND, lowercaseKeys: false, join: false)
        }
        if let name = configuration.requestIDHeader {
            let given = HeaderStorage.raw(ctx.rawHeaders).value(name)
            ctx.requestID = given.map(RequestIDMaker.accepts) == true ? given! : requestIDs.next()
        }

        if let precheck {
            let requestHead = HTTPRequestHead(method: ctx.method == "HEAD" ? "GET" : ctx.method, path: ctx.path,
                                              query: ctx.query, rawHeaders: ctx.rawHeaders,
                                              announcesBody: announcesBody)
            if let response = precheck(requestHead) {
                var prepared = prepare(response, origin: ctx.origin, acceptsGzip: ctx.acceptsGzip)
                if announcesBody {
                    prepared.close = true
                    return queue(ctx, prepared)
                }
                // No body: answered at the next call, which keeps the connection alive.
                ctx.rejection = prepared
                ctx.discarding = true
                ctx.deadlines?.work()
                return .YES
            }
        }

        if configuration.decodesGzipBodies, let encoding = HeaderStorage.raw(ctx.rawHeaders).value("content-encoding") {
            switch encoding.trimmingSpacesAndTabs().lowercased() {
            case "", "identity": break
            case "gzip", "x-gzip": ctx.gzipBody = true
            default:
                return queue(ctx, refusal(.unsupportedContentEncoding(String(encoding.prefix(40))), ctx))
            }
        }
        if overflow || declared > UInt64(max(0, configuration.maxBodyBytes)) {
            // Queued before any body byte is read: libmicrohttpd discards the body and
            // closes the connection after the answer.
            return queue(ctx, refusal(.bodyTooLarge(limit: configuration.maxBodyBytes), ctx))
        }
        if declared > 0 && bufferedBodyBytes.load(ordering: .relaxed) > configuration.maxBufferedBodyBytes - Int(declared) {
            return queue(ctx, refusal(.bodiesBuffered, ctx))
        }
        ctx.declaredLength = Int(declared)
        if ctx.method == "OPTIONS" {
            ctx.discarding = true // answered (preflight) once its body, if any, is read
        }
        if announcesBody {
            ctx.deadlines?.receiveBody(now: ctx.started)
        } else {
            ctx.deadlines?.work()
        }
        return .YES
    }

    /// A piece of the body.
    func receive(_ ctx: RequestContext, data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>) -> MHD_Result {
        let count = size.pointee
        size.pointee = 0
        ctx.received += count
        ctx.deadlines?.received(ctx.received)
        if ctx.discarding {
            ctx.discarded += count
            if ctx.discarded > discardAllowance {
                logger.notice("closing connection: request body far over the limit",
                              metadata: ["path": .string(AccessLine.escaped(ctx.path)),
                                         "remote": .string(ctx.remoteAddress)])
                return .NO
            }
            return .YES
        }
        guard let data else { return .NO }
        if count > configuration.maxBodyBytes - ctx.body.count {
            // Chunked body over the limit (a declared length was checked up front). The
            // answer cannot be queued while upload data is pending, so drop what we have,
            // discard the rest and answer 413 at the end of the body.
            refuseBody(ctx, refusal(.bodyTooLarge(limit: configuration.maxBodyBytes), ctx), discarded: count)
            return .YES
        }
        let held = bufferedBodyBytes.add(count, ordering: .relaxed).newValue
        if held > configuration.maxBufferedBodyBytes {
            bufferedBodyBytes.subtract(count, ordering: .relaxed)
            refuseBody(ctx, refusal(.bodiesBuffered, ctx), discarded: count)
            return .YES
        }
        ctx.heldBytes += count
        // Grown as the bytes arrive (never reserved up front: a client may announce a
        // length it never sends), doubling, but not past the declared length.
        let needed = ctx.body.count + count
        if needed > ctx.body.capacity {
            var capacity = max(needed, 2 * ctx.body.capacity)
            if ctx.declaredLength >= needed { capacity = min(capacity, ctx.declaredLength) }
            ctx.body.reserveCapacity(capacity)
        }
        ctx.body.append(contentsOf: UnsafeRawBufferPointer(start: UnsafeRawPointer(data), count: count))
        return .YES
    }

    /// The body will not be handed over: drop it, read and discard the rest, answer
    /// `response` at its end.
    private func refuseBody(_ ctx: RequestContext, _ response: PreparedResponse, discarded: Int) {
        releaseBody(ctx)
        ctx.discarding = true
        ctx.discarded = discarded
        ctx.rejection = response
    }

    /// Drops the body gathered so far and its count in `bufferedBodyBytes`.
    func releaseBody(_ ctx: RequestContext) {
        if ctx.heldBytes > 0 {
            bufferedBodyBytes.subtract(ctx.heldBytes, ordering: .relaxed)
            ctx.heldBytes = 0
        }
        ctx.body = []
    }

    /// The body is complete (or libmicrohttpd calls again after a resume).
    func finishRequest(_ ctx: RequestContext) -> MHD_Result {
        state.lock()
        switch ctx.phase {
        case .receiving:
            state.unlock()
            ctx.deadlines?.work()
            if let rejection = ctx.rejection {
                return queue(ctx, rejection)
            }
            if ctx.method == "OPTIONS" {
                // Answered here, after its body (if any) was read, so that the
                // connection can be kept alive.
                return queue(ctx, preflight(ctx))
            }
            return dispatch(ctx)
        case .resumed, .dispatched:
            if ctx.abandoned {
                // The client left while the handler worked: close the connection.
                ctx.phase = .answered
                state.unlock()
                return .NO
            }
            return answerOrSuspend(ctx)
        case .suspending, .suspended:
            // Not expected: libmicrohttpd does not call a suspended connection.
            state.unlock()
            return .YES
        case .answered, .completed:
            state.unlock()
            return .NO
        }
    }

    private func dispatch(_ ctx: RequestContext) -> MHD_Result {
        let cancellation = HTTPCancellation()
        var request = HTTPRequest(
            method: ctx.method == "HEAD" ? "GET" : ctx.method,
            path: ctx.path,
            query: ctx.query,
            rawHeaders: ctx.rawHeaders,
            body: [],
            remoteAddress: ctx.remoteAddress,
            cancellation: cancellation)
        request.requestID = ctx.requestID
        swap(&request.body, &ctx.body)
        // Handed over: no longer a partial body.
        if ctx.heldBytes > 0 {
            bufferedBodyBytes.subtract(ctx.heldBytes, ordering: .relaxed)
            ctx.heldBytes = 0
        }
        if ctx.gzipBody && !request.body.isEmpty {
            switch Gzip.inflate(request.body, limit: configuration.maxBodyBytes) {
            case .decoded(let bytes): request.body = bytes
            case .tooLarge: return queue(ctx, refusal(.bodyTooLarge(limit: configuration.maxBodyBytes), ctx))
            case .invalid(let problem): return queue(ctx, refusal(.undecodableBody(problem), ctx))
            }
        }

        state.lock()
        if stopping {
            state.unlock()
            return .NO
        }
        ctx.phase = .dispatched
        ctx.cancellation = cancellation
        state.unlock()

        // Weak: a respond closure kept by someone must not keep the server alive.
        handler(request) { [weak self] response in
            self?.respond(ctx, response)
        }

        state.lock()
        return answerOrSuspend(ctx)
    }

    /// With the state lock held (released here): queues the handler's answer if it has
    /// come, else suspends the connection until it does.
    private func answerOrSuspend(_ ctx: RequestContext) -> MHD_Result {
        if let pending = ctx.pending {
            ctx.phase = .answered
            state.unlock()
            return queue(ctx, pending)
        }
        ctx.phase = .suspending
        park(ctx)
        state.unlock()
        return suspend(ctx)
    }

    /// Notes a request whose connection gets suspended (state lock held).
    private func park(_ ctx: RequestContext) {
        if !ctx.parked {
            ctx.parked = true
            parked[ObjectIdentifier(ctx)] = ctx
        }
    }

    /// Suspends the connection until `respond`; ctx.phase is `.suspending`.
    private func suspend(_ ctx: RequestContext) -> MHD_Result {
        MHD_suspend_connection(ctx.connection)
        state.lock()
        // The answer (or stop()) may have come while we were suspending: then nobody
        // else will resume, so resume here (we are on the daemon's own thread, so the
        // daemon is alive).
        let resumeNow = ctx.pending != nil || stopping
        let needsShutdownAnswer = resumeNow && ctx.pending == nil
        ctx.phase = resumeNow ? .resumed : .suspended
        state.unlock()
        guard resumeNow else { return .YES }
        if needsShutdownAnswer {
            let shuttingDown = prepare(refusalResponse(.shuttingDown), origin: ctx.origin, acceptsGzip: false)
            state.lock()
            if ctx.pending == nil { ctx.pending = shuttingDown }
            state.unlock()
        }
        MHD_resume_connection(ctx.connection)
        return .YES
    }
}
