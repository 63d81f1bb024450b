/// Turns one keyword's stream of network scores into detections: moving-average smoothing,
/// a threshold, a trigger level (consecutive outputs above it) and a refractory period.
struct KeywordTrigger {
    let keyword: String
    private(set) var threshold: Float
    let triggerLevel: Int
    let refractorySeconds: Double
    /// Outputs before the network has seen a full receptive field of real audio; ignored.
    let warmupOutputs: Int
    /// The end of the stream's first frame, seconds: outputs timed before it heard only the
    /// detector's lead-in (copies of that frame), and never detect.
    let firstFrameEnd: Double

    private var window: [Float]
    private var windowNext = 0
    private var windowFilled = 0
    private var runAboveThreshold = 0
    private var outputsSeen = 0
    private var quietUntil = -Double.infinity

    init(keyword: String, threshold: Float, smoothingOutputs: Int, triggerLevel: Int, refractorySeconds: Double, warmupOutputs: Int,
         firstFrameEnd: Double) {
        self.firstFrameEnd = firstFrameEnd
        self.keyword = keyword
        self.threshold = threshold
        self.triggerLevel = triggerLevel
        self.refractorySeconds = refractorySeconds
        self.warmupOutputs = warmupOutputs
        window = [Float](repeating: 0, count: max(smoothingOutputs, 1))
    }

    mutating func setThreshold(_ value: Float) { threshold = value }

    /// Feeds one score; returns the smoothed score and a detection if this output triggers one.
    mutating func observe(_ score: Float, at time: Double) -> (smoothed: Float, detection: Detection?) {
        window[windowNext] = score
        windowNext = (windowNext + 1) % window.count
        windowFilled = min(windowFilled + 1, window.count)
        var sum: Float = 0
        for value in window { sum += value }
        let smoothed = sum / Float(windowFilled)

        outputsSeen += 1
        runAboveThreshold = smoothed >= threshold ? runAboveThreshold + 1 : 0
        guard time >= firstFrameEnd, outputsSeen > warmupOutputs, runAboveThreshold >= triggerLevel, time >= quietUntil else {
            return (smoothed, nil)
        }
        runAboveThreshold = 0
        quietUntil = time + refractorySeconds
        return (smoothed, Detection(keyword: keyword, time: time, score: smoothed))
    }

    mutating func reset() {
        for i in window.indices { window[i] = 0 }
        windowNext = 0
        windowFilled = 0
        runAboveThreshold = 0
        outputsSeen = 0
        quietUntil = -.infinity
    }
}
