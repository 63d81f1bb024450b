import Foundation

/// What a soak run measured, and whether that passes.
struct SoakReport {
    /// A detection this far from its word's end (seconds, detection − end) is still on time.
    static let timingTolerance = -0.3...0.5
    /// How far detection times may drift over the run (seconds). Each recording has its own
    /// timing error (where the model fires in that voice); drift is how that error changes
    /// between the recording's first and later times, as a line fitted through the whole run.
    /// The same recording lands up to ±60 ms apart from one time to the next (the network
    /// scores every 30 ms, on a grid that moves with each restart, over different noise), so a
    /// line through an hour's few repeats can tilt by a few tens of ms; a real drift — audio
    /// lost or repeated without notice — grows without bound.
    static let driftTolerance = 0.05
    /// Resident memory may grow this much after warm-up (MiB), plus `memoryGrowthFraction` of it.
    static let memoryGrowthMiB = 4.0
    static let memoryGrowthFraction = 0.05

    struct Wake {
        var truth: WakeTruth
        /// Detection time − word end, seconds; nil when missed.
        var error: Double?
        var detections: Int
    }

    struct Memory {
        var startMiB: Double
        var peakMiB: Double
        var endMiB: Double
        var slopeMiBPerHour: Double
        var warmUpAudioSeconds: Double
    }

    struct Leaks {
        var reports: Int
        var bytes: Int
        var allocations: Int
        var otherErrors: Int
    }

    var audioSeconds: Double
    var wallSeconds: Double
    var slowFraction: Double
    var wakes: [Wake]
    var falseWakes: [Double]
    var audioLost: (reports: Int, seconds: Double)
    var errors: [String: Int]
    var transcripts: (total: Int, empty: Int)
    var answers: Int
    var bargeIns: Int
    var susiRequests: Int
    var endReasons: [String: Int]
    var memory: Memory?
    var leaks: Leaks?
    var exitStatus: Int32?

    init(truth: [WakeTruth], events: [ReceivedEvent], memorySamples: [MemorySample], audioSeconds: Double,
         wallSeconds: Double, slowFraction: Double, susiRequests: Int, log: String, sanitized: Bool, exitStatus: Int32?) {
        self.audioSeconds = audioSeconds
        self.wallSeconds = wallSeconds
        self.slowFraction = slowFraction
        self.susiRequests = susiRequests
        self.exitStatus = exitStatus
        let rate = Double(SoakMaterial.sampleRate)
        var detections = [[Double]](repeating: [], count: truth.count)
        var falseWakes: [Double] = []
        var errors: [String: Int] = [:]
        var lost = (reports: 0, seconds: 0.0)
        var transcripts = (total: 0, empty: 0)
        var answers = 0
        var bargeIns = 0
        var reasons: [String: Int] = [:]
        for event in events {
            switch event.name {
            case "wake":
                guard let time = event.fields["time"]?.number else { continue }
                let position = Int((time * rate).rounded())
                if let k = Self.block(containing: position, in: truth) { detections[k].append(time) } else { falseWakes.append(time) }
            case "error":
                let stage = event.fields["stage"]?.string ?? "?"
                errors[stage, default: 0] += 1
                if stage == "audio" {
                    lost.reports += 1
                    let message = event.fields["message"]?.string ?? ""
                    lost.seconds += Double(message.split(separator: " ").first ?? "") ?? 0
                }
            case "transcript":
                transcripts.total += 1
                if event.fields["text"]?.string?.isEmpty ?? true { transcripts.empty += 1 }
            case "answer":
                answers += 1
            case "barge_in":
                bargeIns += 1
            case "utterance_end":
                reasons[event.fields["reason"]?.string ?? "?", default: 0] += 1
            default:
                break
            }
        }
        wakes = zip(truth, detections).map { truth, times in
            Wake(truth: truth, error: times.first.map { $0 - Double(truth.wordEnd) / rate }, detections: times.count)
        }
        self.falseWakes = falseWakes
        self.errors = errors
        audioLost = lost
        self.transcripts = transcripts
        self.answers = answers
        self.bargeIns = bargeIns
        endReasons = reasons
        memory = Self.memory(memorySamples, truth: truth, audioSeconds: audioSeconds)
        leaks = sanitized ? Self.leaks(in: log) : nil
    }

    /// The wake block holding `position`, by binary search (blocks are in order and disjoint).
    private static func block(containing position: Int, in truth: [WakeTruth]) -> Int? {
        var low = 0, high = truth.count
        while low < high {
            let middle = (low + high) / 2
            if truth[middle].blockEnd <= position { low = middle + 1 } else { high = middle }
        }
        return low < truth.count && truth[low].blockStart <= position ? low : nil
    }

