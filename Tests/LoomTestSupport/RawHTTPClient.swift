import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A deliberately dumb HTTP/1.1 client on a plain blocking POSIX socket, so tests control
/// exactly which bytes go out and when (half bodies, stalls, pipelining, garbage).
public final class RawHTTPClient {
    public struct Response {
        public var status: Int
        public var reason: String
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first(where: { $0.0.lowercased() == name.lowercased() })?.1
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public enum ClientError: Error, CustomStringConvertible {
        case connect(Int32)
        case send(Int32)
        case timeout
        case closed
        case malformed(String)

        public var description: String {
            switch self {
            case .connect(let e): return "connect failed: \(String(cString: strerror(e)))"
            case .send(let e): return "send failed: \(String(cString: strerror(e)))"
            case .timeout: return "timed out waiting for the server"
            case .closed: return "connection closed by the server"
            case .malformed(let s): return "malformed response: \(s)"
            }
        }
    }

    public let fd: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    /// Connects to 127.0.0.1:port; reads time out after `timeout` seconds.
    public init(port: Int, timeout: Double = 5) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError.connect(errno) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        if rc != 0 {
            let err = errno
            Glibc.close(fd)
            throw ClientError.connect(err)
        }
        self.fd = fd
        setTimeout(timeout)
    }

    deinit {
        close()
    }

    public func setTimeout(_ seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    public func close() {
        if !closed {
            closed = true
            Glibc.close(fd)
        }
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ClientError.send(errno)
            }
            offset += n
        }
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Reads more bytes into the buffer; false on orderly close.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 { return false }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw ClientError.timeout }
            if errno == ECONNRESET { return false }
            throw ClientError.malformed("recv: \(String(cString: strerror(errno)))")
        }
    }

    private func readLine() throws -> String {
        while true {
            if let i = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(buffer[..<i])
                buffer.removeSubrange(...i)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard try fill() else { throw ClientError.closed }
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard try fill() else { throw ClientError.closed }
        }
        let out = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return out
    }

    /// Reads one response. `noBody`: the request was HEAD (headers only).
    public func readResponse(noBody: Bool = false) throws -> Response {
        var statusLine = try readLine()
        while statusLine.isEmpty { statusLine = try readLine() }
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw ClientError.malformed(statusLine)
        }
        var response = Response(status: status, reason: parts.count > 2 ? String(parts[2]) : "",
                                headers: [], body: [])
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw ClientError.malformed(line) }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            response.headers.append((name, value))
        }
        if noBody || status == 204 || status == 304 || (100..<200).contains(status) {
            return response
        }
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            while true {
                let sizeLine = try readLine()
                guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
                    throw ClientError.malformed("chunk size \(sizeLine)")
                }
                if size == 0 {
                    while try !readLine().isEmpty {}
                    break
                }
                response.body += try readExactly(size)
                _ = try readLine()
            }
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else {
            while try fill() {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Waits until the server closes the connection; true if it did within `timeout`.
    /// Data the server sends meanwhile is discarded.
    public func waitForClose(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        setTimeout(0.1)
        defer { setTimeout(5) }
        while Date() < deadline {
            do {
                if try !fill() { return true }
                buffer.removeAll()
            } catch ClientError.timeout {
                continue
            } catch {
                return true
            }
        }
        return false
    }

    /// Everything the server sends until it closes the connection (true) or `timeout`
    /// seconds pass (false), including what was already buffered.
    public func readUntilClose(timeout: Double) -> (bytes: [UInt8], closed: Bool) {
        let deadline = Date(timeIntervalSinceNow: timeout)
        setTimeout(0.1)
        defer { setTimeout(5) }
        var closed = false
        while Date() < deadline {
            do {
                if try !fill() { closed = true; break }
            } catch ClientError.timeout {
                continue
            } catch {
                closed = true
                break
            }
        }
        let out = buffer
        buffer = []
        return (out, closed)
    }

    /// Sends a request and reads its response.
    public func roundTrip(_ method: String, _ path: String, headers: [(String, String)] = [],
                   body: [UInt8] = []) throws -> Response {
        try send(Self.request(method, path, headers: headers, body: body))
        return try readResponse(noBody: method == "HEAD")
    }

    public static func request(_ method: String, _ path: String, headers: [(String, String)] = [],
                        body: [UInt8] = [], contentLength: Int? = nil) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let hasLength = headers.contains { $0.0.lowercased() == "content-length" || $0.0.lowercased() == "transfer-encoding" }
        if !hasLength && (!body.isEmpty || method == "POST" || contentLength != nil) {
            head += "Content-Length: \(contentLength ?? body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }

    /// A chunked body: the bytes cut into chunks of `chunkSize`, then the last chunk.
    public static func chunked(_ body: [UInt8], chunkSize: Int) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < body.count {
            let end = min(i + chunkSize, body.count)
            out += Array(String(end - i, radix: 16).utf8) + [13, 10] + body[i..<end] + [13, 10]
            i = end
        }
        out += Array("0\r\n\r\n".utf8)
        return out
    }
}
