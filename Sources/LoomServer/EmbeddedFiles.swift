/// Files served as they are, compiled into the binary (so the container needs no data files).
enum EmbeddedFiles {
    static let openapiYAML: [UInt8] = PackageResources.openapi_yaml
    static let playgroundHTML: [UInt8] = PackageResources.playground_html
}
