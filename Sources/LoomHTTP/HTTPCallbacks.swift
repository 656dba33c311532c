import CMicroHTTPD
import Dispatch
import Logging

/// libmicrohttpd's callbacks into the server, and the access log line written when a
/// request ends.
extension HTTPServer {
    /// The access handler: called once when a request's headers are in, then once per piece
    /// of body, then once more when the body is complete (and again after each resume).
    func access(connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
                uploadDataSize: UnsafeMutablePointer<Int>,
                conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = conCls.pointee else {
            return beginRequest(connection: connection, url: url, method: method, version: version, conCls: conCls)
        }
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        if uploadDataSize.pointee != 0 {
            return receive(ctx, data: uploadData, size: uploadDataSize)
        }
        return finishRequest(ctx)
    }

    /// A request ended: answered, or its connection closed or timed out.
    func completed(conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                   termination: MHD_RequestTerminationCode) {
        guard let conCls, let raw = conCls.pointee else { return }
        conCls.pointee = nil
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
        releaseBody(ctx)

        state.lock()
        ctx.phase = .completed
        ctx.pending = nil
        if ctx.inFlight {
            ctx.inFlight = false
            if ctx.parked { parked.removeValue(forKey: ObjectIdentifier(ctx)) }
            inFlightCount = max(0, inFlightCount - 1)
            if inFlightCount == 0 && idleWaiters > 0 { state.broadcast() }
        }
        let writer = accessLogWriter
        state.unlock()

        let now = DispatchTime.now().uptimeNanoseconds
        // The next request on a kept-alive connection has the header deadline from now.
        ctx.deadlines?.awaitHeaders(now: now)

        var outcome: String
        switch termination {
        case .REQUEST_TERMINATED_COMPLETED_OK: outcome = "ok"
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: outcome = "timeout"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: outcome = "shutdown"
        case .REQUEST_TERMINATED_READ_ERROR, .REQUEST_TERMINATED_CLIENT_ABORT: outcome = "client_closed"
        default: outcome = "error"
        }
        if outcome != "ok" {
            if ctx.abandoned {
                outcome = "client_closed"
            } else if let deadlines = ctx.deadlines, deadlines.cutReason != .none {
                outcome = "timeout"
            }
        }
        let sent = outcome == "ok"
        let status = sent ? ctx.sentStatus : 0
        let bytes = sent ? ctx.sentBytes : 0
        let milliseconds = Double(now &- ctx.started) / 1_000_000
        if logsAccess {
            writeAccessLine(ctx, status: status, bytes: bytes, milliseconds: milliseconds,
                            outcome: sent ? nil : outcome, writer: writer)
        }
    }

    /// "METHOD PATH STATUS BYTESB M.Tms[ OUTCOME]", one decimal of milliseconds; method and
    /// path with control characters, spaces, backslashes and bytes that are not UTF-8
    /// escaped as \xNN, so that no client can forge a line or a field. Its metadata
    /// (`HTTPAccessLogFields`): the remote address, the request id, the answer's own fields.
    private func writeAccessLine(_ ctx: RequestContext, status: Int, bytes: Int, milliseconds: Double,
                                 outcome: String?, writer: (@Sendable (UnsafeRawBufferPointer, HTTPAccessLogFields) -> Void)?) {
        let fields = HTTPAccessLogFields(
            remote: ctx.remoteAddress, requestID: configuration.requestIDHeader == nil ? nil : ctx.requestID,
            extra: ctx.logFields.isEmpty ? [] : ctx.logFields.map { ($0.0, AccessLine.escaped($0.1)) })
        let tenths = Int((milliseconds * 10).rounded())
        let room = AccessLine.room(for: ctx.method, ctx.path, outcome ?? "")
            + 4 * ((ctx.rawMethod?.count ?? 0) + (ctx.rawPath?.count ?? 0))
        withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { buffer in
            var line = AccessLine(buffer)
            line.appendEscaped(ctx.method, raw: ctx.rawMethod); line.append(" ")
            line.appendEscaped(ctx.path, raw: ctx.rawPath); line.append(" ")
            line.append(status); line.append(" "); line.append(bytes); line.append("B ")
            line.append(tenths / 10); line.append("."); line.append(tenths % 10); line.append("ms")
            if let outcome { line.append(" "); line.append(outcome) }
            if let writer {
                writer(line.bytes, fields)
            } else {
                logger.info("\(String(decoding: line.bytes, as: UTF8.self))", metadata: fields.metadata)
            }
        }
    }
}

// MARK: - C callbacks

let mhdAccessCallback: MHD_AccessHandlerCallback = {
    cls, connection, url, method, version, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let uploadDataSize, let conCls else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(connection: connection, url: url, method: method, version: version, uploadData: uploadData,
                         uploadDataSize: uploadDataSize, conCls: conCls)
}

let mhdCompletedCallback: MHD_RequestCompletedCallback = { cls, _, conCls, termination in
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.completed(conCls: conCls, termination: termination)
}

let mhdNotifyConnectionCallback: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    server.connectionNotified(connection, socketContext: socketContext, code: code)
}

let mhdLogCallback: loom_log_fn = { ctx, message in
    guard let ctx, let message else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(ctx).takeUnretainedValue()
    server.log(message: String(cString: message))
}
