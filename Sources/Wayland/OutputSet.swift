import Logging
import Outputs

/// The only owner of the bound `wl_output`s (and their `zxdg_output_v1`s) and of the ``OutputTracker`` that turns
/// their events into whole outputs. Everything above sees ``OutputInfo`` values and ``OutputChange``s, keyed by
/// registry name; the proxies stay here.
///
/// An output is bound in ``bind(_:name:)`` (from `wl_registry.global`) and destroyed in ``remove(name:)`` (from
/// `global_remove`), after ``onChange`` has let the application tear down the window on it, or in ``destroy()``
/// at exit, last bound first.
public final class OutputSet {
    /// A complete output appeared, changed or went away: called at `done`, or at `global_remove`.
    public var onChange: (OutputChange) -> Void = { _ in }

    private var bound: [UInt32: Output] = [:]
    /// Registry names in binding order, for teardown in reverse.
    private var order: [UInt32] = []
    private var tracker = OutputTracker()
    private var xdgOutputManager: OpaquePointer?
    private let logger = Logger(label: "multiscreen")

    public init() {}

    /// Every complete output, in natural name order (HEADLESS-2 before HEADLESS-10).
    public var current: [OutputInfo] { tracker.outputs }

    public subscript(registryName: UInt32) -> OutputInfo? { tracker[registryName] }

    /// The output to make a window fullscreen on.
    public func output(_ registryName: UInt32) -> Output? { bound[registryName] }

    /// Binds the `wl_output` global `name`. - Returns: false when it could not be bound.
    @discardableResult
    public func bind(_ registry: Registry, name: UInt32) -> Bool {
        guard let output = Output(registry: registry, name: name) else { return false }
        output.onEvent = { [unowned self] event in
            if let change = tracker.handle(event, registryName: name) { report(change) }
        }
        bound[name] = output
        order.append(name)
        tracker.begin(registryName: name, waitsForXDGOutput: xdgOutputManager != nil)
        if let manager = xdgOutputManager { output.describe(with: manager) }
        return true
    }

    /// Describes every output with xdg-output from now on, including those bound before the manager was: names on
    /// wl_output v3 compositors (weston 10) and logical geometry come from it.
    public func describe(with manager: OpaquePointer) {
        xdgOutputManager = manager
        for name in order {
            tracker.expectXDGOutput(registryName: name)
            bound[name]?.describe(with: manager)
        }
    }

    /// `global_remove`: reports the output gone (the window on it is torn down in ``onChange``), then releases it.
    /// - Returns: whether `name` was one of ours.
    @discardableResult
    public func remove(name: UInt32) -> Bool {
        guard let output = bound.removeValue(forKey: name) else { return false }
        order.removeAll { $0 == name }
        if let change = tracker.remove(registryName: name) { report(change) }
        output.destroy()
        return true
    }

    private func report(_ change: OutputChange) {
        switch change {
        case .added(let info):
            logger.info("output added: \(info.displayName) \(info.modeText) scale \(info.scale)")
        case .changed(let old, let new):
            logger.info(
                "output changed: \(new.displayName) \(old.modeText) scale \(old.scale) → \(new.modeText) scale \(new.scale)"
            )
        case .removed(let info):
            logger.info("output removed: \(info.displayName)")
        }
        onChange(change)
    }

    /// Releases every output, last bound first. The windows on them must be gone.
    public func destroy() {
        for name in order.reversed() { bound[name]?.destroy() }
        bound.removeAll()
        order.removeAll()
    }
}
