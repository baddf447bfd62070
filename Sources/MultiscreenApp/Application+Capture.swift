import Media
import Messaging
import Outputs
import Product

/// `screen.capture`: the screen drawn again into a framebuffer of its own and read back, the layers the compositor
/// composites itself (a picture, a video's frame, a mirror's shared frame) drawn over it as shown, and the PNG written
/// on the media reader's thread. The reply goes once the file is written.
extension Application {
    func capture(_ request: CaptureRequest, ticket: OrderedReplies.Ticket?) {
        let started = MonotonicClock.nanoseconds()
        let answer = { [unowned self] (width: Int, height: Int, png: [UInt8]?, failure: String?) in
            let milliseconds = Double(MonotonicClock.nanoseconds() - started) / 1e6
            let reply = ProductController.captured(
                request, width: width, height: height, milliseconds: milliseconds, png: png, failure: failure)
            if failure == nil {
                let to = request.path.map { $0.logSafe } ?? "\(png?.count ?? 0) bytes in the reply"
                logger.info("captured \(request.screen) in \(Int(milliseconds)) ms: \(to)")
            }
            if let ticket { replies.settle(ticket, with: reply) }
        }
        guard let screen = screens.screens[request.registryName], let geometry = screen.geometry else {
            return answer(0, 0, nil, "it has not drawn a frame yet")
        }
        let (width, height) = (Int(geometry.bufferWidth), Int(geometry.bufferHeight))
        switch redrawn(screen, as: product) {
        case .success(let pixels):
            media.writePNG(pixels, width: width, height: height, to: request.path) { png, failure in
                answer(width, height, png, failure)
            }
        case .failure(let failure):
            answer(width, height, nil, failure.description)
        }
    }

    /// The frame `screen` shows, as `product` has it, drawn again: its window's content into a framebuffer of its own
    /// and read back, and the layers the compositor composites itself (a picture, a video's frame, a mirror's shared
    /// frame) drawn over it as they are shown now. XRGB8888 bytes of the window's buffer size, or why not.
    func redrawn(_ screen: Screen, as product: ProductController) -> Result<[UInt8], PNGFile.Failure> {
        guard let geometry = screen.geometry else { return .failure("it has not drawn a frame yet") }
        let (width, height) = (Int(geometry.bufferWidth), Int(geometry.bufferHeight))
        var pixels: [UInt8]
        if let mirror = screen.sharedMirrorPicture, let memory = mirror.frame.memory {
            // The mirror's window shows black around the controller's frame, which the compositor scales.
            pixels = [UInt8](repeating: 0, count: width * height * 4)
            let scale = Float(width) / Float(max(geometry.logicalWidth, 1))
            let at = mirror.at
            PictureComposite.draw(
                .init(
                    pixels: UnsafeRawPointer(memory.pixels), width: Int(mirror.frame.width),
                    height: Int(mirror.frame.height), stride: Int(mirror.frame.stride)),
                rotation: .none,
                source: Rect(x: 0, y: 0, width: Float(mirror.frame.width), height: Float(mirror.frame.height)),
                into: &pixels, targetWidth: width, targetHeight: height,
                destination: Rect(x: at.x * scale, y: at.y * scale, width: at.width * scale, height: at.height * scale))
        } else {
            let painter = ScreenPainter(
                product: product, screens: screens, graphics: graphics, bus: bus, applied: messagesApplied,
                now: MonotonicClock.nanoseconds(), web: web)
            do {
                guard
                    let drawn = try graphics.renderOffscreen(
                        width: geometry.bufferWidth, height: geometry.bufferHeight,
                        draw: { painter.draw(screen, on: $0, geometry: geometry) })
                else { return .failure("it cannot be drawn off screen (no framebuffer)") }
                pixels = drawn
            } catch {
                return .failure(PNGFile.Failure("it cannot be drawn: \(error)"))
            }
            media.composeLayer(of: screen, into: &pixels, width: width, height: height)
        }
        return .success(pixels)
    }

    /// Starts the crossfades the clock's switches asked for (``Changes/crossfades``), each out of its screen's frame as
    /// `before` (the product before the switch) has it, before anything on the screen changes.
    func beginCrossfades(_ fades: [String: Double], from before: ProductController) {
        for (name, seconds) in fades {
            guard let screen = screens.ordered.first(where: { $0.output.displayName == name }),
                let geometry = screen.geometry, case .success(let picture) = redrawn(screen, as: before)
            else { continue }
            crossfades.begin(
                on: screen, picture: picture, width: Int(geometry.bufferWidth), height: Int(geometry.bufferHeight),
                seconds: seconds, globals: globals)
        }
    }
}
