// swift-tools-version:6.0
// libFuzzer targets for Multiscreen's parsers (reliability R9). A package of its own so the main build never sees
// `-sanitize=fuzzer`: each target is an executable whose `main` is libFuzzer's. Build and run with `scripts/fuzz`.
import PackageDescription

let parsers = Target.Dependency.product(name: "MultiscreenParsers", package: "multiscreen")

let package = Package(
    name: "multiscreen-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "multiscreen", path: "..")],
    targets: [
        // The control socket's JSON request codec (also the fleet link's and the phone remote's).
        .executableTarget(name: "FuzzMessageCodec", dependencies: [parsers]),
        // The control socket's line framer, fed the same bytes in one piece and in random pieces.
        .executableTarget(name: "FuzzLineFramer", dependencies: [parsers]),
        // config.toml: the role rules and the theme.
        .executableTarget(name: "FuzzRoleConfig", dependencies: [parsers]),
        // state.json through the real loader (a file in a private directory), then saved and loaded again.
        .executableTarget(name: "FuzzStateLoader", dependencies: [parsers]),
        // The phone remote's own request reading: form bodies, the Host/Origin check, WebSocket JSON frames.
        .executableTarget(name: "FuzzRemoteRequest", dependencies: [parsers]),
    ]
)
