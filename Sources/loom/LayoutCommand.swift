import ArgumentParser
import Foundation
import LoomLayout
import LoomService
import LoomText

/// `loom layout FILE|-`: one LayoutRequest in, one LayoutResponse out.
struct LayoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "layout",
        abstract: "Lay out one LayoutRequest (a file, or - for standard input) and print the LayoutResponse.")

    @Argument(help: "A LayoutRequest JSON file, or - for standard input.") var file: String
    @Option(help: "Output format: json or svg.") var format: String = "json"
    @Flag(help: "Indent the JSON answer (two spaces a level).") var pretty = false
    @Option(name: .customLong("font-dir"), help: "An extra directory of font files (repeatable; env LOOM_FONT_DIRS, colon-separated).")
    var fontDirs: [String] = []
    @OptionGroup var limits: LimitOptions

    func validate() throws {
        guard OutputFormat(rawValue: format) != nil else { throw ValidationError("--format must be json or svg") }
        _ = try checkedFontDirs(fontDirs)
    }

    func run() throws {
        let body: [UInt8]
        if file == "-" {
            body = Array(FileHandle.standardInput.readDataToEndOfFile())
        } else {
            switch readWholeFile(file) {
            case .success(let bytes): body = bytes
            case .failure(let reason):
                FileHandle.standardError.write(Data("loom: cannot read \(file): \(reason.description)\n".utf8))
                throw ExitCode(1)
            }
        }
        let outputFormat = OutputFormat(rawValue: format)!
        var config = ServiceConfiguration()
        try limits.apply(to: &config)
        let measurer = try makeTextMeasurer(fontDirs: checkedFontDirs(fontDirs))
        let service = LayoutService(configuration: config, textMeasurer: measurer)
        let outcome = runWithLargeStack { service.layout(body: body, format: outputFormat) }
        if pretty && outputFormat == .json {
            FileHandle.standardOutput.write(Self.indented(outcome.body))
        } else {
            FileHandle.standardOutput.write(Data(outcome.body))
            if outputFormat == .json { FileHandle.standardOutput.write(Data("\n".utf8)) }
        }
        if outcome.status != 200 { throw ExitCode(1) }
    }

    /// `json` indented by two spaces a level, members in the order the encoder wrote them
    /// (JSONSerialization would sort or reorder them). Strings are copied byte for byte.
    static func indented(_ json: [UInt8]) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(json.count * 2)
        var depth = 0, inString = false, escaped = false
        func newline() { out.append(UInt8(ascii: "\n")); out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth)) }
        var i = 0
        while i < json.count {
            let b = json[i]
            if inString {
                out.append(b)
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true; out.append(b)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close = b == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if i + 1 < json.count && json[i + 1] == close {
                    out.append(b); out.append(close); i += 1   // {} and [] stay on one line
                } else {
                    out.append(b); depth += 1; newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1; newline(); out.append(b)
            case UInt8(ascii: ","): out.append(b); newline()
            case UInt8(ascii: ":"): out.append(b); out.append(UInt8(ascii: " "))
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): break
            default: out.append(b)
            }
            i += 1
        }
        out.append(UInt8(ascii: "\n"))
        return Data(out)
    }
}

/// Why a file could not be read: errno's words ("No such file or directory").
struct ReadFailure: Error, CustomStringConvertible {
    let description: String
}

/// The bytes of the file at `path`, or why they cannot be read (strerror of open or read).
func readWholeFile(_ path: String) -> Result<[UInt8], ReadFailure> {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n < 0 { return .failure(ReadFailure(description: String(cString: strerror(errno)))) }
        if n == 0 { return .success(bytes) }
        bytes.append(contentsOf: chunk[..<n])
    }
}

/// Font directories from flags, else `LOOM_FONT_DIRS` (colon-separated).
func resolveFontDirs(_ flags: [String]) -> [String] {
    if !flags.isEmpty { return flags }
    return getenvString("LOOM_FONT_DIRS")?.split(separator: ":").map(String.init) ?? []
}

/// The font directories (`resolveFontDirs`), each checked to be a directory: a missing one
/// stops the command with a message naming it.
func checkedFontDirs(_ flags: [String]) throws -> [String] {
    let dirs = resolveFontDirs(flags)
    for dir in dirs {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory)
        guard exists && isDirectory.boolValue else {
            let origin = flags.isEmpty ? "LOOM_FONT_DIRS=\(getenvString("LOOM_FONT_DIRS") ?? "")" : "--font-dir \(dir)"
            throw ValidationError("\(origin): \(dir) \(exists ? "is not a directory" : "does not exist") (--font-dir / LOOM_FONT_DIRS name directories of font files)")
        }
    }
    return dirs
}

/// The Pango measurer with the shipped fonts and `fontDirs`; a failure (no fonts, a
/// directory fontconfig cannot take) is an error with a plain message.
func makeTextMeasurer(fontDirs: [String], cacheBytes: Int = 32 << 20, wordCacheBytes: Int = 16 << 20) throws -> PangoTextMeasurer {
    do {
        return try PangoTextMeasurer(extraFontDirectories: resolveFontDirs(fontDirs), cacheBytes: cacheBytes, wordCacheBytes: wordCacheBytes)
    } catch let error as TextMeasuringError {
        throw MessageError(description: "fonts: \(error.message)")
    }
}

/// An error ArgumentParser prints as its text alone ("Error: …", exit 1).
struct MessageError: Error, CustomStringConvertible {
    let description: String
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
