import CGLES2

/// A linked GLES2 program with its attribute and uniform locations looked up once.
///
/// Owned by ``Canvas``; deleted with ``delete()`` while the context is current.
public final class ShaderProgram {
    public private(set) var program: GLuint = 0
    private var uniforms: [String: GLint] = [:]

    /// Attribute slots are fixed so every program shares one vertex layout.
    public static let positionAttribute: GLuint = 0
    public static let texcoordAttribute: GLuint = 1

    /// - Throws: ``RenderingError/shaderCompile(name:log:)`` or ``RenderingError/programLink(names:log:)``
    ///   with the driver's info log.
    public init(library: ShaderLibrary, vertex: String, fragment: String) throws {
        let vs = try Self.compile(GLenum(GL_VERTEX_SHADER), try library.source(vertex), name: vertex)
        defer { glDeleteShader(vs) }
        let fs = try Self.compile(GLenum(GL_FRAGMENT_SHADER), try library.source(fragment), name: fragment)
        defer { glDeleteShader(fs) }
        program = glCreateProgram()
        glAttachShader(program, vs)
        glAttachShader(program, fs)
        glBindAttribLocation(program, Self.positionAttribute, "a_position")
        glBindAttribLocation(program, Self.texcoordAttribute, "a_texcoord")
        glLinkProgram(program)
        var ok: GLint = 0
        glGetProgramiv(program, GLenum(GL_LINK_STATUS), &ok)
        guard ok == GL_TRUE else {
            let log = Self.infoLog(program, glGetProgramiv, glGetProgramInfoLog)
            glDeleteProgram(program)
            throw RenderingError.programLink(names: "\(vertex)+\(fragment)", log: log)
        }
    }

    public func use() { glUseProgram(program) }

    public func uniform(_ name: String) -> GLint {
        if let location = uniforms[name] { return location }
        let location = glGetUniformLocation(program, name)
        uniforms[name] = location
        return location
    }

    public func delete() {
        if program != 0 { glDeleteProgram(program) }
        program = 0
    }

    private static func compile(_ type: GLenum, _ source: String, name: String) throws -> GLuint {
        let shader = glCreateShader(type)
        source.withCString { text in
            var pointer: UnsafePointer<GLchar>? = text
            glShaderSource(shader, 1, &pointer, nil)
        }
        glCompileShader(shader)
        var ok: GLint = 0
        glGetShaderiv(shader, GLenum(GL_COMPILE_STATUS), &ok)
        guard ok == GL_TRUE else {
            let log = infoLog(shader, glGetShaderiv, glGetShaderInfoLog)
            glDeleteShader(shader)
            throw RenderingError.shaderCompile(name: name, log: log)
        }
        return shader
    }

    private static func infoLog(
        _ object: GLuint,
        _ getiv: (GLuint, GLenum, UnsafeMutablePointer<GLint>?) -> Void,
        _ getLog: (GLuint, GLsizei, UnsafeMutablePointer<GLsizei>?, UnsafeMutablePointer<GLchar>?) -> Void
    ) -> String {
        var length: GLint = 0
        getiv(object, GLenum(GL_INFO_LOG_LENGTH), &length)
        guard length > 0 else { return "(no log)" }
        var buffer = [GLchar](repeating: 0, count: Int(length))
        getLog(object, length, nil, &buffer)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
