import ArgumentParser
import Foundation
import Rendering

// Mesa's driver loads on the second core while the arguments are parsed and the config read (docs/benchmarks.md,
// start-up).
let environment = ProcessInfo.processInfo.environment
let preload =
    Multiscreen.startsRun(Array(CommandLine.arguments.dropFirst()), environment: environment)
    ? MesaDriverPreload.start(environment: environment) : nil

// What `Multiscreen.main()` does (less its debug builds' check that no command is async: none is), with the preload
// finished before the process exits (at a usage error, or a `run` that cannot start, the exit can come first).
do {
    var command = try Multiscreen.parseAsRoot()
    try command.run()
    preload?.finish()
} catch {
    preload?.finish()
    Multiscreen.exit(withError: error)
}
