import ArgumentParser
import Assets
import Fleet
import Foundation
import Messaging
import PhoneRemote
import Screens
import TOMLPrecheck
import WebContent

/// `multiscreen config check [PATH]`: the whole config read as `run` reads it, without running anything.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check a config file before deploying it.",
        subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Read every section of a config as `run` would and print what is wrong, with its place.",
            discussion: """
                Each section (the role rules and [controller], [theme], [fleet], [remote], [web]) is read by the \
                same code `run` uses; the first error of each is printed as FILE:LINE:COLUMN: what is wrong. Exit \
                status: 0 when the config is good, 1 when it has errors or cannot be read, 64 for a usage error.
                """)

        @Argument(help: "The config (default: $XDG_CONFIG_HOME/multiscreen/config.toml).")
        var path: String?

        func run() throws {
            let path = path ?? RoleConfig.defaultPath()
            let (errors, summary) = Self.check(path: path)
            if errors.isEmpty {
                print("\(path.logSafe): good (\(summary))")
                return
            }
            for error in errors { print(error) }
            throw ExitCode(1)
        }

        /// Every section's first error, placed in the file where possible, and what a good config holds.
        static func check(path: String) -> (errors: [String], summary: String) {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            var errors: [String] = []
            var parts: [String] = []
            do throws(RoleConfigError) {
                let roles = try RoleConfig.load(path: path, mustExist: true)
                parts.append("\(roles.rules.count) role rules")
            } catch {
                errors.append(placed(error, path: path, text: text))
            }
            do throws(FleetConfigError) {
                if let fleet = try FleetConfig.load(path: path) {
                    try fleet.validate()
                    parts.append("[fleet]")
                }
            } catch {
                errors.append("\(error)".logSafe)
            }
            do throws(RemoteConfigError) {
                if try RemoteConfig.load(path: path) != nil { parts.append("[remote]") }
            } catch {
                errors.append("\(error)".logSafe)
            }
            do throws(WebConfigError) {
                _ = try WebConfig.load(path: path)
            } catch {
                errors.append("\(error)".logSafe)
            }
            do throws(AssetConfigError) {
                _ = try AssetConfig.load(path: path)
            } catch {
                errors.append("\(error)".logSafe)
            }
            return (errors, parts.joined(separator: ", "))
        }

        /// `FILE:LINE:COLUMN: what`, the form editors and compilers use, for a role config error.
        static func placed(_ error: RoleConfigError, path: String, text: String) -> String {
            let key: String
            switch error {
            case .syntax(_, let line, let column, let message):
                return "\(path):\(line):\(column): \(message)".logSafe
            case .unreadable: return "\(error)".logSafe
            case .unknownKey(_, let name, _), .missingKey(_, let name), .wrongType(_, let name, _),
                .invalidValue(_, let name, _, _):
                key = name
            }
            let what = "\(error)".dropFirst(path.count + 2)  // the description without its "FILE: " prefix
            guard let position = TOMLKeyLocator.position(of: key, in: text) else { return "\(path): \(what)".logSafe }
            return "\(path):\(position.line):\(position.column): \(what)".logSafe
        }
    }
}
