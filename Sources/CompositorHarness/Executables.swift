#if canImport(Glibc)
    import Glibc
#endif

/// Finding the programs the harness runs, with errors that say which Debian package provides a missing one.
public enum Executables {
    /// The Debian package of each program the harness (or its tests) runs. `scripts/setup` installs these.
    public static let debianPackages: [String: String] = [
        "sway": "sway", "swaymsg": "sway", "swaybg": "swaybg", "weston": "weston",
        "weston-screenshooter": "weston", "grim": "grim", "wtype": "wtype", "wayland-info": "wayland-utils",
        "setpriv": "util-linux",
    ]

    /// The absolute path of `name`: itself if it contains a slash, else the first executable match in `PATH`.
    /// - Throws: ``HarnessError`` naming the package to install.
    public static func resolve(_ name: String, searchPath: String? = nil) throws -> String {
        if name.contains("/") {
            guard access(name, X_OK) == 0 else { throw HarnessError("\(name) is not an executable file") }
            return name
        }
        let path = searchPath ?? getenv("PATH").map { String(cString: $0) } ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        let hint = debianPackages[name].map { " (install the Debian package `\($0)`)" } ?? ""
        throw HarnessError("`\(name)` was not found in PATH=\(path)\(hint)")
    }
}
