import ArgumentParser
import LoomLayout
import LoomService

/// What one request may ask of the service: the decoder's limits and the layout budget.
/// Shared by `serve` and `layout`, so that a file laid out by hand meets the limits the
/// server would apply. Every option also reads an environment variable (the flag wins).
struct LimitOptions: ParsableArguments {
    @Option(help: "Deepest element nesting (env LOOM_MAX_DEPTH, default 512).") var maxDepth: Int?
    @Option(help: "Most elements in one request (env LOOM_MAX_NODES, default 100000).") var maxNodes: Int?
    @Option(help: "Longest text in UTF-8 bytes (env LOOM_MAX_TEXT_BYTES, default 100000).") var maxTextBytes: Int?
    @Option(help: "Seconds from arrival until a layout is abandoned with 503 (env LOOM_DEADLINE, default 5).") var deadline: Double?
    @Option(help: "Measurements a layout may compute, before the per-element share (env LOOM_BUDGET_MEASUREMENTS, default 50000).")
    var budgetMeasurements: Int?
    @Option(help: "Measurements added per element of the request (env LOOM_BUDGET_PER_ELEMENT, default 10).")
    var budgetPerElement: Int?
    @Option(help: "Bytes of text a layout may measure, before the per-text-byte share (env LOOM_BUDGET_TEXT_BYTES, default 1000000).")
    var budgetTextBytes: Int?
    @Option(help: "Lines of text a layout may produce, before the per-text-byte share (env LOOM_BUDGET_LINES, default 100000).")
    var budgetLines: Int?
    @Option(help: "Text bytes and lines added per byte of text in the request (env LOOM_BUDGET_PER_TEXT_BYTE, default 8).")
    var budgetPerTextByte: Int?

    /// Checked when the command line is parsed, before fonts load or a socket opens: an
    /// out-of-range flag or environment value stops the command with its message.
    func validate() throws {
        var config = ServiceConfiguration()
        try apply(to: &config)
    }

    /// The service configuration these options describe (checked: a bad value is an error).
    func apply(to config: inout ServiceConfiguration) throws {
        // The decoder and the engine recurse once per level on 8 MiB pool-thread stacks.
        let depth = try Setting("--max-depth", "LOOM_MAX_DEPTH").int(maxDepth, default: 512, 1...1024, "1…1024")
        let nodes = try Setting("--max-nodes", "LOOM_MAX_NODES").int(maxNodes, default: 100_000, 1...Int.max, "at least 1")
        let textBytes = try Setting("--max-text-bytes", "LOOM_MAX_TEXT_BYTES").int(
            maxTextBytes, default: 100_000, 1...1_000_000, "1…1000000 (the measurer's arithmetic is checked up to there)")
        config.limits = DecodeLimits(maxDepth: depth, maxNodes: nodes, maxTextBytes: textBytes)
        config.deadlineSeconds = try Setting("--deadline", "LOOM_DEADLINE").double(
            deadline, default: 5.0, Double.ulpOfOne...3600, "> 0 and at most 3600 seconds")
        var policy = BudgetPolicy()
        func budget(_ flag: Int?, _ name: String, _ env: String, _ fallback: Int) throws -> Int {
            try Setting(name, env).int(flag, default: fallback, 0...Int.max, ">= 0")
        }
        policy.measurements = try budget(budgetMeasurements, "--budget-measurements", "LOOM_BUDGET_MEASUREMENTS", policy.measurements)
        policy.measurementsPerElement = try budget(budgetPerElement, "--budget-per-element", "LOOM_BUDGET_PER_ELEMENT",
                                                   policy.measurementsPerElement)
        policy.characters = try budget(budgetTextBytes, "--budget-text-bytes", "LOOM_BUDGET_TEXT_BYTES", policy.characters)
        policy.lines = try budget(budgetLines, "--budget-lines", "LOOM_BUDGET_LINES", policy.lines)
        policy.perTextByte = try budget(budgetPerTextByte, "--budget-per-text-byte", "LOOM_BUDGET_PER_TEXT_BYTE", policy.perTextByte)
        config.budget = policy
    }
}
