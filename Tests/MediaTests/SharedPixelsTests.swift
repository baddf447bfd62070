import Foundation
import Glibc
import SystemCalls
import Testing

@Suite struct SharedPixelsTests {
    @Test func sizesAndFill() throws {
        let pixels = try SharedPixels(width: 7, height: 3, fill: 0xFF11_2233)
        #expect(pixels.stride == 28 && pixels.byteCount == 84)
        let bytes = pixels.pixels.assumingMemoryBound(to: UInt8.self)
        // XRGB8888 little-endian: B, G, R, X.
        #expect([bytes[0], bytes[1], bytes[2], bytes[3]] == [0x33, 0x22, 0x11, 0xFF])
        #expect(pixels.words[20] == 0xFF11_2233)
    }

    @Test func theDescriptorMapsTheSamePages() throws {
        let pixels = try SharedPixels(width: 4, height: 4)
        pixels.words[5] = 0xFFAB_CDEF
        var status = stat()
        #expect(fstat(pixels.fileDescriptor, &status) == 0 && Int(status.st_size) == pixels.poolBytes)
        #expect(pixels.poolBytes >= pixels.byteCount)
        let other = try #require(mmap(nil, 64, PROT_READ, MAP_SHARED, pixels.fileDescriptor, 0))
        defer { munmap(other, 64) }
        #expect(other.load(fromByteOffset: 20, as: UInt32.self) == 0xFFAB_CDEF)
    }

    @Test func destroyTwiceClosesOnce() throws {
        let pixels = try SharedPixels(width: 2, height: 2)
        let descriptor = pixels.fileDescriptor
        pixels.destroy()
        pixels.destroy()
        #expect(fcntl(descriptor, F_GETFD) == -1)
    }

    @Test func refusesAnEmptySize() {
        #expect(throws: SystemCallError.self) { try SharedPixels(width: 0, height: 10) }
        #expect(throws: SystemCallError.self) { try SharedPixels(width: 50_000, height: 50_000) }
    }
}
