import Foundation
import HotwordCore
import HotwordTraining

/// A wake word and the question after it, as the stream says them: noise only before (so the
/// detector hears nothing else in its 1.8 s window), the word, a short pause, the question, and
/// quiet after it (so the question ends by silence).
struct WakeBlock: Sendable {
    static let leadInSeconds = 3.0
    static let pauseSeconds = 0.4
    static let tailSeconds = 4.0

    let clip: WakeClip
    let question: [Float]

    private static func samples(_ seconds: Double) -> Int { Int(seconds * Double(SoakMaterial.sampleRate)) }

    var clipStart: Int { Self.samples(Self.leadInSeconds) }
    var wordStart: Int { clipStart + clip.wordStart }
    var wordEnd: Int { clipStart + clip.wordEnd }
    var questionStart: Int { clipStart + clip.samples.count + Self.samples(Self.pauseSeconds) }
    var count: Int { questionStart + question.count + Self.samples(Self.tailSeconds) }

    /// Adds the block's speech into `buffer` from `offset`.
    func add(into buffer: inout [Float], at offset: Int) {
        for (n, sample) in clip.samples.enumerated() { buffer[offset + clipStart + n] += sample }
        for (n, sample) in question.enumerated() { buffer[offset + questionStart + n] += sample }
    }

    /// The block alone, over `noiseBed` from `noiseOffset` (for screening clips).
    func render(noiseBed: [Float], noiseOffset: Int, noiseScale: Float) -> [Float] {
        var buffer = [Float](repeating: 0, count: count)
        add(into: &buffer, at: 0)
        SoakStream.addNoise(noiseBed, scale: noiseScale, into: &buffer, streamPosition: noiseOffset)
        return buffer
    }
}

/// Where one wake word is in the stream, in samples from its start.
struct WakeTruth: Sendable {
    var index: Int
    var clip: String
    var blockStart: Int
    var wordStart: Int
    var wordEnd: Int
    var blockEnd: Int
    /// How often the detector, run in this process on exactly the samples the daemon is given,
    /// fires on this word on time: 0 marks a recording the model itself misses at this point of
    /// the stream, which says nothing about the daemon.
    var referenceDetections: Int
}

/// The soak's microphone signal, made as it is needed (24 hours would be 2.8 GB): cycles of
/// background speech over noise, each ending with a wake block, until `totalSamples`. The
/// same seed gives the same stream. Not thread-safe: one feeder pulls from it.
struct SoakStream {
    /// Speech (background, wake words, questions) to noise, dB.
    static let snr: Float = 20

    let material: SoakMaterial
    let totalSamples: Int
    let cycleSamples: Int
    private var random: SeededRandom
    /// The core detector, following the stream alongside the daemon.
    private let reference: Detector
    private var cycle: [Int16] = []
    private var cycleRead = 0
    private(set) var generated = 0
    private(set) var truth: [WakeTruth] = []

    init(material: SoakMaterial, model: KeywordModel, totalSeconds: Double, wakeIntervalSeconds: Double, seed: UInt64) throws {
        self.material = material
        reference = try Detector(models: [model])
        totalSamples = Int(totalSeconds * Double(SoakMaterial.sampleRate))
        cycleSamples = Int(wakeIntervalSeconds * Double(SoakMaterial.sampleRate))
        random = SeededRandom(seed: seed)
    }

    /// Fills `buffer` with the next samples; returns how many (fewer only at the end).
    mutating func fill(_ buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        var filled = 0
        while filled < buffer.count {
            if cycleRead == cycle.count {
                guard generated < totalSamples else { break }
                makeCycle()
            }
            let count = min(buffer.count - filled, cycle.count - cycleRead)
            for n in 0..<count { buffer[filled + n] = cycle[cycleRead + n] }
            filled += count
            cycleRead += count
        }
        return filled
    }

    /// Background speech with pauses, then the next wake block; noise under everything.
    private mutating func makeCycle() {
        let block = WakeBlock(clip: material.wakeClips[truth.count % material.wakeClips.count],
                              question: material.questions[truth.count % material.questions.count])
        let backgroundTarget = max(0, cycleSamples - block.count)
        var buffer: [Float] = []
        buffer.reserveCapacity(cycleSamples + SoakMaterial.sampleRate * 20)
        while buffer.count < backgroundTarget {
            buffer += material.speech[Int(random.next() % UInt64(material.speech.count))]
            let pause = 0.3 + 1.2 * Double(random.uniform())
            buffer += [Float](repeating: 0, count: Int(pause * Double(SoakMaterial.sampleRate)))
        }
        let blockStart = buffer.count
        buffer += [Float](repeating: 0, count: block.count)
        block.add(into: &buffer, at: blockStart)
        Self.addNoise(material.noiseBed, scale: SoakMaterial.noiseScale(snr: Self.snr), into: &buffer, streamPosition: generated)
        cycle = buffer.map { Int16((max(-1, min(1, $0)) * 32767).rounded()) }
        // As the daemon's capture converts 16-bit samples.
        let heard = reference.process(cycle.map { Float($0) / 32768 })
        let wordEnd = Double(generated + blockStart + block.wordEnd) / Double(SoakMaterial.sampleRate)
        truth.append(WakeTruth(index: truth.count, clip: block.clip.name, blockStart: generated + blockStart,
                               wordStart: generated + blockStart + block.wordStart,
                               wordEnd: generated + blockStart + block.wordEnd, blockEnd: generated + buffer.count,
                               referenceDetections: heard.filter { SoakReport.timingTolerance.contains($0.time - wordEnd) }.count))
        cycleRead = 0
        generated += buffer.count
    }

    /// Adds the noise bed, looped and continuous over the whole stream (`streamPosition` is
    /// where `buffer` starts in the stream).
    static func addNoise(_ bed: [Float], scale: Float, into buffer: inout [Float], streamPosition: Int) {
        guard !bed.isEmpty else { return }
        var position = streamPosition % bed.count
        for n in buffer.indices {
            buffer[n] += scale * bed[position]
            position += 1
            if position == bed.count { position = 0 }
        }
    }
}