    /// Warm-up lasts a tenth of the audio, and at least until the third question is answered:
    /// by then every code path has run and allocated what it keeps.
    private static func memory(_ samples: [MemorySample], truth: [WakeTruth], audioSeconds: Double) -> Memory? {
        let thirdWake = truth.count >= 3 ? Double(truth[2].blockEnd) / Double(SoakMaterial.sampleRate) : audioSeconds
        let warmUp = max(audioSeconds / 10, thirdWake)
        let after = samples.filter { $0.audioSeconds >= warmUp && $0.audioSeconds <= audioSeconds }
        guard let first = after.first, let last = after.last else { return nil }
        let mib = { (sample: MemorySample) in Double(sample.kibibytes) / 1024 }
        let slope = linearSlope(after.map { ($0.audioSeconds / 3600, mib($0)) })
        return Memory(startMiB: mib(first), peakMiB: after.map(mib).max() ?? 0, endMiB: mib(last),
                      slopeMiBPerHour: slope, warmUpAudioSeconds: warmUp)
    }

    /// LeakSanitizer's summary lines, and any other sanitizer error.
    private static func leaks(in log: String) -> Leaks {
        var result = Leaks(reports: 0, bytes: 0, allocations: 0, otherErrors: 0)
        for line in log.split(separator: "\n") {
            if line.contains("ERROR: LeakSanitizer") { result.reports += 1 }
            if line.contains("ERROR: AddressSanitizer") { result.otherErrors += 1 }
            // SUMMARY: AddressSanitizer: 1234 byte(s) leaked in 5 allocation(s).
            if line.contains("SUMMARY: AddressSanitizer:"), line.contains("leaked in") {
                let words = line.split(separator: " ")
                if let at = words.firstIndex(of: "byte(s)"), at > 0 { result.bytes += Int(words[at - 1]) ?? 0 }
                if let at = words.firstIndex(of: "allocation(s)."), at > 0 { result.allocations += Int(words[at - 1]) ?? 0 }
            }
        }
        return result
    }

