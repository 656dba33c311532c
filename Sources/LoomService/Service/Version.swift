/// Loom's version: the one place it is written. `loom --version` prints it, `/metrics`
/// reports it as `loom_build_info{version="…"} 1`, and CHANGELOG.md has a section per version.
public enum LoomVersion {
    public static let current = "0.12.0"
}
