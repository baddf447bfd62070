import CVirtualPointer
import CWaylandClient
import CompositorHarness
import Outputs
import Screens
import Testing

@testable import Wayland

/// The test process as a second client of the sway `multiscreen run` is a client of: it binds the seat, the outputs
/// and `zwlr_virtual_pointer_manager_v1`, and holds one virtual pointer device per output it points at (created with
/// `create_virtual_pointer_with_output`, so absolute positions are that output's pixels) until it is destroyed.
/// Everything is sent and handled by sway before each method returns (a roundtrip).
private final class PointerDevices {
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
}

/// Pointer presses drive the controller UI of a real `multiscreen run`: the test's own virtual pointer clicks the
/// controller's Send button and a screen's row, at the places ``ControllerLayout`` puts them.
@Suite(.serialized) struct PointerTests {
    static let focusRing = RGB(hex: 0xFA_CC_15)

    @Test func clicksSendTheMessageAndCycleAScreensContent() throws {
        // While sway 1.7 draws a (software) cursor, grim keeps getting the frame of the other outputs from before the
        // pointer device appeared, though the app commits new ones: sway hides the idle cursor after 100 ms here.
        let sway = try HeadlessSway(outputs: 3, width: 640, height: 360, extraConfig: "seat * hide_cursor 100")
        let app = try MultiscreenProcess(environment: sway.environment)
        try app.waitForLogCount("first frame committed on", count: 3)
        let pointer = try PointerDevices(sway)
        let layout = ControllerLayout(width: 640, height: 360, rowCount: 3)
        let externals = ["HEADLESS-2", "HEADLESS-3"]
        let before = try externals.enumerated().map { index, name in
            try sway.waitForScreenshot(name) { showsScreen($0, index: index + 1) }
        }

        // Type into the field (a sleeping wtype keeps the seat's keyboard, see ControllerTests), then click Send.
        let holder = try ChildProcess("wtype", ["-s", "600000"], environment: sway.environment)
        defer { holder.kill() }
        try app.waitForLog("seat: keyboard")
        try pointer.device(on: "HEADLESS-1")
        try app.waitForLog("seat: keyboard, pointer")
        let typist = try ChildProcess("wtype", ["clicked hello"], environment: sway.environment)
        #expect(try typist.waitForExit(timeout: 10) == 0)
        try pointer.click(layout.sendButton, on: "HEADLESS-1")
        try app.waitForLog("message #1 for every screen: clicked hello")
        for (index, name) in externals.enumerated() {
            try sway.waitForScreenshot(name, "\(name) showing the message") {
                showsScreen($0, index: index + 1) && $0.fraction(differingFrom: before[index]) > 0.01
            }
        }

        // HEADLESS-2's row: messages → mirror, and HEADLESS-2 shows the controller UI.
        try pointer.click(layout.rows[1], on: "HEADLESS-1")
        try app.waitForLog("HEADLESS-2: content messages → mirror")
        try sway.waitForScreenshot("HEADLESS-2", "HEADLESS-2 mirroring the controller") { mirror in
            guard let controller = try? sway.screenshot("HEADLESS-1") else { return false }
            return mirror.fraction(of: Self.focusRing) > 0.001 && mirror.fraction(differingFrom: controller) < 0.05
        }
        // Over an external screen the cursor is hidden (the Seat sends wl_pointer.set_cursor(nil), see SeatTests).
        try pointer.move(to: "HEADLESS-3", x: 100, y: 100)
        try app.waitForLog("cursor hidden over HEADLESS-3")
        #expect(!app.log.contains("cursor hidden over HEADLESS-1"))
        #expect(app.process.isRunning)
        #expect(!app.log.contains("protocol error"))
    }
}
