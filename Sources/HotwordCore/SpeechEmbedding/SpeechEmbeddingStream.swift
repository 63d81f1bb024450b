import Foundation

/// Turns a stream of log-mel frames (`SpeechEmbedding.melFrontend`'s natural-log energies) into
/// embeddings as openWakeWord streams them: frames are taken in groups of `hopFrames` counted
/// from the start, each group mapped to the network's units and limited to `range` below its
/// loudest value; after each group, once `windowFrames` frames exist, the last `windowFrames`
/// make one embedding. Allocates nothing per frame; one instance per stream. (`FeatureExtractor`
/// runs it; public so that `hotword bench` can time it apart from the mel front end.)
public final class SpeechEmbeddingStream {
    let network: SpeechEmbedding
    private let embedder: SpeechEmbedder
    /// The last `windowFrames` mapped frames, oldest first, `[frame][band]`.
    private let window: UnsafeMutablePointer<Float>
    private var framesInWindow = 0
    /// The group being filled, mapped but not yet limited.
    private let group: UnsafeMutablePointer<Float>
    private var framesInGroup = 0
    private let embedding: UnsafeMutablePointer<Float>
    /// ln(E) → log10(E·s²) + offset is ln(E)·a + b.
    private let scale: Float
    private let offset: Float

    public init(network: SpeechEmbedding) {
        self.network = network
        embedder = SpeechEmbedder(network: network)
        window = .allocate(capacity: network.windowFrames * network.melBands)
        group = .allocate(capacity: network.hopFrames * network.melBands)
        embedding = .allocate(capacity: network.outputs)
        scale = 1 / Float(M_LN10)
        offset = 2 * log10(network.input.int16Scale) + network.input.offset
    }

    deinit {
        window.deallocate()
        group.deallocate()
        embedding.deallocate()
    }

    func reset() {
        framesInWindow = 0
        framesInGroup = 0
        embedder.reset()
    }

    /// Takes one frame of `melBands` natural-log energies; calls `onEmbedding` when it completes one.
    public func push(_ logMel: UnsafeBufferPointer<Float>, onEmbedding: (UnsafeBufferPointer<Float>) -> Void) {
        let bands = network.melBands
        let slot = group + framesInGroup * bands
        for m in 0..<bands { slot[m] = logMel[m] * scale + offset }
        framesInGroup += 1
        guard framesInGroup == network.hopFrames else { return }
        framesInGroup = 0
        let values = network.hopFrames * bands
        var loudest = -Float.infinity
        for i in 0..<values { loudest = max(loudest, group[i]) }
        let floor = loudest - network.input.range
        for i in 0..<values { group[i] = max(group[i], floor) }
        appendGroupToWindow()
        guard framesInWindow == network.windowFrames else { return }
        // After the first, each window is the last one moved on by a group.
        embedder.embedNext(window, into: embedding)
        onEmbedding(UnsafeBufferPointer(start: embedding, count: network.outputs))
    }

    private func appendGroupToWindow() {
        let bands = network.melBands, hop = network.hopFrames, capacity = network.windowFrames
        let kept = min(framesInWindow, capacity - hop)
        if kept < framesInWindow {
            // Shift out the oldest frames: a copy of 68 × 32 floats every 80 ms.
            window.update(from: window + (framesInWindow - kept) * bands, count: kept * bands)
        }
        (window + kept * bands).update(from: group, count: hop * bands)
        framesInWindow = kept + hop
    }
}
