import CMicroHTTPD

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
        var stream = z_stream()
        guard loom_inflate_init_gzip(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        return input.withUnsafeBufferPointer { inBuf -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
            stream.avail_in = uInt(inBuf.count)
            repeat {
                var produced = 0
                chunk.withUnsafeMutableBufferPointer { outBuf in
                    stream.next_out = outBuf.baseAddress
                    stream.avail_out = uInt(outBuf.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    produced = outBuf.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else { return nil }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                if status == Z_OK && produced == 0 && stream.avail_in == 0 { return nil } // truncated
            } while status != Z_STREAM_END
            return output
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
