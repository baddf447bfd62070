import Foundation

/// The parts of sway's IPC JSON the harness reads. Field names are sway's (`man 7 sway-ipc`) in camel case.
enum SwayJSON {
    /// sway's keys are snake_case (`current_mode`, `app_id`).
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    struct Rect: Decodable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int

        var rect: CompositorRect { CompositorRect(x: x, y: y, width: width, height: height) }
    }

    struct Output: Decodable {
        struct Mode: Decodable {
            var width: Int
            var height: Int
            var refresh: Int
        }

        var name: String
        var description: String?
        var make: String?
        var model: String?
        var serial: String?
        var active: Bool?
        var currentMode: Mode?
        var scale: Double?
        var transform: String?
        var rect: Rect
        var focused: Bool?
        var currentWorkspace: String?
        var dpms: Bool?
    }

    final class Node: Decodable {
        var id: Int
        var type: String
        var name: String?
        var appId: String?
        var pid: Int32?
        var rect: Rect
        var focused: Bool?
        var fullscreenMode: Int?
        var visible: Bool?
        var inhibitIdle: Bool?
        var nodes: [Node]?
        var floatingNodes: [Node]?
    }

    static func outputs(from json: String) throws -> [CompositorOutput] {
        let decoded: [Output]
        do {
            decoded = try decoder.decode([Output].self, from: Data(json.utf8))
        } catch {
            throw HarnessError("cannot parse sway's get_outputs reply: \(error)", logTail: String(json.prefix(2000)))
        }
        return decoded.map { output in
            let mode = output.currentMode.map {
                CompositorOutput.Mode(width: $0.width, height: $0.height, refresh: $0.refresh)
            }
            return CompositorOutput(
                name: output.name, outputDescription: output.description, make: output.make ?? "",
                model: output.model ?? "", serial: output.serial ?? "", active: output.active ?? true,
                mode: mode ?? CompositorOutput.Mode(width: 0, height: 0, refresh: 0), scale: output.scale ?? 1,
                transform: output.transform ?? "normal", rect: output.rect.rect, focused: output.focused ?? false,
                currentWorkspace: output.currentWorkspace, isPoweredOn: output.dpms ?? true)
        }
    }

    /// Every view in the tree (a container with a `pid`), with the output and workspace it is on.
    static func windows(from json: String) throws -> [WindowInfo] {
        let root: Node
        do {
            root = try decoder.decode(Node.self, from: Data(json.utf8))
        } catch {
            throw HarnessError("cannot parse sway's get_tree reply: \(error)", logTail: String(json.prefix(2000)))
        }
        var windows: [WindowInfo] = []
        func walk(_ node: Node, output: String, workspace: String?, floating: Bool) {
            var output = output
            var workspace = workspace
            switch node.type {
            case "output": output = node.name ?? ""
            case "workspace": workspace = node.name
            default: break
            }
            if node.pid != nil && (node.type == "con" || node.type == "floating_con") {
                windows.append(
                    WindowInfo(
                        id: node.id, appID: node.appId, title: node.name, output: output, workspace: workspace,
                        rect: node.rect.rect, pid: node.pid, isFloating: floating || node.type == "floating_con",
                        isFocused: node.focused ?? false, isFullscreen: (node.fullscreenMode ?? 0) != 0,
                        isVisible: node.visible ?? false, inhibitsIdle: node.inhibitIdle ?? false))
            }
            for child in node.nodes ?? [] { walk(child, output: output, workspace: workspace, floating: floating) }
            for child in node.floatingNodes ?? [] { walk(child, output: output, workspace: workspace, floating: true) }
        }
        walk(root, output: "", workspace: nil, floating: false)
        return windows
    }
}
