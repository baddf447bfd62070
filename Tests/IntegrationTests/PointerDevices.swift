import CVirtualPointer
import CWaylandClient
import CompositorHarness
import Outputs
import Testing

@testable import Wayland

/// The test process as a second client of the sway `multiscreen run` is a client of: it binds the seat, the outputs
/// and `zwlr_virtual_pointer_manager_v1`, and holds one virtual pointer device per output it points at (created with
/// `create_virtual_pointer_with_output`, so absolute positions are that output's pixels) until it is destroyed.
/// Everything is sent and handled by sway before each method returns (a roundtrip).
final class PointerDevices {
    private let display: WaylandDisplay
    private let registry: Registry
    private var seat: OpaquePointer?
    private var manager: OpaquePointer?
    /// Bound outputs and the connector names their `name` event (wl_output v4) gave.
    private var outputs: [(output: Output, name: String)] = []
    private let layout: [CompositorOutput]
    private var devices: [String: OpaquePointer] = [:]
    /// Event timestamps in milliseconds, increasing.
    private var time: UInt32 = 0

    init(_ sway: HeadlessSway) throws {
        layout = try sway.outputs()
        display = try WaylandDisplay(name: sway.waylandSocketPath)
        registry = Registry(display: display)
        registry.onGlobal = { [unowned self] name, interface, _ in
            switch interface {
            case "wl_seat" where seat == nil:
                seat = registry.bind(name, interface: ms_wl_seat_interface(), supported: 1)?.proxy
            case "zwlr_virtual_pointer_manager_v1":
                manager = registry.bind(name, interface: cvp_manager_interface(), supported: 2)?.proxy
            case "wl_output":
                guard let output = Output(registry: registry, name: name) else { return }
                let index = outputs.count
                outputs.append((output, ""))
                output.onEvent = { [unowned self] in if case .name(let name) = $0 { outputs[index].name = name } }
            default:
                break
            }
        }
        try display.roundtrip()  // the globals, and our binds
        try display.roundtrip()  // the outputs' events
    }

    deinit {
        for device in devices.values { cvp_pointer_destroy(device) }
        if let manager { cvp_manager_destroy(manager) }
        for output in outputs { output.output.destroy() }
        if let seat { wl_seat_destroy(seat) }
        try? display.roundtrip()
        registry.destroy()
        display.disconnect()
    }

    /// The device whose absolute positions are `name`'s pixels: created on first use, kept for the test.
    @discardableResult
    func device(on name: String) throws -> OpaquePointer {
        if let device = devices[name] { return device }
        let manager = try #require(manager, "sway 1.7 offers zwlr_virtual_pointer_manager_v1")
        let output = try #require(outputs.first { $0.name == name }?.output.proxy, "\(name) in \(outputs.map(\.name))")
        let device = try #require(
            cvp_manager_create_virtual_pointer_with_output(manager, seat, output),
            "create_virtual_pointer_with_output (manager version 2)")
        devices[name] = device
        try display.roundtrip()
        return device
    }

    private func nextTime() -> UInt32 {
        time += 1
        return time
    }

    /// Moves the pointer to (x, y) in `output`'s pixels, as one frame.
    func move(to output: String, x: Float, y: Float) throws {
        let device = try device(on: output)
        let rect = try #require(layout.first { $0.name == output }?.rect)
        cvp_pointer_motion_absolute(device, nextTime(), UInt32(x), UInt32(y), UInt32(rect.width), UInt32(rect.height))
        cvp_pointer_frame(device)
        try display.roundtrip()
    }

    /// Moves to the centre of `rect` (in `output`'s pixels) and clicks the left button there: press, release, each a
    /// frame.
    func click(_ rect: Rect, on output: String) throws {
        try move(to: output, x: rect.x + rect.width / 2, y: rect.y + rect.height / 2)
        let device = try device(on: output)
        for state in [WL_POINTER_BUTTON_STATE_PRESSED, WL_POINTER_BUTTON_STATE_RELEASED] {
            cvp_pointer_button(device, nextTime(), PointerButton.left, state.rawValue)
            cvp_pointer_frame(device)
        }
        try display.roundtrip()
    }

    /// Scrolls by `value` (positive: down) on the vertical axis where the pointer is, as a wheel would, in one frame.
    func scroll(on output: String, by value: Double) throws {
        let device = try device(on: output)
        cvp_pointer_axis_source(device, WL_POINTER_AXIS_SOURCE_WHEEL.rawValue)
        cvp_pointer_axis(device, nextTime(), WL_POINTER_AXIS_VERTICAL_SCROLL.rawValue, value)
        cvp_pointer_frame(device)
        try display.roundtrip()
    }
}
