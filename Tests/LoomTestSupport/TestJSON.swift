import Foundation
import XCTest

/// Reading response bodies in tests: Foundation's JSON parser (not ours), so a body is
/// checked by an independent reader.
public enum TestJSON {
    public static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    public static func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

    /// The body as a JSON object; a test failure (with the body) when it is not one.
    public static func object(_ b: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        guard let o = (try? JSONSerialization.jsonObject(with: Data(b))) as? [String: Any] else {
            XCTFail("not a JSON object: \(text(Array(b.prefix(500))))", file: file, line: line)
            return [:]
        }
        return o
    }

    public static func number(_ v: Any?) -> Double? { (v as? NSNumber)?.doubleValue }

    /// `{"x","y","width","height"}` as `[x, y, width, height]` (easy to compare).
    public static func frame(_ v: Any?) -> [Double]? {
        guard let d = v as? [String: Any] else { return nil }
        let values = ["x", "y", "width", "height"].compactMap { number(d[$0]) }
        return values.count == 4 ? values : nil
    }

    /// A `frames` map as [id: [x, y, width, height]].
    public static func frames(of value: Any?) -> [String: [Double]] {
        var out: [String: [Double]] = [:]
        for (k, v) in (value as? [String: Any]) ?? [:] { out[k] = frame(v) }
        return out
    }

    /// The `frames` map of a response body.
    public static func frames(_ b: [UInt8]) -> [String: [Double]] { frames(of: object(b)["frames"]) }

    /// The error object of an error body.
    public static func error(_ b: [UInt8]) -> [String: Any] {
        (object(b)["error"] as? [String: Any]) ?? [:]
    }
}
