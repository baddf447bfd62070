import Screens
import Wayland

extension ScreenSet {
    /// Turns screens off and on as the product says (``ScreenPower``), after the render pass that drew them black:
    /// the compositor's power switch where it has one and uses it, else the black screen alone, with the window no
    /// longer keeping the outputs awake. A screen off by schedule is left out of the health checks: nothing it shows
    /// is waiting for the compositor.
    func syncPower(_ wanted: (Screen) -> ScreenPower, globals: WaylandGlobals) {
        for screen in ordered {
            let power = wanted(screen)
            guard power != screen.power else { continue }
            screen.power = power
            let on = power == .on
            screen.window?.inhibitIdle(on, globals: globals)
            if on {
                screen.powerMethod = nil
                screen.timeline.outputTurnedOn()
                screen.invalidate()
            } else {
                screen.powerMethod = .switching
            }
            guard let output = outputs.output(screen.output.registryName) else { continue }
            output.requestPower(on: on, globals: globals) { [weak screen, logger] done in
                guard let screen, screen.power == power else { return }
                let name = screen.output.displayName
                if on {
                    if !done { logger.warning("\(name): the compositor did not turn the output on again") }
                    return
                }
                screen.powerMethod = done ? .outputPower : .blackScreen
                let how =
                    done
                    ? "the compositor turned the output off"
                    : globals.outputPowerManager == nil
                        ? "black: the compositor offers clients no power switch"
                        : "black: the compositor did not turn the output off"
                logger.info("\(name): off by schedule (\(how))")
            }
        }
    }
}
