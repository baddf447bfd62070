// swift-tools-version:6.0
// Multiscreen: one application across every screen of a Wayland session.
// The module layout is explained in docs/architecture.md ("Modules in layers").
import Foundation
import PackageDescription

/// A C library found through pkg-config, wrapped by a local shim header in `Sources/<name>/shim.h`.
func systemLibrary(_ name: String, _ pkgConfig: String) -> Target {
    .systemLibrary(
        name: name, pkgConfig: pkgConfig,
        providers: [.apt([aptPackage[pkgConfig]!])])
}

let aptPackage = [
    "wayland-client": "libwayland-dev", "wayland-egl": "libwayland-dev", "egl": "libegl-dev",
    "glesv2": "libgles-dev", "xkbcommon": "libxkbcommon-dev", "pangocairo": "libpango1.0-dev",
    "libpng": "libpng-dev", "libqrencode": "libqrencode-dev",
]

/// The header search paths and definitions (`pkg-config --cflags`) of C libraries whose headers a target compiles
/// against without linking them. When pkg-config cannot answer, evaluating the manifest fails with its message: an
/// empty answer would be cached with the manifest and outlive installing the packages.
func pkgConfigHeaderFlags(_ packages: [String]) -> [String] {
    let pkgConfig = Process()
    pkgConfig.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    pkgConfig.arguments = ["pkg-config", "--cflags"] + packages
    let output = Pipe()
    let errors = Pipe()
    pkgConfig.standardOutput = output
    pkgConfig.standardError = errors
    let command = "pkg-config --cflags \(packages.joined(separator: " "))"
    do { try pkgConfig.run() } catch { fatalError("\(command): \(error) (scripts/dependencies installs pkg-config)") }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    pkgConfig.waitUntilExit()
    guard pkgConfig.terminationStatus == 0 else {
        fatalError("\(command) failed: \(complaint) (scripts/dependencies installs the packages)")
    }
    return text.split(whereSeparator: \.isWhitespace).map(String.init).filter {
        $0.hasPrefix("-I") || $0.hasPrefix("-D")
    }
}

/// WPE WebKit's headers, for CWebEngine's module: WebKit is opened with the first page, not linked
/// (Sources/COnDemandLibraries).
let webEngineHeaders = pkgConfigHeaderFlags(["wpe-webkit-1.1", "wpebackend-fdo-1.0", "wayland-server"])
/// GStreamer's and GdkPixbuf's headers, for CGStreamer and CGdkPixbuf: opened on first use too
/// (Sources/COnDemandLibraries), so their system library targets name no pkg-config package, whose library flags
/// SwiftPM would put on the link line.
let mediaHeaders = pkgConfigHeaderFlags([
    "gstreamer-app-1.0", "gstreamer-video-1.0", "gstreamer-pbutils-1.0", "gdk-pixbuf-2.0",
])
/// Both for the Swift compiler's C importer. Every Swift target that imports WebContent or Media, directly or through
/// another module (MultiscreenApp), loads their C modules' headers and must list these settings, or its build fails
/// with a header not found.
let importsOnDemandLibraries: [SwiftSetting] = [
    .unsafeFlags((webEngineHeaders + mediaHeaders).flatMap { ["-Xcc", $0] })
]

let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let atomics = Target.Dependency.product(name: "Atomics", package: "swift-atomics")

