import Foundation

/// Turns a stream of log-mel frames (`SpeechEmbedding.melFrontend`'s natural-log energies) into
/// embeddings as openWakeWord streams them: frames are taken in groups of `hopFrames` counted
/// from the start, each group mapped to the network's units and limited to `range` below its
/// loudest value; after each group, once `windowFrames` frames exist, the last `windowFrames`
/// make one window, and each window one embedding.
///
/// Mapping frames is cheap and always done; embedding a window is the cost, and is done when
/// asked (`embedding(at:)`): the stream keeps the frames of its last `keptWindows` windows and
/// their embeddings, so a cascade that skipped some (`CompanionGate`) catches up on them later.
/// A window after the one embedded last is computed from its rows (`SpeechEmbedder.embedNext`),
/// any other whole. Allocates nothing per frame; one instance per stream. (`FeatureExtractor`
/// runs it for every window; public so that `hotword bench` can time it apart from the mel front end.)
public final class SpeechEmbeddingStream {
    let network: SpeechEmbedding
    let keptWindows: Int
    private let embedder: SpeechEmbedder
    /// Mapped frames, `[frame][band]`, oldest first: those of the last `keptWindows` windows, then
    /// the group being filled (mapped, not yet limited).
    private let frames: UnsafeMutablePointer<Float>
    private let frameCapacity: Int
    private var framesHeld = 0
    /// The stream's index of the frame `frames` starts with.
    private var firstFrameHeld = 0
    private var framesInGroup = 0
    /// Windows whose frames have all arrived, since the start.
    public private(set) var windowsCompleted = 0
    /// Embeddings of recent windows, window w in slot w mod `keptWindows`; which window each slot holds (−1: none).
    private let embeddings: UnsafeMutablePointer<Float>
    private let embeddedWindow: UnsafeMutablePointer<Int>
    /// The window `embedder` computed last, whose rows the next one may reuse.
    private var lastEmbedded = -1
    /// Embeddings computed since the start: all, and those computed whole.
    public private(set) var embeddingsComputed = 0
    public private(set) var embeddingsComputedWhole = 0
    /// ln(E) → log10(E·s²) + offset is ln(E)·a + b.
    private let scale: Float
    private let offset: Float
    /// Groups before the first whole window ends.
    private let groupsBeforeFirstWindow: Int

    /// `keptWindows`: how many of the latest windows `embedding(at:)` can still be asked for.
    public init(network: SpeechEmbedding, keptWindows: Int = 1) {
        precondition(keptWindows >= 1, "keptWindows must be ≥ 1")
        self.network = network
        self.keptWindows = keptWindows
        embedder = SpeechEmbedder(network: network)
        groupsBeforeFirstWindow = (network.windowFrames + network.hopFrames - 1) / network.hopFrames
        // The kept windows' frames and a group being filled, and as much again so that frames
        // are moved to the front only now and then.
        let needed = network.windowFrames + keptWindows * network.hopFrames
        frameCapacity = 2 * needed
        frames = .allocate(capacity: frameCapacity * network.melBands)
        embeddings = .allocate(capacity: keptWindows * network.outputs)
        embeddedWindow = .allocate(capacity: keptWindows)
        embeddedWindow.initialize(repeating: -1, count: keptWindows)
        scale = 1 / Float(M_LN10)
        offset = 2 * log10(network.input.int16Scale) + network.input.offset
    }

    deinit {
        frames.deallocate()
        embeddings.deallocate()
        embeddedWindow.deallocate()
    }

    func reset() {
        framesHeld = 0
        firstFrameHeld = 0
        framesInGroup = 0
        windowsCompleted = 0
        lastEmbedded = -1
        embeddingsComputed = 0
        embeddingsComputedWhole = 0
        embeddedWindow.update(repeating: -1, count: keptWindows)
        embedder.reset()
    }

    /// Takes one frame of `melBands` natural-log energies; calls `onEmbedding` when it completes a
    /// window, with that window's embedding.
    public func push(_ logMel: UnsafeBufferPointer<Float>, onEmbedding: (UnsafeBufferPointer<Float>) -> Void) {
        if append(logMel) { onEmbedding(embedding(at: windowsCompleted - 1)) }
    }

    /// Takes one frame of `melBands` natural-log energies, computing nothing but its mapping;
    /// whether it completed a window (window `windowsCompleted − 1`).
    public func append(_ logMel: UnsafeBufferPointer<Float>) -> Bool {
        let bands = network.melBands
        if framesHeld == frameCapacity { discardFramesBeforeKeptWindows() }
        let slot = frames + framesHeld * bands
        for m in 0..<bands { slot[m] = logMel[m] * scale + offset }
        framesHeld += 1
        framesInGroup += 1
        guard framesInGroup == network.hopFrames else { return false }
        framesInGroup = 0
        let values = network.hopFrames * bands
        let group = frames + (framesHeld - network.hopFrames) * bands
        var loudest = -Float.infinity
        for i in 0..<values { loudest = max(loudest, group[i]) }
        let floor = loudest - network.input.range
        for i in 0..<values { group[i] = max(group[i], floor) }
        guard (firstFrameHeld + framesHeld) / network.hopFrames >= groupsBeforeFirstWindow else { return false }
        windowsCompleted += 1
        return true
    }

    /// The embedding of window `window`, one of the last `keptWindows` completed: computed now if
    /// it was not yet, valid until the stream next changes.
    public func embedding(at window: Int) -> UnsafeBufferPointer<Float> {
        precondition(window < windowsCompleted && window >= windowsCompleted - keptWindows,
                     "window \(window) is not among the \(keptWindows) kept before \(windowsCompleted)")
        let slot = window % keptWindows
        let output = embeddings + slot * network.outputs
        if embeddedWindow[slot] != window {
            let input = frames + (firstFrame(of: window) - firstFrameHeld) * network.melBands
            if lastEmbedded >= 0, lastEmbedded == window - 1 {
                embedder.embedNext(input, into: output)
            } else {
                embedder.embed(input, into: output)
                embeddingsComputedWhole += 1
            }
            embeddingsComputed += 1
            lastEmbedded = window
            embeddedWindow[slot] = window
        }
        return UnsafeBufferPointer(start: output, count: network.outputs)
    }

    /// The stream's index of the first frame of `window`.
    private func firstFrame(of window: Int) -> Int {
        (groupsBeforeFirstWindow + window) * network.hopFrames - network.windowFrames
    }

    /// Moves the kept windows' frames and the group being filled to the front.
    private func discardFramesBeforeKeptWindows() {
        // Never none: the buffer holds twice what the kept windows and a group need.
        let dropped = max(firstFrame(of: windowsCompleted - keptWindows), firstFrameHeld) - firstFrameHeld
        frames.update(from: frames + dropped * network.melBands, count: (framesHeld - dropped) * network.melBands)
        framesHeld -= dropped
        firstFrameHeld += dropped
    }
}
