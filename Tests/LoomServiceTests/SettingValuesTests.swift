import XCTest
@testable import LoomService

/// Byte sizes as settings are written, the CPU count `--workers auto` takes, and the
/// process figures of /metrics.
final class SettingValuesTests: XCTestCase {
    func testByteSizes() {
        let mi = 1 << 20, mb = 1_000_000
        let cases: [(String, Int?)] = [
            ("67108864", 64 * mi), ("64Mi", 64 * mi), ("64MiB", 64 * mi), ("64mib", 64 * mi), ("64 Mi", 64 * mi),
            ("64MB", 64 * mb), ("64M", 64 * mb), ("64mb", 64 * mb), ("512Ki", 512 * 1024), ("512k", 512_000),
            ("1kB", 1000), ("2Gi", 2 << 30), ("2G", 2_000_000_000), ("1Ti", 1 << 40), ("100B", 100), ("0", 0),
            (" 8Mi ", 8 * mi), ("-5", -5), ("+7", 7),
            ("", nil), ("Mi", nil), ("64Q", nil), ("64 MiBs", nil), ("1.5Gi", nil), ("abc", nil), ("64iB", nil),
            ("0x40", nil), ("99999999999Ti", nil),
        ]
        for (text, bytes) in cases {
            XCTAssertEqual(ByteSize.parse(text), bytes, "'\(text)'")
        }
    }

    func testCPUListsAndQuotas() {
        XCTAssertEqual(ProcessFacts.cpuListCount("0-3,8,10-11"), 7)
        XCTAssertEqual(ProcessFacts.cpuListCount("0"), 1)
        XCTAssertEqual(ProcessFacts.cpuListCount("\t0-1\n"), 2)
        XCTAssertNil(ProcessFacts.cpuListCount("3-1"))
        XCTAssertNil(ProcessFacts.cpuListCount(""))
        XCTAssertEqual(ProcessFacts.affinityCPUs(status: "Name:\tloom\nCpus_allowed:\tf\nCpus_allowed_list:\t0-3\n"), 4)
        // cgroup v2 cpu.max: quota and period; "max" is no limit; a part of a CPU rounds up.
        XCTAssertNil(ProcessFacts.cpuLimit(cpuMax: "max 100000\n"))
        XCTAssertEqual(ProcessFacts.cpuLimit(cpuMax: "200000 100000\n"), 2)
        XCTAssertEqual(ProcessFacts.cpuLimit(cpuMax: "150000 100000"), 2)
        XCTAssertEqual(ProcessFacts.cpuLimit(cpuMax: "50000 100000"), 1)
        // cgroup v1: -1 is no quota.
        XCTAssertNil(ProcessFacts.cpuLimit(quota: "-1\n", period: "100000\n"))
        XCTAssertEqual(ProcessFacts.cpuLimit(quota: "300000\n", period: "100000\n"), 3)
    }

    /// A cgroup tree on disk: the smallest limit on the way from the process's cgroup to the
    /// root counts, for v2 and for v1.
    func testCgroupLimitsAreReadFromTheTree() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loom-cgroup-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try write("kubepods/cpu.max", "300000 100000\n")
        try write("kubepods/pod1/cpu.max", "max 100000\n")
        try write("kubepods/pod1/c1/cpu.max", "max 100000\n")
        XCTAssertEqual(ProcessFacts.cgroupCPULimit(root: root.path, membership: "0::/kubepods/pod1/c1\n"), 3)
        try write("kubepods/pod1/c1/cpu.max", "120000 100000\n")
        XCTAssertEqual(ProcessFacts.cgroupCPULimit(root: root.path, membership: "0::/kubepods/pod1/c1\n"), 2)
        XCTAssertNil(ProcessFacts.cgroupCPULimit(root: root.path, membership: "0::/elsewhere\n"))
        try write("cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "100000\n")
        try write("cpu,cpuacct/docker/abc/cpu.cfs_period_us", "100000\n")
        XCTAssertEqual(ProcessFacts.cgroupCPULimit(root: root.path, membership: "4:cpu,cpuacct:/docker/abc\n3:memory:/docker/abc\n"), 1)
        // This machine: never more cores than the affinity mask, never fewer than 1.
        let cores = ProcessFacts.availableCores()
        XCTAssertGreaterThanOrEqual(cores, 1)
        XCTAssertLessThanOrEqual(cores, ProcessFacts.affinityCPUs() ?? cores)
    }

    func testProcStatFigures() throws {
        // proc(5): the command may hold spaces and parentheses; utime 250 + stime 50 ticks
        // at 100 a second = 3 s; starttime 1000 ticks after a boot at 1,700,000,000.
        let stat = "4242 (lo om (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 5 0 1000 123456789 300 18446744073709551615"
        let f = try XCTUnwrap(ProcessFacts.figures(stat: stat, bootTime: 1_700_000_000, ticks: 100, pageSize: 4096))
        XCTAssertEqual(f.cpuSeconds, 3)
        XCTAssertEqual(f.startTimeSeconds, 1_700_000_010)
        XCTAssertEqual(f.virtualBytes, 123_456_789)
        XCTAssertEqual(f.residentBytes, 300 * 4096)
        XCTAssertNil(ProcessFacts.figures(stat: "4242 (loom) S 1 2", bootTime: nil))
        let limits = "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n"
        XCTAssertEqual(ProcessFacts.maxOpenFiles(limits: limits), 1024)
        // This process, from /proc.
        let mine = try XCTUnwrap(ProcessFacts.figures())
        XCTAssertGreaterThan(mine.residentBytes, 0)
        XCTAssertGreaterThanOrEqual(mine.openFDs ?? 0, 3)
    }
}
