import CMicroHTTPD

/// zlib's `inflate` (the name is taken by `Gzip.inflate` inside the enum).
@inline(__always) private func zlibInflate(_ stream: UnsafeMutablePointer<z_stream>, _ flush: Int32) -> Int32 {
    inflate(stream, flush)
}

/// gzip (RFC 1952) with zlib: deflate with windowBits 15 + 16.
enum Gzip {
    /// Compresses `input`; nil if zlib fails (then the body goes out uncompressed).
    static func compress(_ input: [UInt8], level: Int32 = Z_DEFAULT_COMPRESSION) -> [UInt8]? {
        var stream = z_stream()
        guard loom_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: max(bound, 64))
        var result: Int32 = Z_STREAM_ERROR
        var produced = 0
        input.withUnsafeBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                result = deflate(&stream, Z_FINISH)
                produced = outBuf.count - Int(stream.avail_out)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.removeSubrange(produced...)
        return output
    }

    /// Decompresses a gzip stream; nil if it is not valid gzip or longer than `limit`.
    static func decompress(_ input: [UInt8], limit: Int = 1 << 30) -> [UInt8]? {
        if case .decoded(let bytes) = inflate(input, limit: limit) { return bytes }
        return nil
    }

    enum Inflated: Equatable {
        case decoded([UInt8])
        /// More than `limit` bytes: inflating stopped there.
        case tooLarge
        /// Not one complete gzip stream (bad header or data, truncated, bytes after it).
        case invalid(String)
    }

    /// Decompresses one gzip stream, never producing more than `limit + 1` bytes: the output
    /// grows as it comes (doubling, from the input's size), so a small body that claims to
    /// inflate to gigabytes costs at most `limit` bytes of memory.
    static func inflate(_ input: [UInt8], limit: Int) -> Inflated {
        var stream = z_stream()
        guard loom_inflate_init_gzip(&stream) == Z_OK else { return .invalid("zlib cannot start") }
        defer { inflateEnd(&stream) }
        let cap = max(0, limit) + 1 // one byte more than allowed tells that there is more
        var output = [UInt8](repeating: 0, count: min(cap, max(4096, 4 * input.count)))
        var produced = 0
        var status: Int32 = Z_OK
        return input.withUnsafeBufferPointer { inBuf -> Inflated in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = uInt(inBuf.count)
            while true {
                if produced == output.count {
                    if output.count >= cap { return .tooLarge }
                    output.append(contentsOf: repeatElement(0, count: min(cap, 2 * output.count) - output.count))
                }
                let room = output.count - produced
                output.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress! + produced
                    stream.avail_out = uInt(room)
                    status = zlibInflate(&stream, Z_NO_FLUSH)
                    produced += room - Int(stream.avail_out)
                }
                if produced > max(0, limit) { return .tooLarge }
                switch status {
                case Z_STREAM_END:
                    if stream.avail_in != 0 { return .invalid("bytes after the end of the gzip stream") }
                    output.removeSubrange(produced...)
                    return .decoded(output)
                case Z_OK:
                    if stream.avail_in == 0 && stream.avail_out != 0 { return .invalid("the gzip stream is truncated") }
                case Z_BUF_ERROR:
                    // No progress: with room left, the input ran out.
                    if stream.avail_out != 0 { return .invalid("the gzip stream is truncated") }
                default:
                    return .invalid("not a gzip stream")
                }
            }
        }
    }

    /// Whether an `Accept-Encoding` value accepts gzip (a "gzip;q=0" refuses it).
    static func accepts(_ acceptEncoding: String?) -> Bool {
        guard let acceptEncoding, !acceptEncoding.isEmpty else { return false }
        for item in acceptEncoding.split(separator: ",") {
            let parts = item.split(separator: ";")
            guard let name = parts.first?.trimmingSpacesAndTabs().lowercased(),
                  name == "gzip" || name == "x-gzip" else { continue }
            var q = 1.0
            for param in parts.dropFirst() {
                let kv = param.split(separator: "=", maxSplits: 1)
                if kv.count == 2, kv[0].trimmingSpacesAndTabs().lowercased() == "q" {
                    q = Double(kv[1].trimmingSpacesAndTabs()) ?? 1.0
                }
            }
            return q > 0
        }
        return false
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it (HTTP's optional whitespace; nothing else).
    func trimmingSpacesAndTabs() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" { s.removeLast() }
        return String(s)
    }
}
