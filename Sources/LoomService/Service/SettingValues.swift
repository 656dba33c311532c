/// How settings are written: byte sizes such as `64Mi`, `64MiB`, `64MB` or `67108864`.
public enum ByteSize {
    /// What a byte size may look like, for messages.
    public static let forms = "bytes, or a whole number with Ki, Mi, Gi, Ti (×1024ⁿ, also KiB, MiB…) or k, M, G, T (×1000ⁿ, also kB, MB…)"

    /// The bytes `text` names: a whole number, optionally followed by a unit. Binary units
    /// (`Ki`, `Mi`, `Gi`, `Ti`, with or without a trailing `B`) are powers of 1024; decimal
    /// ones (`k`, `M`, `G`, `T`, with or without `B`) powers of 1000, as in Kubernetes
    /// quantities and SI. Units are case-insensitive; a plain `B` is bytes; a leading `-`
    /// is read (the caller refuses negative sizes with its own message). Nil when `text` is
    /// not a size or does not fit in an Int.
    public static func parse(_ text: String) -> Int? {
        var s = Substring(text.trimmingWhitespace())
        var negative = false
        if s.first == "-" { negative = true; s = s.dropFirst() } else if s.first == "+" { s = s.dropFirst() }
        let digits = s.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, let number = Int(digits) else { return nil }
        var unit = s.dropFirst(digits.count).lowercased()
        if unit.first == " " { unit.removeFirst() }
        if unit.hasSuffix("b") { unit.removeLast() }
        var factor = 1
        if !unit.isEmpty {
            let binary = unit.hasSuffix("i")
            if binary { unit.removeLast() }
            guard unit.count == 1, let power = ["k": 1, "m": 2, "g": 3, "t": 4][unit] else { return nil }
            for _ in 0..<power { factor *= binary ? 1024 : 1000 }
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
        guard !overflow else { return nil }
        return negative ? -bytes : bytes
    }
}

extension String {
    // Foundation-free trim (LoomService does not import Foundation here).
    fileprivate func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