let package = Package(
    name: "multiscreen",
    products: [
        .executable(name: "multiscreen", targets: ["multiscreen"]),
        // The parsers of untrusted input, for the fuzz targets of Fuzz/Package.swift (scripts/fuzz).
        .library(name: "MultiscreenParsers", targets: ["Messaging", "Remote", "Screens", "RemoteRequests"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.2.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.24.0"),
        // Playlist assets by URL: the HTTP client and the checksum (docs/media.md, "Assets by URL").
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
    ],
    targets: [
        // C libraries.
        systemLibrary("CWaylandClient", "wayland-client"),
        systemLibrary("CWaylandEGL", "wayland-egl"),
        systemLibrary("CEGL", "egl"),
        systemLibrary("CGLES2", "glesv2"),
        systemLibrary("CXKBCommon", "xkbcommon"),
        systemLibrary("CPangoCairo", "pangocairo"),
        systemLibrary("CPNG", "libpng"),
        // sd_notify: readiness, watchdog and stopping for a systemd service, opened on first use (COnDemandLibraries)
        // and only under a service manager; its header is in /usr/include.
        .systemLibrary(name: "CSystemd"),
        // The fleet link's MQTT client, opened on first use (COnDemandLibraries); its header is in /usr/include.
        .systemLibrary(name: "CMosquitto"),
        // QR codes for the phone remote's access link.
        systemLibrary("CQREncode", "libqrencode"),
        // Web pages on screens: WPE WebKit and the wpebackend-fdo view backend whose frames we composite, opened when
        // the first page is shown (COnDemandLibraries).
        .systemLibrary(name: "CWebEngine"),
        // Images on screens: GdkPixbuf's loaders (PNG, JPEG, GIF, SVG through librsvg, WebP).
        .systemLibrary(name: "CGdkPixbuf"),
        // WPE WebKit, GStreamer, GdkPixbuf, libmosquitto and libsystemd opened at their first use, not linked
        // (include/COnDemandLibraries.h): their headers come from their system library targets, their functions from
        // trampolines here.
        .target(name: "COnDemandLibraries"),
        // Video on screens: GStreamer's core, appsink, video frames and missing-plugin descriptions (pbutils).
        .systemLibrary(name: "CGStreamer"),
        // eventfd, signalfd, timerfd, mallopt: Linux headers Glibc's module does not export.
        .systemLibrary(name: "CLinux"),
        // Generated by scripts/generate-protocols from protocols/*.xml.
        .target(name: "CWaylandProtocols", dependencies: ["CWaylandClient"]),

        // The vocabulary every layer shares, pure Swift: outputs and their changes, surface geometry, frame
        // scheduling and statistics, rectangles and colours. No C, no product rules.
        .target(name: "Outputs"),
        // When frames are drawn and shown: the frame scheduler, pacing, presentation timing, message latency, the
        // flash patch. Pure, like Outputs beneath it.
        .target(name: "FrameTiming", dependencies: ["Outputs"]),
        // The process's log handler: standard error, one flushed line per event, every call site rate-limited.
        .target(name: "Logs", dependencies: [logging]),
        // One way to make a system call: EINTR retried, errno captured at the call.
        .target(name: "SystemCalls", dependencies: ["CLinux"]),
        // Lock-free rings, the wakeup, messages, replies, events, reply sinks and their JSON codec. No Wayland.
        .target(name: "Messaging", dependencies: [atomics, "CLinux", "SystemCalls", "Outputs"]),
        // The local control socket (a thread speaking the codec's JSON lines into a producer) and its client.
        .target(name: "Remote", dependencies: ["Messaging", "CLinux", "SystemCalls", logging]),
        // What the phone remote checks and parses in a request (Host/Origin, form bodies) without the HTTP server: the
        // fuzz targets build it alone.
        .target(name: "RemoteRequests"),
        // The phone remote: an HTTP page and a WebSocket (Hummingbird, on its own event loop group) feeding a producer,
        // guarded by rotating single-use access codes with one controller at a time.
        .target(
            name: "PhoneRemote",
            dependencies: [
                "Messaging", "RemoteRequests", "Outputs", "SystemCalls", logging, "TOMLPrecheck", "ConfigFile",
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                // The WebSocket upgrade and frames, served on the remote's event loop (RemoteChannel, PhoneSocket).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
            ]),
        // Pure model: outputs, roles, content, cards, messages, state, the controller UI's state and layout.
        // No C imports of its own (TOMLKit reads the config), tests in milliseconds.
        .target(
            name: "Screens",
            dependencies: ["Outputs", "TOMLPrecheck", "ConfigFile", .product(name: "TOMLKit", package: "TOMLKit")]),
        // Reading config.toml once for every section's reader: the file's text, then its TOML tree, each refusal placed.
        .target(
            name: "ConfigFile", dependencies: ["TOMLPrecheck", .product(name: "TOMLKit", package: "TOMLKit")]),
        // The TOML table headers TOMLKit's bundled toml++ must not be given (they abort it or are undefined
        // behaviour), refused before it parses a config. Pure Swift.
        .target(name: "TOMLPrecheck"),
        // The product controller: executes typed requests against the model, returns typed replies, the events they
        // caused and what changed. Pure Swift, tested without a compositor.
        .target(
            name: "Product",
            dependencies: ["Screens", "Outputs", "FrameTiming", "Messaging", "SystemCalls", "ConfigFile", logging]),
        // The fleet link: an MQTT client (libmosquitto) on its own thread, one more message source with its own reply
        // sink, and the operator's side of the same topics.
        .target(
            name: "Fleet",
            dependencies: [
                "CMosquitto", "COnDemandLibraries", "Messaging", "CLinux", "SystemCalls", "TOMLPrecheck", "ConfigFile",
                logging,
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),
        // Text layout with Pango (bidi, line breaking, ellipsis, fontconfig fallback, HarfBuzz shaping) drawn by
        // cairo into premultiplied ARGB bitmaps, colour emoji included.
        .target(name: "TextRendering", dependencies: ["CPangoCairo"]),
        // EGL display/context/surfaces, GLES2 programs from shaders/, quads, textures.
        .target(
            name: "Rendering",
            dependencies: [
                "CEGL", "CGLES2", "CWaylandEGL", "CWaylandClient", "CQREncode", "CLinux", "TextRendering", "Outputs",
                "SystemCalls",
                logging,
            ]),
        // Web pages on screens: WPE views whose frames the renderer composites, GLib's main context in the display
        // thread's poll, and each page's bridge into the bus (a producer with its own reply sink).
        .target(
            name: "WebContent",
            dependencies: [
                "CWebEngine", "COnDemandLibraries", "Messaging", "TOMLPrecheck", "ConfigFile",
                .product(name: "TOMLKit", package: "TOMLKit"), logging,
            ],
            swiftSettings: importsOnDemandLibraries),
        // Images and video decoded into memory the compositor can share (memfds of XRGB8888): GdkPixbuf for stills and
        // animations, one GStreamer pipeline per playing file. No Wayland.
        .target(
            name: "Media",
            dependencies: [
                "CGdkPixbuf", "CGStreamer", "COnDemandLibraries", "CPNG", "SystemCalls", "CLinux", "Outputs", logging,
            ],
            swiftSettings: importsOnDemandLibraries),
        // Playlist assets by URL: fetched ahead on their own event loop (AsyncHTTPClient) into a size-bounded cache,
        // checked (swift-crypto's SHA-256) and renamed into place whole. No Wayland, no product rules.
        .target(
            name: "Assets",
            dependencies: [
                "Messaging", "SystemCalls", "ConfigFile", logging, .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // Swift owners of Wayland objects and the display thread's event loop.
        .target(
            name: "Wayland",
            dependencies: [
                "CWaylandClient", "CWaylandProtocols", "CXKBCommon", "CLinux", "Outputs", "FrameTiming", "SystemCalls",
                logging,
            ]),
        // The application on the display thread: the wiring of outputs, screens, the product controller, input,
        // rendering and the bus. Transports (the control socket, …) are handed in as message sources.
        .target(
            name: "MultiscreenApp",
            dependencies: [
                "Wayland", "Rendering", "TextRendering", "Product", "Screens", "Outputs", "FrameTiming", "Messaging",
                "CLinux", "CSystemd", "COnDemandLibraries", "SystemCalls", "WebContent", "Media", "Assets", logging,
            ],
            swiftSettings: importsOnDemandLibraries),
        // Private compositors (headless sway, nested sway, weston, cage) and screenshots, for tests and `demo`.
        .target(name: "CompositorHarness", dependencies: ["CPNG", "Outputs", "SystemCalls", logging]),
        // `multiscreen latency`'s report: per-output percentiles (HdrHistogram), the JSON document and the SVG plots.
        // Pure Swift, tested without a compositor.
        .target(
            name: "LatencyReport",
            dependencies: ["Messaging", .product(name: "Histogram", package: "hdrhistogram-swift")]),
        // Benchmarks behind `multiscreen bench`.
        .target(
            name: "Benchmarks",
            dependencies: [
                "Messaging", "Remote", "CompositorHarness", "Fleet", "Outputs", "FrameTiming", logging,
                .product(name: "DequeModule", package: "swift-collections"),
            ]),
        .executableTarget(
            name: "multiscreen",
            dependencies: [
                "MultiscreenApp", "Screens", "Outputs", "FrameTiming", "Messaging", "CompositorHarness", "Benchmarks",
                "Remote",
                "LatencyReport", "Fleet", "PhoneRemote", "WebContent", "Logs", "SystemCalls", "Wayland", "TOMLPrecheck",
                "Product", "Assets", "Rendering",
                logging,
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: importsOnDemandLibraries),
        // ThreadSanitizer stress run of the rings (scripts/tsan-stress), including a broken canary ring.
        .executableTarget(name: "ring-stress", dependencies: ["Messaging"]),
        // Test support: a hand-written client of wlroots' virtual pointer protocol, so tests hold a pointer device.
        // A regular target (test targets cannot be dependencies); it lives under Tests/ because only tests use it.
        .target(name: "CVirtualPointer", dependencies: ["CWaylandClient"], path: "Tests/CVirtualPointer"),

        .testTarget(name: "MessagingTests", dependencies: ["Messaging", "SystemCalls", "Outputs", atomics]),
        .testTarget(name: "LogsTests", dependencies: ["Logs", logging]),
        .testTarget(name: "RemoteTests", dependencies: ["Remote", "Messaging", "CompositorHarness"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet", "Messaging", "CompositorHarness"]),
        .testTarget(
            name: "PhoneRemoteTests",
            dependencies: [
                "PhoneRemote", "Messaging", "Outputs",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        .testTarget(name: "OutputsTests", dependencies: ["Outputs"]),
        .testTarget(name: "FrameTimingTests", dependencies: ["FrameTiming", "Outputs"]),
        .testTarget(
            name: "WebContentTests", dependencies: ["WebContent", "Messaging", logging],
            swiftSettings: importsOnDemandLibraries
        ),
        // The same requests through every transport (socket, fleet, phone, page), answered alike.
        .testTarget(
            name: "TransportTests",
            dependencies: ["Remote", "Fleet", "PhoneRemote", "WebContent", "Messaging", "CompositorHarness"],
            swiftSettings: importsOnDemandLibraries),
        .testTarget(name: "ScreensTests", dependencies: ["Screens", "Outputs", "TOMLPrecheck"]),
        .testTarget(
            name: "ProductTests",
            dependencies: ["Product", "Screens", "Outputs", "FrameTiming", "Messaging", "CompositorHarness", logging]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks"]),
        .testTarget(name: "LatencyReportTests", dependencies: ["LatencyReport", "Messaging"]),
        .testTarget(
            name: "WaylandTests",
            dependencies: [
                "Wayland", "CompositorHarness", "CVirtualPointer", "CWaylandClient", "CWaylandProtocols", "CXKBCommon",
                "Messaging",
            ]),
        .testTarget(
            name: "MultiscreenAppTests", dependencies: ["MultiscreenApp", "Wayland", "Messaging", "CompositorHarness"],
            swiftSettings: importsOnDemandLibraries),
        .testTarget(name: "TextRenderingTests", dependencies: ["TextRendering"]),
        .testTarget(name: "RenderingTests", dependencies: ["Rendering"]),
        .testTarget(
            name: "AssetsTests",
            dependencies: [
                "Assets", "Messaging", logging,
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .testTarget(
            name: "MediaTests", dependencies: ["Media", "SystemCalls", "CompositorHarness"],
            swiftSettings: importsOnDemandLibraries),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "CompositorHarness", "Screens", "Outputs", "Remote", "Messaging", "Wayland", "CVirtualPointer", "Fleet",
                "CWaylandClient",
            ]),
    ]
)
