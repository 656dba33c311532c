import ArgumentParser
import Foundation
import LoomService
import LoomText

/// `loom layout FILE|-`: one LayoutRequest in, one LayoutResponse out.
struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Lay out one LayoutRequest (a file, or - for standard input) and print the LayoutResponse.")

    @Argument(help: "A LayoutRequest JSON file, or - for standard input.") var file: String
    @Option(help: "Output format: json or svg.") var format: String = "json"
    @Option(name: .customLong("font-dir"), help: "An extra directory of font files (repeatable).") var fontDirs: [String] = []
    @OptionGroup var limits: LimitOptions

    func run() throws {
        let body: [UInt8]
        if file == "-" {
            body = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                FileHandle.standardError.write(Data("loom: cannot read \(file)\n".utf8))
                throw ExitCode(2)
            }
            body = Array(data)
        }
        guard let outputFormat = OutputFormat(rawValue: format) else {
            throw ValidationError("--format must be json or svg")
        }
        var config = ServiceConfiguration()
        try limits.apply(to: &config)
        let measurer = try makeTextMeasurer(fontDirs: fontDirs)
        let service = LayoutService(configuration: config, textMeasurer: measurer)
        let outcome = runWithLargeStack { service.layout(body: body, format: outputFormat) }
        FileHandle.standardOutput.write(Data(outcome.body))
        if outputFormat == .json { FileHandle.standardOutput.write(Data("\n".utf8)) }
        if outcome.status != 200 { throw ExitCode(1) }
    }
}

/// Font directories from flags, else `LOOM_FONT_DIRS` (colon-separated).
func resolveFontDirs(_ flags: [String]) -> [String] {
    if !flags.isEmpty { return flags }
    return getenvString("LOOM_FONT_DIRS")?.split(separator: ":").map(String.init) ?? []
}

func makeTextMeasurer(fontDirs: [String], cacheBytes: Int = 32 << 20, wordCacheBytes: Int = 16 << 20) throws -> PangoTextMeasurer {
    try PangoTextMeasurer(extraFontDirectories: resolveFontDirs(fontDirs), cacheBytes: cacheBytes, wordCacheBytes: wordCacheBytes)
}

/// Runs `body` on a thread with a 512 MiB stack (deep trees in `layout` and `bench`, which
/// have no depth limit beyond what the caller sets) and waits for it.
func runWithLargeStack<T>(_ body: @escaping () -> T) -> T {
    let box = ResultBox(body)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        box.value = box.body()
        done.signal()
    }
    thread.stackSize = 512 << 20
    thread.start()
    done.wait()
    return box.value!
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
    let body: () -> T
    init(_ body: @escaping () -> T) { self.body = body }
}
