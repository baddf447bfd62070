/// Why EGL or GL setup failed. Fatal at start, logged and survived per screen afterwards.
public enum RenderingError: Error, CustomStringConvertible {
    case egl(call: String, code: Int32)
    case shaderNotFound(name: String, searched: [String])
    case shaderCompile(name: String, log: String)
    case programLink(names: String, log: String)

    public var description: String {
        switch self {
        case .egl(let call, let code):
            return "\(call) failed: EGL error 0x\(String(code, radix: 16))"
        case .shaderNotFound(let name, let searched):
            return "shader \(name) not found; looked in: \(searched.joined(separator: ", ")) (set MULTISCREEN_SHADERS)"
        case .shaderCompile(let name, let log):
            return "shader \(name) does not compile: \(log)"
        case .programLink(let names, let log):
            return "program \(names) does not link: \(log)"
        }
    }
}
