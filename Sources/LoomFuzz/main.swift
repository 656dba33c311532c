// libFuzzer target for the request decoder: bytes → RequestDecoder → layout → encoders.
// Nothing may crash: every input is either a WireError (the 4xx a client would get) or a
// layout that encodes to JSON and SVG.
//
// Fuzz build (scripts/run-system-tests.sh):
//   swift build -c release --product LoomFuzz --scratch-path .build-fuzz --sanitize=fuzzer \
//     -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
//   SWIFT_BACKTRACE=enable=no .build-fuzz/release/LoomFuzz NEW_DIR Tests/Fuzz/corpus \
//     -dict=Tests/Fuzz/loom.dict -max_total_time=60 -max_len=65536
// (--sanitize=fuzzer keeps SwiftPM from renaming the entry point, so libFuzzer's main links;
// -parse-as-library: no Swift main of our own.)
// Plain build (`swift build`): a replay tool, `LoomFuzz FILE…` runs each file once.
import Foundation
import LoomLayout
import LoomService

let fuzzDecoder = RequestDecoder(limits: DecodeLimits(), textMeasurer: nil)
/// More measurements per input byte than this, without reaching the budget, is a finding.
let maxMeasurementsPerByte = 1000.0
/// Text nodes are laid out too, with fixed advances (the decoder runs without a measurer,
/// as the fuzzer's brief asks: fonts are not validated).
let fuzzMeasurer = FixedAdvanceTextMeasurer()

/// One input: decode; if it decodes, lay out and encode every way the service does.
/// Returns what happened (for the replay tool and the regression tests' documentation).
func fuzzOne(_ bytes: [UInt8]) -> String {
    let request: LayoutRequest
    do {
        request = try fuzzDecoder.decode(body: bytes)
    } catch let error as WireError {
        precondition((400..<500).contains(error.status), "decoder error with status \(error.status)")
        precondition(!error.jsonBytes.isEmpty)
        return "error \(error.status) \(error.code)"
    } catch {
        preconditionFailure("decoder threw a non-WireError: \(error)")
    }
    request.hashTree()
    // The service's default budget for this request, and no deadline: an input stops at
    // its budget or costs what it costs. Below the budget, no input may cost more than
    // `maxMeasurementsPerByte` measurements per byte (a shape whose work grows faster than
    // its size, which the budget would be the only thing stopping).
    let budget = LayoutBudget(limits: BudgetPolicy().limits(elements: request.elementCount, textBytes: request.textBytes))
    let context = LayoutContext(scale: request.scale, textMeasurer: fuzzMeasurer, subtreeCache: nil,
                                allowsConcurrency: false, budget: budget)
    let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
    if let stop = budget.stop {
        guard case .budgetExceeded = stop else { preconditionFailure("a pass without deadline stopped: \(stop)") }
        return "budget exceeded (\(stop))"
    }
    let perByte = Double(budget.spent.measurements) / Double(max(1, bytes.count))
    precondition(perByte <= maxMeasurementsPerByte,
                 "\(budget.spent.measurements) measurements for \(bytes.count) bytes: the cost grows faster than the input")
    let json = ResponseEncoder(scale: request.scale, includeSpecs: request.includeSpecs)
        .encode(root: request.root, layout: layout)
    // The response must be JSON (no NaN or inf leaking out of the arithmetic).
    do {
        guard case .object = try JSONParser.parse(json, maxDepth: 1 << 20) else { preconditionFailure("response is not an object") }
    } catch {
        preconditionFailure("the response is not valid JSON: \(error)")
    }
    _ = ResponseEncoder(scale: request.scale, includeSpecs: !request.includeSpecs).encode(root: request.root, layout: layout)
    for output in [ResponseOutput.layout, .frames] {
        let part = ResponseEncoder(scale: request.scale, includeSpecs: request.includeSpecs, output: output)
            .encode(root: request.root, layout: layout)
        guard case .object? = try? JSONParser.parse(part, maxDepth: 1 << 20) else { preconditionFailure("the \(output) response is not JSON") }
    }
    let svg = SVGRenderer(scale: request.scale).render(root: request.root, layout: layout)
    precondition(!svg.isEmpty)
    return "layout \(layout.size.width)x\(layout.size.height), \(json.count) bytes"
}

/// The same bytes through the whole service as the HTTP routes use it: raw-body index,
/// tree digest, response and subtree caches (small, so they evict), JSON and SVG, batch.
let serviceUnderFuzz: LayoutService = {
    var configuration = ServiceConfiguration()
    configuration.cacheEntries = 64
    configuration.cacheBytes = 1 << 20
    configuration.subtreeCacheEntries = 256
    configuration.subtreeCacheBytes = 1 << 20
    return LayoutService(configuration: configuration, textMeasurer: fuzzMeasurer)
}()

func fuzzService(_ bytes: [UInt8]) {
    for format in [OutputFormat.json, .svg] {
        let outcome = serviceUnderFuzz.layout(body: bytes, format: format)
        precondition(outcome.status == 200 || (400..<500).contains(outcome.status)
                     || (outcome.status == 503 && String(decoding: outcome.body, as: UTF8.self).contains("deadline_exceeded")),
                     "service answered \(outcome.status)")
        precondition(!outcome.body.isEmpty)
    }
    let batch = serviceUnderFuzz.batch(body: bytes) { count, body in for i in 0..<count { body(i) } }
    precondition(batch.status == 200 || (400..<500).contains(batch.status), "batch answered \(batch.status)")
    if batch.status == 200 {
        precondition(!String(decoding: batch.body, as: UTF8.self).contains(#""code":"internal""#), "a batch item failed inside")
    }
    if batch.status == 200 {
        do { _ = try JSONParser.parse(batch.body, maxDepth: 1 << 20) } catch { preconditionFailure("batch response is not JSON: \(error)") }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    _ = fuzzOne(bytes)
    fuzzService(bytes)
    return 0
}

/// Replay: `LoomFuzz FILE…` runs each input once and prints what it gave. In the plain
/// build main.swift is top-level code, so this global is initialized at startup; in the
/// fuzz build (-parse-as-library) globals are lazy and libFuzzer's main runs instead.
func replay() {
    var failures = 0
    for path in CommandLine.arguments.dropFirst() {
        guard let data = FileManager.default.contents(atPath: path) else {
            print("\(path): cannot read"); failures += 1; continue
        }
        print("\(path): \(fuzzOne([UInt8](data)))")
        fuzzService([UInt8](data))
    }
    exit(failures == 0 ? 0 : 1)
}
let replayed: Void = replay()
