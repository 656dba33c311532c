import ArgumentParser

@main
struct Loom: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loom",
        abstract: "Texture's layout engine as an HTTP service.",
        subcommands: [ServeCommand.self, LayoutCommand.self, BenchCommand.self])
}

/// A flag's value, else the environment's, else the default.
func setting<T: LosslessStringConvertible>(_ flag: T?, _ env: String, _ fallback: T) -> T {
    if let flag { return flag }
    if let raw = getenvString(env), let v = T(raw) { return v }
    return fallback
}

func getenvString(_ name: String) -> String? {
    guard let p = getenv(name) else { return nil }
    let s = String(cString: p)
    return s.isEmpty ? nil : s
}

#if canImport(Glibc)
import Glibc
#endif
