/// A raw deflate (RFC 1951) decoder, after Mark Adler's `puff.c`: canonical Huffman codes decoded bit by bit.
///
/// Slow compared with zlib but short and easy to check, which is what reading a few screenshots needs.
struct Inflater {
    private let input: [UInt8]
    private var position = 0
    private var bitBuffer = 0
    private var bitCount = 0
    private var output: [UInt8] = []

    init(_ input: [UInt8]) {
        self.input = input
    }

    /// A canonical Huffman code: how many codes have each length, and the symbols ordered by code.
    private struct Huffman {
        var counts = [Int](repeating: 0, count: 16)
        var symbols: [Int]

        init(lengths: [Int]) {
            symbols = [Int](repeating: 0, count: lengths.count)
            for length in lengths { counts[length] += 1 }
            counts[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
            for (symbol, length) in lengths.enumerated() where length != 0 {
                symbols[offsets[length]] = symbol
                offsets[length] += 1
            }
        }
    }

    private static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227,
        258,
    ]
    private static let lengthExtra = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]
    private static let distanceBase = [
        1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097,
        6145, 8193, 12_289, 16_385, 24_577,
    ]
    private static let distanceExtra = [
        0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13,
    ]
    private static let fixedLiterals = Huffman(
        lengths: [Int](repeating: 8, count: 144) + [Int](repeating: 9, count: 112) + [Int](repeating: 7, count: 24)
            + [Int](repeating: 8, count: 8))
    private static let fixedDistances = Huffman(lengths: [Int](repeating: 5, count: 30))

    /// Decodes all blocks up to the one marked final.
    mutating func inflate() throws -> [UInt8] {
        var isLast = false
        while !isLast {
            isLast = try bits(1) == 1
            switch try bits(2) {
            case 0: try stored()
            case 1: try codes(Self.fixedLiterals, Self.fixedDistances)
            case 2: try dynamic()
            default: throw HarnessError("invalid deflate block type")
            }
        }
        return output
    }

    private mutating func bits(_ count: Int) throws -> Int {
        while bitCount < count {
            guard position < input.count else { throw HarnessError("deflate data ends early") }
            bitBuffer |= Int(input[position]) << bitCount
            position += 1
            bitCount += 8
        }
        let value = bitBuffer & ((1 << count) - 1)
        bitBuffer >>= count
        bitCount -= count
        return value
    }

    private mutating func stored() throws {
        bitBuffer = 0  // a stored block starts at a byte boundary
        bitCount = 0
        guard position + 4 <= input.count else { throw HarnessError("deflate stored block header ends early") }
        let length = Int(input[position]) | Int(input[position + 1]) << 8
        let complement = Int(input[position + 2]) | Int(input[position + 3]) << 8
        guard length == ~complement & 0xffff else { throw HarnessError("deflate stored length check failed") }
        position += 4
        guard position + length <= input.count else { throw HarnessError("deflate stored block ends early") }
        output.append(contentsOf: input[position..<(position + length)])
        position += length
    }

    private mutating func decode(_ huffman: Huffman) throws -> Int {
        var code = 0
        var first = 0
        var index = 0
        for length in 1..<16 {
            code |= try bits(1)
            let count = huffman.counts[length]
            if code - count < first { return huffman.symbols[index + (code - first)] }
            index += count
            first = (first + count) << 1
            code <<= 1
        }
        throw HarnessError("invalid Huffman code in deflate data")
    }

    private mutating func codes(_ literals: Huffman, _ distances: Huffman) throws {
        while true {
            let symbol = try decode(literals)
            if symbol < 256 {
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthIndex = symbol - 257
                guard lengthIndex < Self.lengthBase.count else { throw HarnessError("invalid deflate length code") }
                let length = Self.lengthBase[lengthIndex] + (try bits(Self.lengthExtra[lengthIndex]))
                let distanceIndex = try decode(distances)
                guard distanceIndex < Self.distanceBase.count else {
                    throw HarnessError("invalid deflate distance code")
                }
                let distance = Self.distanceBase[distanceIndex] + (try bits(Self.distanceExtra[distanceIndex]))
                guard distance <= output.count else { throw HarnessError("deflate distance reaches before the start") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    private mutating func dynamic() throws {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeCount = try bits(4) + 4
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeCount { codeLengths[order[index]] = try bits(3) }
        let lengthCode = Huffman(lengths: codeLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try decode(lengthCode)
            switch symbol {
            case 0..<16:
                lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw HarnessError("deflate repeat with no previous length") }
                lengths += [Int](repeating: previous, count: 3 + (try bits(2)))
            case 17:
                lengths += [Int](repeating: 0, count: 3 + (try bits(3)))
            default:
                lengths += [Int](repeating: 0, count: 11 + (try bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw HarnessError("deflate lengths overflow") }
        try codes(
            Huffman(lengths: Array(lengths[..<literalCount])), Huffman(lengths: Array(lengths[literalCount...])))
    }
}
