// swift-tools-version:6.0
// libFuzzer targets for Multiscreen's parsers (reliability R9). A package of its own so the main build never sees
// `-sanitize=fuzzer`: each target is an executable whose `main` is libFuzzer's. Build and run with `scripts/fuzz`.
import PackageDescription

let parsers = Target.Dependency.product(name: "MultiscreenParsers", package: "multiscreen")

let package = Package(
    name: "multiscreen-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "multiscreen", path: ".."),
        // The same SwiftNIO and HTTPTypes bridge the remote serves with (resolved together with the root package's).
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
    ],
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
        // The phone remote's HTTP/1.1 request heads through NIO's decoder and the HTTPTypes bridge into its own
        // request checks (Host/Origin, session cookie, link code, form body), on an EmbeddedChannel.
        .executableTarget(
            name: "FuzzRemoteHTTP",
            dependencies: [
                parsers, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ]),
        // The phone remote's WebSocket frames through NIO's frame decoder and error handler into its own reading of
        // messages (size limit, UTF-8, close codes), on an EmbeddedChannel.
        .executableTarget(
            name: "FuzzRemoteFrames",
            dependencies: [
                parsers, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]),
    ]
)
