import CMicroHTTPD

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Request framing per RFC 9112: a request whose length a proxy in front could read
/// differently from us (request smuggling) is answered 400 and its connection closed,
/// before any body byte is read.
///
/// libmicrohttpd 0.9.75 already refuses, with its own HTML 400 (it offers no way to make
/// those JSON): a Content-Length that is not one decimal number (so also a list
/// "5, 6" or "5, 5"), a malformed request line or header line, a bad chunk. It answers
/// 505 to an HTTP version other than 1.0 and 1.1, 414 to a request line and 431 to headers
/// larger than its memory pool. What it accepts and we refuse here: two or more
/// Content-Length headers (it uses the first), Content-Length with Transfer-Encoding (it
/// uses chunked), Transfer-Encoding on HTTP/1.0 or other than exactly `chunked` (it reads
/// such a body up to the connection's end), an HTTP/1.1 request without Host or with more
/// than one, a header name with whitespace ("Content-Length : 5", which it keeps as a
/// header of another name: the body would be read as the next request).
extension HTTPServer {
    /// Why the request's framing is refused, or nil.
    static func framingProblem(_ head: loom_request_head, version: UnsafePointer<CChar>?) -> String? {
        if head.malformed_name_count > 0 {
            return "a header name is empty or contains whitespace"
        }
        if head.content_length_count > 1 {
            return "more than one Content-Length header"
        }
        if let length = head.content_length, strchr(length, Int32(UInt8(ascii: ","))) != nil {
            return "a list in Content-Length"
        }
        let http10 = version.map { strcmp($0, "HTTP/1.0") == 0 } ?? false
        if head.transfer_encoding_count > 0 {
            if head.content_length_count > 0 {
                return "Content-Length together with Transfer-Encoding"
            }
            if http10 {
                return "Transfer-Encoding in an HTTP/1.0 request"
            }
            if head.transfer_encoding_count > 1 || !isChunked(head.transfer_encoding) {
                return "a Transfer-Encoding other than chunked"
            }
        }
        if head.host_count > 1 {
            return "more than one Host header"
        }
        if head.host_count == 0 && !http10 {
            return "an HTTP/1.1 request without Host"
        }
        return nil
    }

    /// Whether a Transfer-Encoding value is exactly `chunked` in any case: what libmicrohttpd
    /// reads as chunked (it reads any other value, even "chunked " with a trailing space, as
    /// a body up to the connection's end).
    static func isChunked(_ value: UnsafePointer<CChar>?) -> Bool {
        guard let value else { return false }
        var p = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
        for expected in "chunked".utf8 {
            guard p.pointee | 0x20 == expected else { return false }
            p += 1
        }
        return p.pointee == 0
    }

    /// A declared Content-Length, trimmed of spaces and tabs: nil when it is empty; else the
    /// length (nil if it is not a number) and whether it is all digits but too large.
    static func contentLength(_ value: UnsafePointer<CChar>) -> (UInt64?, Bool)? {
        // Plain digits (what every client sends) without making a String.
        var p = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
        while p.pointee == 0x20 || p.pointee == 0x09 { p += 1 }
        var n: UInt64 = 0
        var digits = 0
        while p.pointee >= 0x30 && p.pointee <= 0x39 && digits < 19 {
            n = n * 10 + UInt64(p.pointee - 0x30)
            digits += 1
            p += 1
        }
        var q = p
        while q.pointee == 0x20 || q.pointee == 0x09 { q += 1 }
        if digits > 0 && q.pointee == 0 && !(p.pointee >= 0x30 && p.pointee <= 0x39) { return (n, false) }
        // Anything else: the general rules.
        let declared = String(cString: value).trimmingSpacesAndTabs()
        guard !declared.isEmpty else { return nil }
        let length = UInt64(declared)
        let overflow = length == nil && declared.allSatisfy { $0 >= "0" && $0 <= "9" }
        return (length, overflow)
    }
}
