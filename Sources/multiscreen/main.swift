import ArgumentParser
import Foundation
import Rendering

// Mesa's driver loads on the second core while the arguments are parsed and the config read (docs/benchmarks.md,
// start-up).
if Multiscreen.startsRun(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment) {
    MesaDriverPreload.start()
}
Multiscreen.main()
