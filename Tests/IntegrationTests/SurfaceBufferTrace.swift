import Foundation

/// What a client committed, read off its own `WAYLAND_DEBUG=1` trace: for every fullscreen window, each buffer it
/// attached and committed, checked against what the compositor had told it by then (the toplevel's configured size
/// and its output's scale).
///
/// This is the client's wire traffic as libwayland wrote it, so it sees Mesa's buffers (`wl_shm_pool.create_buffer`)
/// exactly as the compositor gets them, not what Multiscreen believes it drew.
struct SurfaceBufferTrace {
    /// One committed buffer that came later than allowed after a change, or had a size its scale does not divide.
    struct Violation: CustomStringConvertible {
        var output: String
        var line: Int
        var what: String
        var description: String { "\(output), trace line \(line): \(what)" }
    }

    /// Per output name: the buffers committed, in order (width, height, buffer scale), each with the regions the
    /// commit damaged in buffer coordinates (`wl_surface.damage_buffer`).
    private(set) var committed: [String: [(width: Int, height: Int, scale: Int, damage: [DamagedRegion])]] = [:]

    struct DamagedRegion: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }
    /// Buffers committed with the wrong size more than `allowedStaleCommits` commits after the change that made
    /// them wrong.
    private(set) var late: [Violation] = []
    /// Buffers whose width or height the buffer scale does not divide (the protocol error other compositors raise).
    private(set) var scaleErrors: [Violation] = []
    /// Changes of the expected size seen (configure or scale), over all outputs.
    private(set) var changes = 0
    /// The most buffers committed after a change before one had the right size (1 = the first was right).
    private(set) var worstCommitsToRightSize = 0

    let allowedStaleCommits: Int

    private struct Surface {
        var output: UInt32?
        var configured: (width: Int, height: Int)?
        var bufferScale = 1
        var attached: UInt32?
        var damage: [DamagedRegion] = []
        var expected: (width: Int, height: Int, scale: Int)?
        /// Buffers committed since `expected` last changed, and whether one of them was right yet.
        var commitsSinceChange = 0
        var rightSinceChange = true
    }

    private var surfaces: [UInt32: Surface] = [:]
    private var xdgSurfaceOf: [UInt32: UInt32] = [:]  // xdg_surface → wl_surface
    private var toplevelOf: [UInt32: UInt32] = [:]  // xdg_toplevel → wl_surface
    private var buffers: [UInt32: (width: Int, height: Int)] = [:]
    private var outputScale: [UInt32: Int] = [:]
    private var outputName: [UInt32: String] = [:]
    private var xdgOutputOf: [UInt32: UInt32] = [:]  // zxdg_output_v1 → wl_output

    init(_ log: String, allowedStaleCommits: Int = 3) {
        self.allowedStaleCommits = allowedStaleCommits
        for (number, line) in log.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            guard let message = Message(line) else { continue }
            apply(message, line: number + 1)
        }
    }

    /// One traced request (`-> wl_surface@3.commit()`) or event (`wl_output@12.scale(2)`).
    private struct Message {
        var interface: Substring
        var id: UInt32
        var name: Substring
        var arguments: [Substring]

        init?(_ line: Substring) {
            // "[1234.567]  -> wl_surface@3.attach(wl_buffer@40, 0, 0)"; events lack the arrow.
            guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
            var rest = line[line.index(after: close)...].drop { $0 == " " }
            if rest.hasPrefix("-> ") { rest = rest.dropFirst(3) }
            guard let at = rest.firstIndex(of: "@"), let dot = rest[at...].firstIndex(of: "."),
                let open = rest[dot...].firstIndex(of: "("), rest.last == ")",
                let id = UInt32(rest[rest.index(after: at)..<dot])
            else { return nil }
            interface = rest[..<at]
            self.id = id
            name = rest[rest.index(after: dot)..<open]
            let inside = rest[rest.index(after: open)..<rest.index(before: rest.endIndex)]
            arguments = inside.split(separator: ",").map { $0.drop { $0 == " " } }
        }

        /// The object id in an argument such as `new id wl_buffer@40` or `wl_output@12`.
        func object(_ index: Int) -> UInt32? {
            guard index < arguments.count, let at = arguments[index].lastIndex(of: "@") else { return nil }
            return UInt32(arguments[index][arguments[index].index(after: at)...])
        }

        func integer(_ index: Int) -> Int? { index < arguments.count ? Int(arguments[index]) : nil }

        func text(_ index: Int) -> String? {
            guard index < arguments.count else { return nil }
            return String(arguments[index].trimmingCharacters(in: CharacterSet(charactersIn: "\"")))
        }
    }

    private mutating func apply(_ m: Message, line: Int) {
        switch (m.interface, m.name) {
        case ("wl_compositor", "create_surface"):
            if let id = m.object(0) { surfaces[id] = Surface() }
        case ("xdg_wm_base", "get_xdg_surface"):
            if let id = m.object(0), let surface = m.object(1) { xdgSurfaceOf[id] = surface }
        case ("xdg_surface", "get_toplevel"):
            if let id = m.object(0), let surface = xdgSurfaceOf[m.id] { toplevelOf[id] = surface }
        case ("xdg_toplevel", "set_fullscreen"):
            if let surface = toplevelOf[m.id], let output = m.object(0) {
                surfaces[surface]?.output = output
                updateExpected(surface)
            }
        case ("xdg_toplevel", "configure"):
            if let surface = toplevelOf[m.id], let width = m.integer(0), let height = m.integer(1), width > 0,
                height > 0
            {
                surfaces[surface]?.configured = (width, height)
                updateExpected(surface)
            }
        case ("wl_output", "scale"):
            if let scale = m.integer(0) {
                outputScale[m.id] = scale
                for (surface, state) in surfaces where state.output == m.id { updateExpected(surface) }
            }
        case ("wl_output", "name"):
            outputName[m.id] = m.text(0)
        case ("zxdg_output_manager_v1", "get_xdg_output"):
            if let id = m.object(0), let output = m.object(1) { xdgOutputOf[id] = output }
        case ("zxdg_output_v1", "name"):
            if let output = xdgOutputOf[m.id], outputName[output] == nil { outputName[output] = m.text(0) }
        case ("wl_shm_pool", "create_buffer"):
            if let id = m.object(0), let width = m.integer(2), let height = m.integer(3) {
                buffers[id] = (width, height)
            }
        case ("wl_surface", "attach"):
            surfaces[m.id]?.attached = m.object(0)
        case ("wl_surface", "damage_buffer"):
            if let x = m.integer(0), let y = m.integer(1), let width = m.integer(2), let height = m.integer(3) {
                surfaces[m.id]?.damage.append(DamagedRegion(x: x, y: y, width: width, height: height))
            }
        case ("wl_surface", "set_buffer_scale"):
            if let scale = m.integer(0) { surfaces[m.id]?.bufferScale = scale }
        case ("wl_surface", "commit"):
            commit(m.id, line: line)
        case ("wl_surface", "destroy"):
            surfaces[m.id] = nil
        default:
            break
        }
    }

    private mutating func updateExpected(_ id: UInt32) {
        guard var surface = surfaces[id], let output = surface.output, let size = surface.configured else { return }
        let scale = outputScale[output] ?? 1
        let expected = (width: size.width * scale, height: size.height * scale, scale: scale)
        if let old = surface.expected, old == expected { return }
        surface.expected = expected
        surface.commitsSinceChange = 0
        surface.rightSinceChange = false
        changes += 1
        surfaces[id] = surface
    }

    private mutating func commit(_ id: UInt32, line: Int) {
        guard var surface = surfaces[id], let buffer = surface.attached.flatMap({ buffers[$0] }) else {
            surfaces[id]?.damage = []
            return
        }
        surface.attached = nil
        let name = surface.output.flatMap { outputName[$0] } ?? "surface \(id)"
        committed[name, default: []].append((buffer.width, buffer.height, surface.bufferScale, surface.damage))
        surface.damage = []
        if buffer.width % surface.bufferScale != 0 || buffer.height % surface.bufferScale != 0 {
            scaleErrors.append(
                Violation(
                    output: name, line: line,
                    what: "buffer \(buffer.width)x\(buffer.height) at buffer scale \(surface.bufferScale)"))
        }
        if let expected = surface.expected {
            surface.commitsSinceChange += 1
            if buffer.width == expected.width && buffer.height == expected.height
                && surface.bufferScale == expected.scale
            {
                if !surface.rightSinceChange {
                    surface.rightSinceChange = true
                    worstCommitsToRightSize = max(worstCommitsToRightSize, surface.commitsSinceChange)
                }
            } else if surface.commitsSinceChange > allowedStaleCommits {
                late.append(
                    Violation(
                        output: name, line: line,
                        what:
                            "buffer \(buffer.width)x\(buffer.height) scale \(surface.bufferScale) is commit \(surface.commitsSinceChange) since the change to \(expected.width)x\(expected.height) scale \(expected.scale)"
                    ))
            }
        }
        surfaces[id] = surface
    }
}
