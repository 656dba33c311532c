import Foundation
import ArgumentParser
import LoomService

/// A setting of `serve` or `layout`: its flag, else its environment variable, else its
/// default, checked the same way whichever way it came. A value that does not parse or is
/// out of range stops the command with a message naming the flag or variable and the value
/// (ArgumentParser prints it and exits 64). An empty variable counts as unset.
struct Setting {
    let flag: String
    let env: String

    init(_ flag: String, _ env: String) {
        self.flag = flag
        self.env = env
    }

    /// "--workers / LOOM_WORKERS", as messages name a setting.
    var names: String { "\(flag) / \(env)" }

    /// The raw text: the flag's, else the variable's; `origin` says which ("--port 99999",
    /// "PORT=abc"), for messages. Nil when neither is set.
    func raw(_ flag: String?) -> (text: String, origin: String)? {
        if let flag { return (flag, "\(self.flag) \(flag)") }
        if let text = getenvString(env) { return (text, "\(env)=\(text)") }
        return nil
    }

    func refuse(_ origin: String?, _ rule: String) -> ValidationError {
        ValidationError((origin.map { "\($0): " } ?? "") + "\(names) must be \(rule)")
    }

    /// A whole number in `range` (`rule` says it in words).
    func int(_ flag: Int?, default fallback: Int, _ range: ClosedRange<Int>, _ rule: String) throws -> Int {
        let value: Int, origin: String?
        if let flag {
            (value, origin) = (flag, "\(self.flag) \(flag)")
        } else if let (text, o) = raw(nil) {
            guard let v = Int(text.trimmingCharacters(in: .whitespaces)) else { throw refuse(o, "a whole number, \(rule)") }
            (value, origin) = (v, o)
        } else {
            (value, origin) = (fallback, nil)
        }
        guard range.contains(value) else { throw refuse(origin, rule) }
        return value
    }

    /// A number of seconds (or any decimal) in `range`.
    func double(_ flag: Double?, default fallback: Double, _ range: ClosedRange<Double>, _ rule: String) throws -> Double {
        let value: Double, origin: String?
        if let flag {
            (value, origin) = (flag, "\(self.flag) \(flag)")
        } else if let (text, o) = raw(nil) {
            guard let v = Double(text.trimmingCharacters(in: .whitespaces)), v.isFinite else { throw refuse(o, "a number, \(rule)") }
            (value, origin) = (v, o)
        } else {
            (value, origin) = (fallback, nil)
        }
        guard range.contains(value) else { throw refuse(origin, rule) }
        return value
    }

    /// A byte size (`ByteSize.parse`: 67108864, 64Mi, 64MiB, 64MB, 64M…) of at least `minimum`.
    func bytes(_ flag: String?, default fallback: Int, minimum: Int = 0) throws -> Int {
        guard let (text, origin) = raw(flag) else { return fallback }
        guard let v = ByteSize.parse(text) else { throw refuse(origin, "a byte size: \(ByteSize.forms)") }
        guard v >= minimum else { throw refuse(origin, minimum == 0 ? ">= 0" : "at least \(minimum) bytes") }
        return v
    }

    /// One of `choices` (compared without case).
    func choice(_ flag: String?, default fallback: String, _ choices: [String]) throws -> String {
        guard let (text, origin) = raw(flag) else { return fallback }
        guard let c = choices.first(where: { $0 == text.lowercased() }) else {
            throw refuse(origin, "one of \(choices.joined(separator: ", "))")
        }
        return c
    }

    /// Any text (an address, a list of origins).
    func string(_ flag: String?, default fallback: String) -> String {
        raw(flag)?.text ?? fallback
    }

    /// `auto` (the cores this process may use: `ProcessFacts.availableCores()`) or a count
    /// of at least 1.
    func count(_ flag: String?, maximum: Int) throws -> Int {
        guard let (text, origin) = raw(flag), text.lowercased() != "auto" else { return ProcessFacts.availableCores() }
        guard let v = Int(text.trimmingCharacters(in: .whitespaces)), (1...maximum).contains(v) else {
            throw refuse(origin, "auto or a whole number 1…\(maximum)")
        }
        return v
    }
}

/// The text of environment variable `name`; nil when unset or empty.
func getenvString(_ name: String) -> String? {
    guard let p = getenv(name) else { return nil }
    let s = String(cString: p)
    return s.isEmpty ? nil : s
}
