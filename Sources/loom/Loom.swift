import ArgumentParser
import CMimalloc
import LoomService

@main
struct Loom: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loom",
        abstract: "Texture's layout engine as an HTTP service.",
        version: LoomVersion.current,
        subcommands: [ServeCommand.self, LayoutCommand.self, BenchCommand.self])

    static func main() {
        keepHeapForReuse()
        var command: ParsableCommand
        do {
            command = try parseAsRoot()
            try command.run()
        } catch {
            exit(withError: error)
        }
    }
}

/// The allocator answering malloc in this process: `loom` links mimalloc, which takes
/// malloc and free over for every library in the process when the dynamic linker finds it
/// before glibc (a layout allocates and frees one object per computed layout: 7–14 % less
/// layout time than glibc's malloc, README "Allocator").
enum Allocator {
    /// Whether memory from `malloc` is mimalloc's.
    static let isMimalloc: Bool = {
        guard let p = malloc(16) else { return false }
        defer { free(p) }
        return mi_is_in_heap_region(p)
    }()

    static var description: String {
        let v = Int(mi_version())
        let mimalloc = "mimalloc \(v / 100).\(v / 10 % 10).\(v % 10)"
        return isMimalloc ? mimalloc : "glibc malloc (\(mimalloc) linked but not in use)"
    }
}

/// Every request builds a tree, its layouts and its response (megabytes for large trees)
/// and frees them. glibc's defaults give buffers over 128 KiB their own mapping and hand
/// freed memory back to the kernel, so the next request page-faults it all in again
/// (the encoder of a 10,000-element tree spent half its time in page faults). Under glibc
/// (mimalloc not in use), keep allocations under 16 MiB in the heap and up to 64 MiB of
/// free heap for reuse.
func keepHeapForReuse() {
    #if canImport(Glibc)
    if Allocator.isMimalloc { return }
    // mallopt(3) is not in the Glibc module (malloc.h); found at run time instead.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    let M_TRIM_THRESHOLD: Int32 = -1, M_MMAP_THRESHOLD: Int32 = -3  // <malloc.h>
    _ = mallopt(M_MMAP_THRESHOLD, 16 << 20)
    _ = mallopt(M_TRIM_THRESHOLD, 64 << 20)
    #endif
}

#if canImport(Glibc)
import Glibc
#endif
