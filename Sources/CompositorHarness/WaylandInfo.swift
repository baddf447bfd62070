import Foundation

/// Reads outputs from `wayland-info` (package `wayland-utils`): works against any compositor, with no IPC.
enum WaylandInfo {
    /// Runs `wayland-info` with `environment` and returns its stdout.
    static func run(environment: [String: String], timeout: Double = 10) throws -> String {
        let process = try ChildProcess("wayland-info", [], environment: environment)
        let status = try process.waitForExit(timeout: timeout)
        guard status == 0 else {
            throw HarnessError("wayland-info failed with status \(status)", logTail: process.output)
        }
        return process.standardOutput
    }

    /// The `wl_output` globals, completed by `xdg_output` (name, logical position and size) where offered.
    static func outputs(from text: String) -> [CompositorOutput] {
        var outputs: [UInt32: CompositorOutput] = [:]
        // wayland-info prints globals in registry order, so xdg_output details may come before their wl_output.
        var xdgOutputs: [UInt32: CompositorOutput] = [:]
        var order: [UInt32] = []
        var current: UInt32?
        var currentXDG: UInt32?
        var inCurrentMode = false
        for rawLine in text.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("interface:") {
                currentXDG = nil
                current = nil
                if line.contains("'wl_output'"), let name = Self.value(after: "name:", in: line).flatMap(UInt32.init) {
                    current = name
                    order.append(name)
                    outputs[name] = CompositorOutput(
                        name: "wl_output-\(name)", mode: .init(width: 0, height: 0, refresh: 0),
                        rect: CompositorRect(x: 0, y: 0, width: 0, height: 0))
                }
                continue
            }
            if line.hasPrefix("output:"), let name = Self.value(after: "output:", in: line).flatMap(UInt32.init) {
                currentXDG = name
                continue
            }
            if let name = currentXDG {
                var xdg =
                    xdgOutputs[name]
                    ?? CompositorOutput(
                        name: "", mode: .init(width: 0, height: 0, refresh: 0),
                        rect: CompositorRect(x: 0, y: 0, width: 0, height: 0))
                if line.hasPrefix("name:") { xdg.name = Self.quoted(line) ?? "" }
                if line.hasPrefix("description:") { xdg.outputDescription = Self.quoted(line) }
                if let x = Self.int("logical_x:", line) { xdg.rect.x = x }
                if let y = Self.int("logical_y:", line) { xdg.rect.y = y }
                if let width = Self.int("logical_width:", line) { xdg.rect.width = width }
                if let height = Self.int("logical_height:", line) { xdg.rect.height = height }
                xdgOutputs[name] = xdg
                continue
            }
            guard let name = current else { continue }
            if line.hasPrefix("x:") {
                outputs[name]!.rect.x = Self.int("x:", line) ?? 0
                outputs[name]!.rect.y = Self.int("y:", line) ?? 0
                outputs[name]!.scale = Double(Self.int("scale:", line) ?? 1)
            } else if line.hasPrefix("make:") {
                let parts = line.split(separator: "'")
                if parts.count >= 4 {
                    outputs[name]!.make = String(parts[1])
                    outputs[name]!.model = String(parts[3])
                }
            } else if line.contains("output_transform:") {
                outputs[name]!.transform = Self.value(after: "output_transform:", in: line) ?? "normal"
            } else if line.hasPrefix("width:") {
                let mode = CompositorOutput.Mode(
                    width: Self.int("width:", line) ?? 0, height: Self.int("height:", line) ?? 0,
                    refresh: Int(((Double(Self.value(after: "refresh:", in: line) ?? "") ?? 0) * 1000).rounded()))
                if outputs[name]!.mode.width == 0 || inCurrentMode { outputs[name]!.mode = mode }
                inCurrentMode = false
            } else if line.hasPrefix("flags:") && line.contains("current") {
                inCurrentMode = true
            }
        }
        return order.compactMap { name in
            guard var output = outputs[name] else { return nil }
            if let xdg = xdgOutputs[name] {
                if !xdg.name.isEmpty { output.name = xdg.name }
                output.outputDescription = xdg.outputDescription ?? output.outputDescription
                if xdg.rect.width > 0 { output.rect = xdg.rect }
            }
            if output.rect.width == 0 {
                // No xdg_output: derive the logical size from the mode and integer scale.
                output.rect.width = output.mode.width / max(1, Int(output.scale))
                output.rect.height = output.mode.height / max(1, Int(output.scale))
            }
            return output
        }
    }

    /// The token after `key` up to the next comma or space: `value(after: "name:", in: "…, name: 12")` is "12".
    private static func value(after key: String, in line: String) -> String? {
        guard let range = line.range(of: key) else { return nil }
        let rest = line[range.upperBound...].drop { $0 == " " }
        let token = rest.prefix { $0 != "," && $0 != " " }
        return token.isEmpty ? nil : String(token)
    }

    private static func int(_ key: String, _ line: String) -> Int? {
        // Match the key at a word start, so "x:" does not match inside "logical_x:".
        var searchStart = line.startIndex
        while let range = line.range(of: key, range: searchStart..<line.endIndex) {
            if range.lowerBound == line.startIndex || line[line.index(before: range.lowerBound)] == " " {
                return value(after: key, in: String(line[range.lowerBound...])).flatMap(Int.init)
            }
            searchStart = range.upperBound
        }
        return nil
    }

    private static func quoted(_ line: String) -> String? {
        let parts = line.split(separator: "'", omittingEmptySubsequences: false)
        return parts.count >= 3 ? String(parts[1]) : nil
    }
}
