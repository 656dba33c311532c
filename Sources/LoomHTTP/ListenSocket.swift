#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The listening socket, created here (not by libmicrohttpd) so that a taken port gives
/// a clear error, the real port of an ephemeral bind is known, and stopAccepting() can
/// make the kernel refuse new connections.
struct ListenSocket {
    let fd: Int32
    let port: Int
    let isIPv6: Bool

    static func open(host: String, port: Int, backlog: Int32 = 1024) throws -> ListenSocket {
        guard (0...65535).contains(port) else {
            throw HTTPServerError.bindFailed(host: host, port: port, reason: "port out of range")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let lookupHost: String? = host.isEmpty || host == "*" ? nil : host
        let rc = getaddrinfo(lookupHost, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw HTTPServerError.invalidAddress(host: host, reason: String(cString: gai_strerror(rc)))
        }
        defer { freeaddrinfo(list) }

        // Prefer the first IPv4 answer ("localhost" → 127.0.0.1), else the first one.
        var chosen = first
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let entry = cursor {
            if entry.pointee.ai_family == AF_INET { chosen = entry; break }
            cursor = entry.pointee.ai_next
        }
        let info = chosen.pointee
        let fd = socket(info.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            throw HTTPServerError.bindFailed(host: host, port: port, reason: "socket(): \(errnoText())")
        }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if info.ai_family == AF_INET6 {
            var zero: Int32 = 0 // "::" also takes IPv4 clients
            _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
        }
        if bind(fd, info.ai_addr, info.ai_addrlen) != 0 {
            let err = errno
            close(fd)
            if err == EADDRINUSE { throw HTTPServerError.addressInUse(host: host, port: port) }
            throw HTTPServerError.bindFailed(host: host, port: port, reason: "bind(): \(errnoText(err))")
        }
        if listen(fd, backlog) != 0 {
            let err = errno
            close(fd)
            if err == EADDRINUSE { throw HTTPServerError.addressInUse(host: host, port: port) }
            throw HTTPServerError.bindFailed(host: host, port: port, reason: "listen(): \(errnoText(err))")
        }
        // libmicrohttpd's threads share this socket: accept must never block.
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)

        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        var actualPort = port
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        if ok == 0 {
            actualPort = socketPort(&storage)
        }
        return ListenSocket(fd: fd, port: actualPort, isIPv6: info.ai_family == AF_INET6)
    }
}

func errnoText(_ code: Int32 = errno) -> String {
    String(cString: strerror(code))
}

/// The port of an IPv4 or IPv6 socket address.
func socketPort(_ storage: UnsafePointer<sockaddr_storage>) -> Int {
    switch Int32(storage.pointee.ss_family) {
    case AF_INET:
        return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
    case AF_INET6:
        return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
    default:
        return 0
    }
}

/// The numeric host of a socket address ("127.0.0.1", "::1"), or "".
func numericHost(_ address: UnsafePointer<sockaddr>) -> String {
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        // Dotted quad, as inet_ntop writes it, without its buffers (every request asks).
        return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
            let a = UInt32(bigEndian: sin.pointee.sin_addr.s_addr)
            var text: (UInt64, UInt64) = (0, 0) // "255.255.255.255" fits in 16 bytes
            let count = withUnsafeMutableBytes(of: &text) { b -> Int in
                var n = 0
                func put(_ octet: UInt32, dot: Bool) {
                    if octet >= 100 { b[n] = UInt8(48 + octet / 100); n += 1 }
                    if octet >= 10 { b[n] = UInt8(48 + octet / 10 % 10); n += 1 }
                    b[n] = UInt8(48 + octet % 10); n += 1
                    if dot { b[n] = UInt8(ascii: "."); n += 1 }
                }
                put(a >> 24, dot: true)
                put((a >> 16) & 0xFF, dot: true)
                put((a >> 8) & 0xFF, dot: true)
                put(a & 0xFF, dot: false)
                return n
            }
            return withUnsafeBytes(of: &text) { String(decoding: $0[..<count], as: UTF8.self) }
        }
    case AF_INET6:
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
            var addr = sin6.pointee.sin6_addr
            guard inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count)) != nil else { return "" }
            return String(cString: buffer)
        }
    default:
        return ""
    }
}
