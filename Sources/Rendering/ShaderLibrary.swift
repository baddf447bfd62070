import Foundation

/// Finds the GLSL sources in `shaders/`, wherever the binary runs from.
///
/// Searched in order: `$MULTISCREEN_SHADERS`; `<prefix>/share/multiscreen/shaders` next to an installed
/// `<prefix>/bin/multiscreen`; `shaders/` beside the binary; and the source tree this binary was built from
/// (so `.build/debug/multiscreen` works from any working directory during development).
public struct ShaderLibrary: Sendable {
    public let directory: String

    /// - Throws: ``RenderingError/shaderNotFound(name:searched:)`` listing every place looked at.
    public init(probe: String = "quad.vert") throws {
        let candidates = Self.candidates()
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/" + probe) }) else {
            throw RenderingError.shaderNotFound(name: probe, searched: candidates)
        }
        directory = found
    }

    public func source(_ name: String) throws -> String {
        let path = directory + "/" + name
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw RenderingError.shaderNotFound(name: name, searched: [directory])
        }
        return text
    }

    static func candidates() -> [String] {
        var list: [String] = []
        if let env = ProcessInfo.processInfo.environment["MULTISCREEN_SHADERS"], !env.isEmpty { list.append(env) }
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let bin = (exe as NSString).deletingLastPathComponent
            list.append(
                ((bin as NSString).deletingLastPathComponent as NSString)
                    .appendingPathComponent("share/multiscreen/shaders"))
            list.append((bin as NSString).appendingPathComponent("shaders"))
        }
        // Sources/Rendering/ShaderLibrary.swift → <package root>/shaders
        let root = ((#filePath as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
        list.append((((root as NSString).deletingLastPathComponent) as NSString).appendingPathComponent("shaders"))
        return list
    }
}
