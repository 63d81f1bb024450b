import Foundation

/// The variables of a CTranslate2 `model.bin` (binary version 6), read without trusting it: every
/// count, shape and byte size is checked against the file before anything is allocated, so a
/// damaged or hostile file gives a `WhisperModelError`, never a crash or a huge allocation.
///
/// Layout, little-endian: u32 version; string spec name; u32 revision; u32 variable count; per
/// variable a string name, u8 rank, u32 dims[rank], u8 type, u32 byte count and the data; then u32
/// alias count and per alias two strings (alias, target). A string is a u16 length and that many
/// bytes, the last a NUL.
struct CTranslate2ModelFile {
    static let supportedVersion: UInt32 = 6

    enum ElementType: UInt8 {
        case float32 = 0, int8, int16, int32, float16, bfloat16

        var size: Int {
            switch self {
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            case .float32, .int32: 4
            }
        }
    }

    struct Variable {
        var shape: [Int]
        var type: ElementType
        /// Where its data lies in the file.
        var bytes: Range<Int>
    }

    let path: String
    let specName: String
    private let data: Data
    private let variables: [String: Variable]

    /// Maps the file (its pages are read as variables are converted) and reads the directory.
    init(path: String) throws(WhisperModelError) {
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw .fileUnreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        self.path = path
        var reader = Reader(data: data, path: path)
        let version = try reader.u32("the binary version")
        guard version == Self.supportedVersion else {
            throw .unsupportedVersion(path: path, version: version, supported: Self.supportedVersion)
        }
        specName = try reader.string("the model spec name")
        _ = try reader.u32("the spec revision")
        let count = try reader.u32("the variable count")
        var variables: [String: Variable] = [:]
        // No capacity reserved from `count`: a hostile count must not allocate; every variable
        // takes bytes of the file, so the loop ends at the file's end at the latest.
        for index in 0..<Int(count) {
            let name = try reader.string("the name of variable \(index)")
            let rank = Int(try reader.u8("the rank of \(name)"))
            var shape: [Int] = []
            var elements = 1
            for _ in 0..<rank {
                let dimension = Int(try reader.u32("a dimension of \(name)"))
                shape.append(dimension)
                // Bounded so that the byte count below cannot overflow; the data itself is checked
                // against the file's end when it is skipped (a cut-off file is `.truncated`).
                let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
                guard !overflow, product < 1 << 60 else {
                    throw .invalid(path: path, variable: name, found: "of shape \(shape)…", expected: "a shape of fewer than 2^60 values")
                }
                elements = product
            }
            let typeCode = try reader.u8("the type of \(name)")
            guard let type = ElementType(rawValue: typeCode) else {
                throw .invalid(path: path, variable: name, found: "of type code \(typeCode)", expected: "a type code from 0 to 5")
            }
            let byteCount = Int(try reader.u32("the byte count of \(name)"))
            guard byteCount == elements * type.size else {
                throw .invalid(path: path, variable: name, found: "\(byteCount) bytes",
                               expected: "\(elements * type.size) bytes for shape \(shape) of \(type)")
            }
            let start = reader.offset
            try reader.skip(byteCount, "the data of \(name)")
            variables[name] = Variable(shape: shape, type: type, bytes: start..<reader.offset)
        }
        let aliases = try reader.u32("the alias count")
        for _ in 0..<Int(aliases) {
            let alias = try reader.string("an alias name")
            let target = try reader.string("the target of alias \(alias)")
            guard let variable = variables[target] else { throw .missingVariable(path: path, variable: "\(target) (the target of alias \(alias))") }
            variables[alias] = variable
        }
        self.variables = variables
    }

    /// Every float16 as Float32, by bit pattern: without F16C in the baseline x86-64 target each
    /// conversion is a library call, ten times slower than this lookup over 37 M weights.
    private static let float16Values: [Float] = (0...UInt16.max).map { Float(Float16(bitPattern: $0)) }

    /// The variable `name` as Float32, which must have shape `expected`.
    func floats(_ name: String, shape expected: [Int]) throws(WhisperModelError) -> [Float] {
        let variable = try self.variable(name)
        guard variable.shape == expected else { throw .wrongShape(path: path, variable: name, found: variable.shape, expected: expected) }
        let count = expected.reduce(1, *)
        switch variable.type {
        case .float16:
            return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                Self.float16Values.withUnsafeBufferPointer { table in
                    data.withUnsafeBytes { raw in
                        for index in 0..<count {
                            let bits = raw.loadUnaligned(fromByteOffset: variable.bytes.lowerBound + 2 * index, as: UInt16.self)
                            buffer[index] = table[Int(UInt16(littleEndian: bits))]
                        }
                    }
                }
                initialized = count
            }
        case .float32:
            return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                data.withUnsafeBytes { raw in
                    for index in 0..<count {
                        let bits = raw.loadUnaligned(fromByteOffset: variable.bytes.lowerBound + 4 * index, as: UInt32.self)
                        buffer[index] = Float(bitPattern: UInt32(littleEndian: bits))
                    }
                }
                initialized = count
            }
        default:
            throw .invalid(path: path, variable: name, found: "of type \(variable.type)", expected: "float16 or float32 weights")
        }
    }

    /// The scalar integer `name` (int8, int16 or int32).
    func integer(_ name: String) throws(WhisperModelError) -> Int {
        let variable = try self.variable(name)
        guard variable.shape.isEmpty else { throw .wrongShape(path: path, variable: name, found: variable.shape, expected: []) }
        let offset = variable.bytes.lowerBound
        let value: Int? = data.withUnsafeBytes { raw in
            switch variable.type {
            case .int8: Int(raw.load(fromByteOffset: offset, as: Int8.self))
            case .int16: Int(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int16.self)))
            case .int32: Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
            default: nil
            }
        }
        guard let value else { throw .invalid(path: path, variable: name, found: "of type \(variable.type)", expected: "an integer scalar") }
        return value
    }

    func contains(_ name: String) -> Bool { variables[name] != nil }

    func shape(_ name: String) throws(WhisperModelError) -> [Int] { try variable(name).shape }

    private func variable(_ name: String) throws(WhisperModelError) -> Variable {
        guard let variable = variables[name] else { throw .missingVariable(path: path, variable: name) }
        return variable
    }

    /// Reads the directory front to back, each read checked against the file's end.
    private struct Reader {
        let data: Data
        let path: String
        var offset = 0

        mutating func skip(_ count: Int, _ what: String) throws(WhisperModelError) {
            guard count <= data.count - offset else {
                throw .truncated(path: path, what: what, offset: offset, needed: count, fileSize: data.count)
            }
            offset += count
        }

        private mutating func load<T: FixedWidthInteger>(_: T.Type, _ what: String) throws(WhisperModelError) -> T {
            let start = offset
            try skip(MemoryLayout<T>.size, what)
            return T(littleEndian: data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: start, as: T.self) })
        }

        mutating func u8(_ what: String) throws(WhisperModelError) -> UInt8 { try load(UInt8.self, what) }
        mutating func u32(_ what: String) throws(WhisperModelError) -> UInt32 { try load(UInt32.self, what) }

        /// A u16 length, then the bytes with a trailing NUL (dropped).
        mutating func string(_ what: String) throws(WhisperModelError) -> String {
            let length = Int(try load(UInt16.self, "the length of \(what)"))
            let start = offset
            try skip(length, what)
            let bytes = data[start..<offset]
            return String(decoding: bytes.last == 0 ? bytes.dropLast() : bytes, as: UTF8.self)
        }
    }
}
