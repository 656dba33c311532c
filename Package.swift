// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "Loom",
    products: [
        .executable(name: "loom", targets: ["loom"]),
        .library(name: "LoomLayout", targets: ["LoomLayout"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // The layout engine: Texture's semantics, no I/O, no JSON.
        .target(name: "LoomLayout", path: "Sources/LoomLayout",
                // The engine's data is touched by one thread per element; dynamic exclusivity
                // checks cost ~10 % of layout time (perf) and guard nothing here.
                swiftSettings: [.unsafeFlags(["-enforce-exclusivity=unchecked"])]),

        // Text measurement with Pango (the only place that knows Pango).
        .systemLibrary(name: "CPango", path: "Sources/CPango", pkgConfig: "pangoft2",
                       providers: [.apt(["libpango1.0-dev"])]),
        // ICU's line breaker, for the dictionary breaks of Thai, Lao, Khmer and Myanmar.
        .target(name: "CICU", path: "Sources/CICU", linkerSettings: [.linkedLibrary("icuuc")]),
        .target(name: "LoomText", dependencies: ["LoomLayout", "CPango", "CICU"], path: "Sources/LoomText"),

        // HTTP glue on libmicrohttpd (the only place that knows libmicrohttpd).
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "LoomHTTP", dependencies: [
            "CMicroHTTPD",
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/LoomHTTP"),

        // SHA-256 from OpenSSL's libcrypto (the only place that knows OpenSSL).
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // Wire format, hashing, caches, pool, batch: no HTTP.
        .target(name: "LoomService", dependencies: [
            "LoomLayout", "COpenSSL",
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], path: "Sources/LoomService"),

        // Routes, HTTP metrics and the embedded resources: joins the service and HTTP.
        .target(name: "LoomServer", dependencies: [
            "LoomService", "LoomLayout", "LoomHTTP",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
        ], path: "Sources/LoomServer",
                resources: ["openapi.yaml", "openapi.json", "playground.html", "playground.js", "playground.css", "loom.js"].map { .embedInCode("Resources/\($0)") }
                    // Every file of examples/ (symlinked), for the playground; a test checks the set.
                    + ["button-with-icon", "header-with-left-right-justified-text", "photo-with-inset-text-overlay",
                       "photo-with-outset-icon-overlay", "ratio-photo-with-corner-badge", "simple-inset-text-cell",
                       "text-cell-title-subtitle", "top-bottom-separator-lines", "wrapped-tag-stack", "yoga-card-row",
                       "yoga-chip-absolute", "yoga-toolbar-in-stack"].map { .embedInCode("Resources/examples/\($0).json") }),

        // The allocator the executable runs on (the only place that knows mimalloc).
        .systemLibrary(name: "CMimalloc", path: "Sources/CMimalloc", providers: [.apt(["libmimalloc-dev"])]),

        .executableTarget(name: "loom", dependencies: [
            "LoomServer", "LoomService", "LoomLayout", "LoomText", "LoomHTTP", "CMimalloc",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Sources/loom"),


        .executableTarget(name: "LoomFuzz", dependencies: ["LoomService", "LoomLayout"], path: "Sources/LoomFuzz"),

        // What the test targets share: the fake text measurers, a raw HTTP client, JSON
        // helpers, polling, the seeded random source. Tests only: no product depends on it.
        .target(name: "LoomTestSupport", dependencies: [
            "LoomLayout", .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/LoomTestSupport"),

        .testTarget(name: "LoomLayoutTests", dependencies: ["LoomLayout", "LoomTestSupport"]),
        .testTarget(name: "LoomTextTests", dependencies: ["LoomText", "LoomLayout", "LoomTestSupport"]),
        .testTarget(name: "LoomServiceTests", dependencies: ["LoomService", "LoomLayout", "LoomText", "LoomTestSupport"]),
        .testTarget(name: "LoomHTTPTests", dependencies: [
            "LoomHTTP", "LoomTestSupport", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "LoomServerTests", dependencies: [
            "LoomServer", "LoomService", "LoomHTTP", "LoomText", "LoomLayout", "LoomTestSupport",
            .product(name: "Logging", package: "swift-log"),
        ]),
    ],
    swiftLanguageModes: [.v5]
)

// The Swift client library for apps (`LoomClient`) and its tests. Left out of builds of the
// server alone (LOOM_SERVER_ONLY=1: the fuzzing build and the static release build of
// scripts/run-system-tests.sh, `make release`, deploy/Dockerfile): SwiftPM builds every build
// plugin's tool of the package before any target, so the OpenAPI generator (Yams, OpenAPIKit)
// would be compiled for a binary that does not use it, more than half of a cold release build
// of `loom`; in the fuzzing build that tool would also be linked with libFuzzer's `main`.
if ProcessInfo.processInfo.environment["LOOM_SERVER_ONLY"] == nil {
    package.products.append(.library(name: "LoomClient", targets: ["LoomClient"]))
    package.dependencies += [
        .package(url: "https://github.com/apple/swift-openapi-generator", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    ]
    package.targets += [
        // The client library: request and response types generated from openapi.yaml at build
        // time, a builder in Texture's words on top, async/await over URLSession.
        .target(name: "LoomClient", dependencies: [
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ], path: "Sources/LoomClient",
                plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]),

        // The client against a real `loom serve` ($LOOM_BIN): no server module imported.
        .testTarget(name: "LoomClientTests", dependencies: [
            "LoomClient",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
    ]
}
