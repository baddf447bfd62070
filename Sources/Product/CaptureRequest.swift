/// A `screen.capture` accepted by the ``ProductController`` and not answered yet: the display thread draws the screen's
/// picture and a worker writes the PNG; the reply goes once the file is written (or could not be).
public struct CaptureRequest: Equatable, Sendable {
    public var registryName: UInt32
    public var screen: String
    /// Where the PNG goes: an absolute path, replaced if it exists; nil: in the reply.
    public var path: String?

    public init(registryName: UInt32, screen: String, path: String?) {
        self.registryName = registryName
        self.screen = screen
        self.path = path
    }
}
