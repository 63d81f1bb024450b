/// Where a listener's audio comes from: a microphone (`CaptureDevice`) in the assistant; audio
/// the test queues in its tests. 16 kHz mono samples, read by one thread.
public protocol AudioSource: Sendable {
    /// Writes the next samples to the start of `samples`, blocking until there are some.
    /// Returns how many: at least one, up to `samples.count` (a microphone always fills it);
    /// fewer, down to 0, once the source is closed.
    func read(into samples: UnsafeMutableBufferPointer<Float>) -> Int
    /// Ends a blocked `read` (it returns what it has) and every later one. Safe to call more than once.
    func close()
}
