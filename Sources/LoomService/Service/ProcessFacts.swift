#if canImport(Glibc)
import Glibc
#endif

/// What Linux says about this process: the CPUs it may use (for `--workers auto`) and the
/// process figures `/metrics` reports, read from /proc and /sys/fs/cgroup. Nothing here is
/// on a request's path: the cores are read once at start, the rest at scrape time.
public enum ProcessFacts {
    // MARK: CPUs

    /// The CPUs this process may use: those its affinity mask allows, lowered to its
    /// cgroup's CPU limit (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`,
    /// rounded up), at least 1.
    public static func availableCores() -> Int {
        var cores = affinityCPUs() ?? Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        if let limit = cgroupCPULimit() { cores = Swift.min(cores, limit) }
        return Swift.max(1, cores)
    }

    /// CPUs in this process's affinity mask (`Cpus_allowed_list` of /proc/self/status, the
    /// mask sched_getaffinity(2) returns).
    public static func affinityCPUs(status: String? = readFile("/proc/self/status")) -> Int? {
        guard let status else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
            return cpuListCount(String(line.dropFirst("Cpus_allowed_list:".count)))
        }
        return nil
    }

    /// How many CPUs a list such as `0-3,8,10-11` names; nil if it is not such a list.
    public static func cpuListCount(_ list: String) -> Int? {
        var count = 0
        for part in list.split(separator: ",") {
            let bounds = part.split(separator: "-").map { Int($0.filter { !$0.isWhitespace }) }
            switch bounds.count {
            case 1: guard bounds[0] != nil else { return nil }; count += 1
            case 2:
                guard let lo = bounds[0], let hi = bounds[1], hi >= lo else { return nil }
                count += hi - lo + 1
            default: return nil
            }
        }
        return count > 0 ? count : nil
    }

    /// The CPU limit of this process's cgroup and every cgroup above it (the smallest),
    /// rounded up to whole CPUs; nil when there is none. `root` is where the cgroup file
    /// systems are mounted, `membership` the text of /proc/self/cgroup.
    public static func cgroupCPULimit(root: String = "/sys/fs/cgroup",
                                      membership: String? = readFile("/proc/self/cgroup")) -> Int? {
        guard let membership else { return nil }
        var limit: Int?
        func lower(_ l: Int?) { if let l { limit = Swift.min(limit ?? l, l) } }
        for line in membership.split(separator: "\n") {
            // hierarchy-ID:controllers:path
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            let controllers = fields[1].split(separator: ",")
            let path = String(fields[2])
            if fields[0] == "0" && fields[1].isEmpty {
                // cgroup v2: cpu.max in the process's cgroup and each parent.
                for dir in ancestors(root, path) {
                    if let text = readFile(dir + "/cpu.max") { lower(cpuLimit(cpuMax: text)) }
                }
            } else if controllers.contains("cpu") {
                // cgroup v1: the cpu controller's mount, with or without the process's path
                // below it (inside a container the mount is the container's own cgroup).
                for mount in [root + "/" + fields[1], root + "/cpu,cpuacct", root + "/cpu"] {
                    for dir in ancestors(mount, path) {
                        if let quota = readFile(dir + "/cpu.cfs_quota_us"), let period = readFile(dir + "/cpu.cfs_period_us") {
                            lower(cpuLimit(quota: quota, period: period))
                        }
                    }
                }
            }
        }
        return limit
    }

    /// `base + path` and each directory above it up to `base`.
    private static func ancestors(_ base: String, _ path: String) -> [String] {
        var parts = path.split(separator: "/").map(String.init)
        var dirs: [String] = []
        while true {
            dirs.append(([base] + parts).joined(separator: "/"))
            if parts.isEmpty { break }
            parts.removeLast()
        }
        return dirs
    }

    /// CPUs a cgroup v2 `cpu.max` allows ("150000 100000" → 2); nil for "max".
    public static func cpuLimit(cpuMax: String) -> Int? {
        let f = cpuMax.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard f.count >= 1, let quota = Int(f[0]) else { return nil }
        let period = f.count >= 2 ? Int(f[1]) ?? 100_000 : 100_000
        return quotaCPUs(quota, period)
    }

    /// CPUs a cgroup v1 CFS quota allows; nil for -1 (no quota).
    public static func cpuLimit(quota: String, period: String) -> Int? {
        guard let q = Int(quota.filter { !$0.isWhitespace }), let p = Int(period.filter { !$0.isWhitespace }) else { return nil }
        return quotaCPUs(q, p)
    }

    private static func quotaCPUs(_ quota: Int, _ period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return Swift.max(1, (quota + period - 1) / period)
    }

    // MARK: Process figures

    /// The process figures of /proc, as Prometheus' process collector names them.
    public struct Figures: Equatable {
        public var cpuSeconds: Double
        public var residentBytes: Int
        public var virtualBytes: Int
        public var startTimeSeconds: Double
        public var openFDs: Int?
        public var maxFDs: Int?
    }

    /// This process's figures now; nil where /proc cannot be read.
    public static func figures() -> Figures? {
        guard let stat = readFile("/proc/self/stat"), var f = figures(stat: stat, bootTime: bootTime()) else { return nil }
        f.openFDs = openFDs()
        f.maxFDs = readFile("/proc/self/limits").flatMap(maxOpenFiles(limits:))
        return f
    }

    /// The figures in a /proc/PID/stat line (proc(5)): utime and stime (fields 14, 15),
    /// starttime (22) in clock ticks since boot, vsize (23) in bytes, rss (24) in pages.
    public static func figures(stat: String, bootTime: Int?, ticks: Int = Int(sysconf(Int32(_SC_CLK_TCK))),
                               pageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))) -> Figures? {
        // The command name (field 2) is in parentheses and may hold spaces and parentheses.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let f = stat[stat.index(after: close)...].split(separator: " ")
        // f[0] is field 3 (state), so field n is f[n - 3].
        guard f.count > 21, ticks > 0, let utime = Int(f[11]), let stime = Int(f[12]), let start = Int(f[19]),
              let vsize = Int(f[20]), let rss = Int(f[21]) else { return nil }
        let started = Double(bootTime ?? 0) + Double(start) / Double(ticks)
        return Figures(cpuSeconds: Double(utime + stime) / Double(ticks), residentBytes: rss * pageSize, virtualBytes: vsize,
                       startTimeSeconds: started, openFDs: nil, maxFDs: nil)
    }

    /// The soft limit of open files in a /proc/PID/limits text; nil when unlimited.
    public static func maxOpenFiles(limits: String) -> Int? {
        for line in limits.split(separator: "\n") where line.hasPrefix("Max open files") {
            let f = line.dropFirst("Max open files".count).split(separator: " ")
            return f.first.flatMap { Int($0) }
        }
        return nil
    }

    /// Seconds since the epoch when the machine booted (`btime` of /proc/stat).
    static func bootTime() -> Int? {
        guard let text = readFile("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Int(line.dropFirst(6).filter { !$0.isWhitespace })
        }
        return nil
    }

    /// Open file descriptors: the entries of /proc/self/fd (the one reading them included).
    static func openFDs() -> Int? {
        guard let dir = opendir("/proc/self/fd") else { return nil }
        defer { closedir(dir) }
        var n = 0
        while let entry = readdir(dir) {
            let dot = withUnsafeBytes(of: entry.pointee.d_name) { $0[0] == UInt8(ascii: ".") }
            if !dot { n += 1 }
        }
        return n
    }

    /// A small file's text (those of /proc and /sys report a size of 0, so read to the end).
    public static func readFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 20 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