    /// Least-squares slope of y over x.
    static func linearSlope(_ points: [(x: Double, y: Double)]) -> Double {
        guard points.count >= 2 else { return 0 }
        let n = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.x } / n, meanY = points.reduce(0) { $0 + $1.y } / n
        let covariance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.y - meanY) }
        let variance = points.reduce(0) { $0 + ($1.x - meanX) * ($1.x - meanX) }
        return variance > 0 ? covariance / variance : 0
    }

    // MARK: Verdict

    var detectedOnce: Int { wakes.filter { $0.detections == 1 }.count }
    var doubles: Int { wakes.filter { $0.detections > 1 }.count }
    /// Wake words the daemon missed although the detector, given the same samples, heard them.
    var missed: [Wake] { wakes.filter { $0.detections == 0 && $0.truth.referenceDetections > 0 } }
    /// Wake words the model misses at that point of the stream, daemon or not (not failures).
    var modelMisses: [Wake] { wakes.filter { $0.truth.referenceDetections == 0 } }
    var lateOrEarly: [Wake] { wakes.filter { $0.error.map { !Self.timingTolerance.contains($0) } ?? false } }

    /// Timing errors of the first and last tenth of the detected wake words.
    var timing: (first: [Double], last: [Double]) {
        let errors = wakes.compactMap(\.error)
        let tenth = max(1, errors.count / 10)
        return (Array(errors.prefix(tenth)), Array(errors.suffix(tenth)))
    }

    /// Each detection's timing error less the mean error of its recording, over audio hours;
    /// only recordings said more than once.
    var residuals: [(hours: Double, error: Double)] {
        let detected = wakes.filter { $0.error != nil }
        let byClip = Dictionary(grouping: detected, by: \.truth.clip).filter { $0.value.count > 1 }
        let clipMean = byClip.mapValues { Self.mean($0.map { $0.error! }) }
        return detected.compactMap { wake in
            clipMean[wake.truth.clip].map { (Double(wake.truth.wordEnd) / Double(SoakMaterial.sampleRate) / 3600, wake.error! - $0) }
        }
    }

    /// The fitted change of timing error from the first to the last wake word (seconds).
    var drift: Double? {
        let points = residuals
        guard let first = points.first, let last = points.last, last.hours > first.hours else { return nil }
        return Self.linearSlope(points.map { ($0.hours, $0.error) }) * (last.hours - first.hours)
    }

    var memoryGrowthBound: Double? {
        memory.map { Self.memoryGrowthMiB + Self.memoryGrowthFraction * $0.startMiB }
    }

    /// Why the run failed; empty when it passed.
    var failures: [String] {
        var reasons: [String] = []
        if wakes.isEmpty { reasons.append("no wake words were said") }
        if !missed.isEmpty { reasons.append("\(missed.count) wake words missed") }
        if doubles > 0 { reasons.append("\(doubles) wake words detected more than once") }
        if !lateOrEarly.isEmpty { reasons.append("\(lateOrEarly.count) detections outside \(Self.timingTolerance) s of the word's end") }
        if let drift, abs(drift) > Self.driftTolerance { reasons.append(String(format: "detection times drifted by %+.3f s", drift)) }
        if audioLost.reports > 0 { reasons.append("audio was lost \(audioLost.reports) times") }
        if susiRequests != transcripts.total - transcripts.empty {
            reasons.append("\(susiRequests) SUSI requests for \(transcripts.total - transcripts.empty) transcripts")
        }
        if let memory, leaks == nil, let bound = memoryGrowthBound, memory.endMiB - memory.startMiB > bound {
            reasons.append(String(format: "resident memory grew by %.1f MiB (bound %.1f)", memory.endMiB - memory.startMiB, bound))
        }
        if let leaks, leaks.reports > 0 || leaks.otherErrors > 0 {
            reasons.append("sanitizer: \(leaks.reports) leak reports, \(leaks.otherErrors) other errors")
        }
        if exitStatus != 0 { reasons.append(exitStatus.map { "hotword run exited with status \($0)" } ?? "hotword run did not stop within the timeout") }
        return reasons
    }

    // MARK: Text

    var text: String {
        var lines: [String] = []
        let hours = audioSeconds / 3600
        lines.append(String(format: "audio: %.2f h in %.2f h wall (%.0f× overall; %.0f %% of the audio at the slow speed)",
                            hours, wallSeconds / 3600, audioSeconds / max(wallSeconds, 1e-9), slowFraction * 100))
        lines.append("wake words: \(wakes.count) expected, \(detectedOnce) detected once, \(doubles) double, \(missed.count) missed; "
            + "\(modelMisses.count) missed by the detector itself on the same samples (\(modelMisses.filter { $0.detections > 0 }.count) of them heard by the daemon all the same); "
            + "\(falseWakes.count) false wakes" + (falseWakes.isEmpty ? "" : " (at " + falseWakes.prefix(10).map { String(format: "%.1f s", $0) }.joined(separator: ", ") + (falseWakes.count > 10 ? ", …)" : ")")))
        let (first, last) = timing
        if !first.isEmpty {
            lines.append(String(format: "timing (detection − word end): first %d: mean %+.3f s, max |%.3f| s; last %d: mean %+.3f s, max |%.3f| s; %d outside %@",
                                first.count, Self.mean(first), first.map(abs).max() ?? 0, last.count, Self.mean(last),
                                last.map(abs).max() ?? 0, lateOrEarly.count, "\(Self.timingTolerance) s"))
        }
        if let drift {
            let points = residuals
            lines.append(String(format: "drift (same recording, later in the run): %+.4f s over the run (%+.3f ms per audio hour); residual jitter max |%.3f| s",
                                drift, Self.linearSlope(points.map { ($0.hours, $0.error) }) * 1000, points.map { abs($0.error) }.max() ?? 0))
        } else {
            lines.append("drift: not measured (no recording was said twice)")
        }
        lines.append(String(format: "audio lost: %.3f s at the start of %d episodes", audioLost.seconds, audioLost.reports))
        lines.append("questions: \(transcripts.total) transcripts (\(transcripts.empty) empty), \(susiRequests) SUSI requests, \(answers) answers, \(bargeIns) cut short by the next wake word; "
            + "ended by " + endReasons.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        if !errors.isEmpty {
            lines.append("errors: " + errors.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        if let memory {
            lines.append(String(format: "RSS: start %.1f MiB (after %.0f s of audio), peak %.1f MiB, end %.1f MiB; slope %+.3f MiB per audio hour%@",
                                memory.startMiB, memory.warmUpAudioSeconds, memory.peakMiB, memory.endMiB, memory.slopeMiBPerHour,
                                leaks == nil ? "" : " (AddressSanitizer build: not checked)"))
        }
        if let leaks {
            lines.append("leaks: \(leaks.reports == 0 ? "none" : "\(leaks.bytes) bytes in \(leaks.allocations) allocations") (LeakSanitizer)"
                + (leaks.otherErrors > 0 ? "; \(leaks.otherErrors) other sanitizer errors" : ""))
        } else {
            lines.append("leaks: not checked (run with --asan)")
        }
        lines.append("hotword run: " + (exitStatus.map { "exit status \($0)" } ?? "killed after the stop timeout"))
        let failures = failures
        lines.append(failures.isEmpty ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        return lines.joined(separator: "\n")
    }

    private static func mean(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.reduce(0, +) / Double(values.count)
    }
}
