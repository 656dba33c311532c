import ArgumentParser
import Dispatch
import Foundation
import LoomLayout
import LoomService
import LoomText

/// `loom bench`: in-process timings of decode, layout and encode, and the cache scenarios.
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time decode, layout and encode of LayoutRequest files, and the cache scenarios.")

    @Option(help: "A LayoutRequest file to time (repeatable). Without it: every *.json in --trees-dir and the cache scenarios.")
    var tree: [String] = []
    @Option(help: "Folder of the built-in benchmark trees (bench/gen_trees.py writes them).") var treesDir = "bench/trees"
    @Option(help: "Timed runs per tree (after one warm-up run).") var runs = 15
    @Flag(help: "One JSON line per tree.") var json = false
    @Option(help: "Encode only this part (both, layout or frames), whatever the tree's options.output says.")
    var output: String?
    @Option(name: .customLong("font-dir"), help: "Extra font directory (repeatable).") var fontDirs: [String] = []
    @Flag(help: "Only the text scenarios: feed and feedtext from --trees-dir (with the cold rows), then mixed scripts against Latin.")
    var textOnly = false
    @Option(help: "Only this paired scenario: coldtext (feedtext with its text cache emptied against feed), scripts (the mixed-scripts feed against the Latin one, caches emptied) or misses (the cell, a different body each run, through the service's caches against the bare path).")
    var scenario: String?

    /// The paired scenarios, in the order they run.
    static let pairedScenarios = ["coldtext", "scripts", "misses"]

    func validate() throws {
        if let scenario, !Self.pairedScenarios.contains(scenario) {
            throw ValidationError("--scenario is one of " + Self.pairedScenarios.joined(separator: ", "))
        }
    }

    func run() throws {
        let measurer = try makeTextMeasurer(fontDirs: fontDirs)
        var files = tree
        var scenarios = false
        if scenario != nil {
            files = []
        } else if textOnly {
            files = ["feed.json", "feedtext.json"].map { treesDir + "/" + $0 }
        } else if files.isEmpty {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: treesDir)) ?? []
            files = names.filter { $0.hasSuffix(".json") && !$0.contains("_changed") }.sorted().map { treesDir + "/" + $0 }
            guard !files.isEmpty else {
                throw ValidationError("no trees in \(treesDir): run `python3 bench/gen_trees.py --out \(treesDir)` first")
            }
            scenarios = true
        }
        let runs = Swift.max(1, self.runs)
        var outputOverride: ResponseOutput?
        if let output {
            guard let o = ResponseOutput(rawValue: output) else { throw ValidationError("--output is both, layout or frames") }
            outputOverride = o
        }
        let json = self.json
        let paired = scenario.map { [$0] } ?? (scenarios ? Self.pairedScenarios : textOnly ? ["coldtext", "scripts"] : [])
        // On stderr: the lines on stdout are the results (one JSON object each with --json).
        FileHandle.standardError.write(Data("loom bench: allocator \(Allocator.description)\n".utf8))
        runWithLargeStack {
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    print("cannot read \(file)")
                    continue
                }
                let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
                let body = Array(data)
                let result = Self.timeTree(name: name, body: body, runs: runs, measurer: measurer, output: outputOverride)
                print(json ? result.jsonLine : result.humanLine)
                // Trees with text once more with the text cache emptied before every run
                // (`_coldtext`: the word-advance cache stays, as it would in a running
                // service), and with both emptied (`_coldwords`: a freshly started one).
                if result.hasText {
                    let cold = Self.timeTree(name: name + "_coldtext", body: body, runs: runs, measurer: measurer,
                                             beforeRun: { measurer.clearCache() })
                    print(json ? cold.jsonLine : cold.humanLine)
                    let colder = Self.timeTree(name: name + "_coldwords", body: body, runs: runs, measurer: measurer,
                                               beforeRun: { measurer.clearCache(); measurer.clearWordCache() })
                    print(json ? colder.jsonLine : colder.humanLine)
                    // And with a measurer that answers at once (`_instanttext`): what the tree
                    // costs without any text measurement, cache lookups included.
                    let instant = Self.timeTree(name: name + "_instanttext", body: body, runs: runs, measurer: measurer,
                                                layoutMeasurer: InstantTextMeasurer())
                    print(json ? instant.jsonLine : instant.humanLine)
                }
            }
            if scenarios {
                Self.cacheScenarios(treesDir: treesDir, measurer: measurer, runs: runs, json: json)
            }
            if paired.contains("coldtext") {
                Self.coldTextScenario(treesDir: treesDir, measurer: measurer, runs: runs, json: json)
            }
            if paired.contains("scripts") {
                Self.scriptScenario(treesDir: treesDir, measurer: measurer, runs: runs, json: json)
            }
            if paired.contains("misses") {
                Self.missScenario(treesDir: treesDir, measurer: measurer, runs: runs, json: json)
            }
        }
    }

    struct TreeResult {
        var name: String
        var hasText = false
        var nodes: Int
        var runs: Int
        var median: [String: Double]
        var p90: [String: Double]
        /// What one layout of the tree is charged against the default budget.
        var cost = LayoutCost()
        static let phases = ["decode", "layout", "encode", "total"]
        var jsonLine: String {
            func obj(_ d: [String: Double]) -> String {
                "{" + Self.phases.map { "\"\($0)\": \(String(format: "%.4f", d[$0] ?? 0))" }.joined(separator: ", ") + "}"
            }
            return "{\"tree\": \"\(name)\", \"nodes\": \(nodes), \"runs\": \(runs), \"median_ms\": \(obj(median)), \"p90_ms\": \(obj(p90)), "
                + "\"cost\": {\"measurements\": \(cost.measurements), \"characters\": \(cost.characters), \"lines\": \(cost.lines)}}"
        }
        var humanLine: String {
            let cols = Self.phases.map { String(format: "%@ %8.3f", $0, median[$0] ?? 0) }.joined(separator: "  ")
            return String(format: "%-14@ %7d nodes  median ms: ", name, nodes) + cols
                + String(format: "  (p90 total %.3f)", p90["total"] ?? 0)
                + "  cost: \(cost.measurements) measurements, \(cost.characters) text bytes, \(cost.lines) lines"
        }
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    static func percentile(_ xs: [Double], _ p: Double) -> Double {
        let s = xs.sorted()
        guard !s.isEmpty else { return 0 }
        let rank = p * Double(s.count - 1)
        let lo = Int(rank.rounded(.down)), hi = Int(rank.rounded(.up))
        return s[lo] + (s[hi] - s[lo]) * (rank - Double(lo))
    }

    /// One warm-up run, then `runs` timed runs; each run decodes afresh (parse, build the
    /// tree and its canonical digests, as the service does; new elements, no
    /// memo), lays out without the shared subtree cache and encodes. Text measurements stay
    /// cached across runs unless `beforeRun` empties the text cache (the `_coldtext` rows).
    static func timeTree(name: String, body: [UInt8], runs: Int, measurer: TextMeasuring,
                         layoutMeasurer: TextMeasuring? = nil, output: ResponseOutput? = nil,
                         beforeRun: @escaping () -> Void = {}) -> TreeResult {
        var timer = TreeTimer(name: name, body: body, measurer: measurer, layoutMeasurer: layoutMeasurer,
                              output: output, beforeRun: beforeRun)
        for run in 0...runs {
            guard timer.run(record: run > 0) else { break }
        }
        return timer.result
    }

    /// One tree timed a run at a time, so that two trees can take turns (`pairedRatio`).
    struct TreeTimer {
        let name: String
        /// The request timed (the miss scenario gives it a new one each run).
        var body: [UInt8]
        let measurer: TextMeasuring
        let layoutMeasurer: TextMeasuring?
        let output: ResponseOutput?
        let beforeRun: () -> Void
        let decoder: RequestDecoder
        var samples: [String: [Double]] = ["decode": [], "layout": [], "encode": [], "total": []]
        var nodes = 0
        var hasText = false
        var failed = false
        var cost = LayoutCost()

        init(name: String, body: [UInt8], measurer: TextMeasuring, layoutMeasurer: TextMeasuring? = nil,
             output: ResponseOutput? = nil, beforeRun: @escaping () -> Void = {}) {
            self.name = name
            self.body = body
            self.measurer = measurer
            self.layoutMeasurer = layoutMeasurer
            self.output = output
            self.beforeRun = beforeRun
            decoder = RequestDecoder(limits: .unlimited, textMeasurer: measurer)
        }

        /// One run (decode, hash, layout, encode), its phases kept when `record`; false when
        /// the tree does not decode.
        mutating func run(record: Bool) -> Bool {
            guard !failed else { return false }
            beforeRun()
            let t0 = now()
            guard let request = try? decoder.decode(body: body) else {
                print("\(name): the request does not decode")
                failed = true
                return false
            }
            // The service hashes every request for its cache key: part of "decode" here.
            request.hashTree()
            let t1 = now()
            // With the service's default budget, as every request is laid out.
            let budget = LayoutBudget(limits: BudgetPolicy().limits(elements: request.elementCount, textBytes: request.textBytes))
            let context = LayoutContext(scale: request.scale, textMeasurer: layoutMeasurer ?? measurer, budget: budget)
            let layout = calculateRootLayout(request.root, sizeRange: request.sizeRange, context: context)
            let t2 = now()
            if let stop = budget.stop { print("\(name): the layout stopped: \(stop)") }
            cost = budget.spent
            let bytes = ResponseEncoder(scale: request.scale, includeSpecs: request.includeSpecs, output: output ?? request.output).encode(root: request.root, layout: layout)
            let t3 = now()
            precondition(!bytes.isEmpty)
            nodes = request.elementCount
            hasText = request.hasText
            if record {
                samples["decode"]!.append(Double(t1 - t0) / 1e6)
                samples["layout"]!.append(Double(t2 - t1) / 1e6)
                samples["encode"]!.append(Double(t3 - t2) / 1e6)
                samples["total"]!.append(Double(t3 - t0) / 1e6)
            }
            return true
        }

        var result: TreeResult {
            guard !failed else { return TreeResult(name: name, nodes: 0, runs: 0, median: [:], p90: [:]) }
            var median: [String: Double] = [:], p90: [String: Double] = [:]
            for (k, v) in samples { median[k] = percentile(v, 0.5); p90[k] = percentile(v, 0.9) }
            return TreeResult(name: name, hasText: hasText, nodes: nodes, runs: samples["layout"]!.count, median: median,
                              p90: p90, cost: cost)
        }
    }

    /// Two trees timed in turns, one run of each after the other (after a warm-up run of
    /// each), so that a slow phase of the machine falls on both alike; the ratio is the
    /// median of the runs' layout ratios (`b` / `a`), with its first and third quartiles.
    static func pairedRatio(_ a: inout TreeTimer, _ b: inout TreeTimer, runs: Int)
        -> (median: Double, q1: Double, q3: Double) {
        for run in 0...runs {
            guard a.run(record: run > 0), b.run(record: run > 0) else { return (0, 0, 0) }
        }
        return medianAndQuartiles(zip(a.samples["layout"]!, b.samples["layout"]!).map { $1 / Swift.max(1e-9, $0) })
    }

    /// The median of `ratios` with its first and third quartiles.
    static func medianAndQuartiles(_ ratios: [Double]) -> (median: Double, q1: Double, q3: Double) {
        (percentile(ratios, 0.5), percentile(ratios, 0.25), percentile(ratios, 0.75))
    }

    /// The 100-cell feed with text (feedtext.json) against the same feed with its texts in
    /// mixed scripts (Chinese, Japanese, Korean, Arabic, Hebrew, Devanagari, Thai, emoji,
    /// among Latin words), both with the text and word caches emptied before every run: the
    /// cost of the fallback chain. The two take turns run by run (`pairedRatio`). Prints both
    /// rows, the median ratio of their layouts and the process's resident memory once the
    /// fallback fonts (CJK among them) are loaded.
    static func scriptScenario(treesDir: String, measurer: PangoTextMeasurer, runs: Int, json: Bool) {
        guard let data = FileManager.default.contents(atPath: treesDir + "/feedtext.json"),
              let mixed = mixedScripts(Array(data)) else {
            print("script scenario skipped: feedtext.json is needed in \(treesDir)")
            return
        }
        let empty = { measurer.clearCache(); measurer.clearWordCache() }
        var latin = TreeTimer(name: "feedtext_latin_cold", body: Array(data), measurer: measurer, beforeRun: empty)
        var scripts = TreeTimer(name: "feedtext_scripts_cold", body: mixed, measurer: measurer, beforeRun: empty)
        let ratio = pairedRatio(&latin, &scripts, runs: runs)
        print(json ? latin.result.jsonLine : latin.result.humanLine)
        print(json ? scripts.result.jsonLine : scripts.result.humanLine)
        let rss = residentMiB()
        printRatio(ratio, scenario: "scripts vs latin, caches emptied", label: "scripts / latin layout (caches emptied, runs in turns)",
                   json: json, jsonExtra: ", \"rss_mib\": \(String(format: "%.1f", rss))",
                   extra: String(format: "   RSS with the fallback fonts loaded: %.1f MiB", rss))
    }

    /// A scenario's paired ratio: one JSON object, or one line for a person.
    static func printRatio(_ ratio: (median: Double, q1: Double, q3: Double), scenario: String, label: String, json: Bool,
                           jsonExtra: String = "", extra: String = "") {
        if json {
            print("{\"scenario\": \"\(scenario)\", \"layout_ratio\": \(String(format: "%.3f", ratio.median)), "
                  + "\"layout_ratio_q1\": \(String(format: "%.3f", ratio.q1)), \"layout_ratio_q3\": \(String(format: "%.3f", ratio.q3))"
                  + jsonExtra + "}")
        } else {
            print(label + String(format: ": %.2fx (quartiles %.2f-%.2f)", ratio.median, ratio.q1, ratio.q3) + extra)
        }
    }

    /// The 100-cell feed with text (feedtext.json), its text cache emptied before every run
    /// (the word cache kept, as in a running service), against the same feed without text
    /// (feed.json), the two taking turns run by run: what measuring new texts costs.
    static func coldTextScenario(treesDir: String, measurer: PangoTextMeasurer, runs: Int, json: Bool) {
        guard let feed = FileManager.default.contents(atPath: treesDir + "/feed.json"),
              let text = FileManager.default.contents(atPath: treesDir + "/feedtext.json") else {
            print("cold text scenario skipped: feed.json and feedtext.json are needed in \(treesDir)")
            return
        }
        var plain = TreeTimer(name: "feed", body: Array(feed), measurer: measurer)
        var cold = TreeTimer(name: "feedtext_coldtext", body: Array(text), measurer: measurer,
                             beforeRun: { measurer.clearCache() })
        let ratio = pairedRatio(&plain, &cold, runs: runs)
        printRatio(ratio, scenario: "coldtext vs feed", label: "coldtext / feed layout (runs in turns)", json: json)
    }

    /// The cell (cell.json) with a different width in its one `7.125` each run, as
    /// `bench/wrk_miss.lua` posts it over HTTP: every body misses one service's caches. Two
    /// paths take turns on the same bodies: the service's miss (`LayoutService.answer`, then
    /// the pending layout run here: the body's digest and lookups, decoding, the response key,
    /// the layout through the subtree cache within the default budget, encoding, both cache
    /// stores, and freeing the tree after the answer, timed apart) and the bare path of the
    /// tree rows (decoding with the hash, layout without caches, encoding; freeing untimed).
    /// What a miss costs over HTTP beyond the service's part is the HTTP server's and the
    /// hand-off's (`bench/http_load.sh` gives its CPU per request).
    static func missScenario(treesDir: String, measurer: TextMeasuring, runs: Int, json: Bool) {
        guard let data = FileManager.default.contents(atPath: treesDir + "/cell.json"),
              case let text = String(decoding: data, as: UTF8.self), let marker = text.range(of: "7.125") else {
            print("miss scenario skipped: cell.json (with 7.125 once) is needed in \(treesDir)")
            return
        }
        let prefix = Array(text[..<marker.lowerBound].utf8), suffix = Array(text[marker.upperBound...].utf8)
        func body(_ n: Int) -> [UInt8] { prefix + Array(String(format: "7.%09d", n).utf8) + suffix }
        let service = LayoutService(configuration: ServiceConfiguration(), textMeasurer: measurer)
        var bareTimer = TreeTimer(name: "cell_bare", body: [], measurer: measurer)
        var miss: [Double] = [], freeing: [Double] = [], bare: [Double] = [], ratios: [Double] = []
        // Run 0 warms up; then each run's two bodies are new to the service's caches.
        for run in 0...runs {
            let first = body(2 * run), second = body(2 * run + 1)
            let t0 = now()
            var answered: UInt64 = 0
            guard case .layoutNeeded(let pending) = service.answer(body: first) else {
                print("miss scenario: a body was answered from the cache")
                return
            }
            var missed = false
            pending.run(budget: service.makeBudget()) { outcome in
                missed = outcome.status == 200 && !outcome.cacheHit
                answered = now()
            }
            let t1 = now()
            guard missed else {
                print("miss scenario: a body was not laid out afresh")
                return
            }
            bareTimer.body = second
            guard bareTimer.run(record: run > 0) else { return }
            guard run > 0 else { continue }
            bare.append(bareTimer.samples["total"]!.last! * 1e3)
            miss.append(Double(t1 - t0) / 1e3)
            freeing.append(Double(t1 - answered) / 1e3)
            ratios.append(miss.last! / Swift.max(1e-9, bare.last!))
        }
        let m = percentile(miss, 0.5), f = percentile(freeing, 0.5), b = percentile(bare, 0.5)
        let r = medianAndQuartiles(ratios)
        if json {
            print("{\"scenario\": \"misses\", \"runs\": \(runs), \"miss_us\": \(String(format: "%.2f", m)), "
                  + "\"miss_freeing_us\": \(String(format: "%.2f", f)), \"bare_path_us\": \(String(format: "%.2f", b)), "
                  + "\"ratio\": \(String(format: "%.3f", r.0)), \"ratio_q1\": \(String(format: "%.3f", r.1)), "
                  + "\"ratio_q3\": \(String(format: "%.3f", r.2))}")
        } else {
            print(String(format: "cell misses (runs in turns): service %.1f us (of it freeing after the answer %.1f), "
                         + "bare path %.1f us: %.2fx (quartiles %.2f-%.2f)", m, f, b, r.0, r.1, r.2))
        }
    }

    /// Resident memory of this process (VmRSS), in MiB.
    static func residentMiB() -> Double {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kib / 1024
    }

    /// `body` with every `text` rewritten deterministically into mixed scripts: each text gets
    /// a script (by its order), about every other word is replaced by one of that script,
    /// and every fourth word is followed by an emoji (sequences included).
    static func mixedScripts(_ body: [UInt8]) -> [UInt8]? {
        let pools: [[String]] = [
            ["我们", "世界", "今天", "天气", "学习", "工作", "朋友", "时间", "布局", "文本"],
            ["東京", "日本語", "ちょっと", "ラーメン", "コーヒー", "データ", "サーバー", "テスト"],
            ["안녕하세요", "오늘", "날씨", "한국어", "공부", "서버", "데이터", "친구"],
            ["مرحبا", "بالعالم", "هذا", "نص", "عربي", "للاختبار", "الخادم", "كتاب"],
            ["שלום", "עולם", "טקסט", "בעברית", "לבדיקה", "השרת", "ספר", "תודה"],
            ["नमस्ते", "दुनिया", "हिंदी", "पाठ", "परीक्षण", "सर्वर", "किताब", "धन्यवाद"],
            ["สวัสดีครับ", "ภาษาไทย", "ทดสอบ", "หนังสือ", "โรงเรียน", "วันนี้", "กาแฟ"],
        ]
        let emoji = ["😀", "👋🏽", "❤️", "🇫🇷", "👨‍👩‍👧", "1️⃣", "🎉", "☕"]
        guard let root = try? JSONSerialization.jsonObject(with: Data(body)) else { return nil }
        var count = 0
        func rewrite(_ text: String) -> String {
            count += 1
            let pool = pools[count % pools.count]
            var words: [String] = []
            for (j, word) in text.split(separator: " ").enumerated() {
                words.append(word.count >= 3 && j % 2 == 0 ? pool[(count + j) % pool.count] : String(word))
                if j % 4 == 3 { words.append(emoji[(count + j) % emoji.count]) }
            }
            return words.joined(separator: " ")
        }
        func walk(_ x: Any) -> Any {
            if let d = x as? [String: Any] {
                // Keys in order: which text gets which script must not depend on the
                // dictionary's per-process hash seed (runs would lay out different feeds).
                var out: [String: Any] = [:]
                for k in d.keys.sorted() {
                    let v = d[k]!
                    out[k] = (k == "text" ? (v as? String).map(rewrite) : nil) ?? walk(v)
                }
                return out
            }
            if let a = x as? [Any] { return a.map(walk) }
            return x
        }
        // Keys sorted: members in one order per kind, as a client writes them (the decoder guesses
        // each member from the order it saw; a dictionary's own order differs per object).
        guard let out = try? JSONSerialization.data(withJSONObject: walk(root), options: [.sortedKeys]) else { return nil }
        return Array(out)
    }

    /// A 100-cell feed through the service's caches: cold, unchanged, one cell changed; the
    /// whole request path (decode, key, layout, encode) and the layout alone.
    static func cacheScenarios(treesDir: String, measurer: TextMeasuring, runs: Int, json: Bool) {
        guard let feedData = FileManager.default.contents(atPath: treesDir + "/feed.json"),
              let changedData = FileManager.default.contents(atPath: treesDir + "/feed_changed.json") else {
            print("cache scenarios skipped: feed.json and feed_changed.json are needed in \(treesDir)")
            return
        }
        let feed = Array(feedData), changed = Array(changedData)
        var rows: [String: [Double]] = [:]
        var computed: [String: Int] = [:]
        func time(_ name: String, _ body: () -> Void) {
            let t = now()
            body()
            rows[name, default: []].append(Double(now() - t) / 1e6)
        }
        for _ in 0..<runs {
            // Whole path through one service: cold, the same bytes again, then the changed feed.
            let service = LayoutService(configuration: ServiceConfiguration(), textMeasurer: measurer)
            time("path: feed cold") { precondition(!service.layout(body: feed).cacheHit) }
            time("path: feed unchanged") { precondition(service.layout(body: feed).cacheHit) }
            time("path: feed one cell changed") { precondition(!service.layout(body: changed).cacheHit) }

            // Layout alone: cold (no subtree cache) against the changed feed on a warmed cache.
            let cold = try! service.decoder.decode(body: feed)
            let coldContext = LayoutContext(scale: cold.scale, textMeasurer: measurer)
            time("layout: feed cold") { _ = calculateRootLayout(cold.root, sizeRange: cold.sizeRange, context: coldContext) }
            computed["layout: feed cold"] = coldContext.computedLayouts
            let warmed = LayoutService(configuration: ServiceConfiguration(), textMeasurer: measurer)
            _ = warmed.computeLayout(try! warmed.decoder.decode(body: feed))
            let again = try! warmed.decoder.decode(body: changed)
            again.hashTree()
            let context = LayoutContext(scale: again.scale, textMeasurer: measurer, subtreeCache: warmed.subtreeCache)
            time("layout: feed one cell changed") { _ = calculateRootLayout(again.root, sizeRange: again.sizeRange, context: context) }
            computed["layout: feed one cell changed"] = context.computedLayouts
        }
        let order = ["path: feed cold", "path: feed unchanged", "path: feed one cell changed",
                     "layout: feed cold", "layout: feed one cell changed"]
        for name in order {
            let xs = rows[name] ?? []
            if json {
                let c = computed[name].map { ", \"layouts_computed\": \($0)" } ?? ""
                print("{\"scenario\": \"\(name)\", \"runs\": \(runs), \"median_ms\": \(String(format: "%.4f", percentile(xs, 0.5))), \"p90_ms\": \(String(format: "%.4f", percentile(xs, 0.9)))\(c)}")
            } else {
                let c = computed[name].map { "  layouts computed: \($0)" } ?? ""
                print(name.padding(toLength: 32, withPad: " ", startingAt: 0)
                      + String(format: "median %8.3f ms  p90 %8.3f ms", percentile(xs, 0.5), percentile(xs, 0.9)) + c)
            }
        }
    }
}

/// A text measurer that answers at once, whatever the text: 16 points high, one line, as
/// wide as the container allows up to 100 points. Not a layout anyone should use (its
/// frames are not the text's): `loom bench` times a tree with it to show what the tree
/// costs without text measurement (`_instanttext`).
final class InstantTextMeasurer: TextMeasuring, @unchecked Sendable {
    func measure(_ text: TextAttributes, in containerSize: Size) -> TextMeasurement {
        TextMeasurement(size: Size(width: Swift.min(Swift.max(0, containerSize.width), 100), height: 16),
                        lineCount: 1, truncated: false, ascender: 12, descender: -4)
    }
    func validate(_ font: FontDescriptor) -> TextMeasuringError? { nil }
}
