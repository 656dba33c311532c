/// Files served as they are, compiled into the binary (so the container needs no data files).
enum EmbeddedFiles {
    static let openapiYAML: [UInt8] = PackageResources.openapi_yaml
    /// openapi.yaml as JSON, made by `scripts/openapi-json.py` (its `x-source-fnv1a64` is the
    /// YAML's FNV-1a hash: a test fails when the two part).
    static let openapiJSON: [UInt8] = PackageResources.openapi_json
    static let playgroundHTML: [UInt8] = PackageResources.playground_html
}
