/// An owned Float buffer that grows on demand and is reused across batches, so a training
/// step allocates nothing once the largest batch has been seen. Growing discards the contents.
final class FloatBuffer {
    private(set) var pointer: UnsafeMutablePointer<Float>
    private(set) var capacity: Int

    init(count: Int = 0) {
        capacity = max(count, 1)
        pointer = .allocate(capacity: capacity)
        pointer.initialize(repeating: 0, count: capacity)
    }

    convenience init(_ values: [Float]) {
        self.init(count: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    deinit { pointer.deallocate() }

    /// Makes room for `count` values; returns the (possibly new) storage.
    @discardableResult
    func reserve(_ count: Int) -> UnsafeMutablePointer<Float> {
        if count > capacity {
            pointer.deallocate()
            capacity = count
            pointer = .allocate(capacity: count)
            pointer.initialize(repeating: 0, count: count)
        }
        return pointer
    }

    func zero(_ count: Int) { pointer.update(repeating: 0, count: count) }

    func array(_ count: Int) -> [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }
}

/// A batch of sequences in a buffer: `[batch][frames][channels]`, row-major and contiguous.
struct SequenceView {
    var pointer: UnsafeMutablePointer<Float>
    var batch: Int
    var frames: Int
    var channels: Int

    var rows: Int { batch * frames }
    var count: Int { batch * frames * channels }
}
