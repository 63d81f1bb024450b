import Foundation

/// How `hotword enroll` makes a personal model: which takes, which extra data, how much
/// synthetic speech, the training recipe and the false-alarm target.
public struct EnrollmentOptions: Sendable {
    public var keyword: String
    public var folder: EnrollmentFolder
    /// Where the model is written (atomically).
    public var output: String
    /// The user's own negative audio (e.g. clips that woke a model by mistake) and noise.
    public var negativeFolders: [String] = []
    public var noiseFolders: [String] = []
    /// Synthetic clips of each kind: the phrase, confusable phrases, everyday sentences.
    public var syntheticClips: Int
    /// Text-to-speech engines for the synthetic clips; nil = all installed.
    public var engines: Set<EngineKind>?
    /// Every `heldOutEvery`-th take is kept out of training to check the model; fewer takes
    /// than that are all trained on.
    public var heldOutEvery = 5
    /// False alarms per hour allowed on the held-out synthetic speech at sensitivity 0.5.
    public var targetFalseAlarmsPerHour = 1.0
    /// The training recipe; its keyword and data folders are filled in by `Enrollment`.
    public var training: TrainingOptions
    /// The command line, stored in the model's training record.
    public var command = ""

    /// Takes needed at the least.
    public static let minimumTakes = 3

    /// The recipe for a personal model: a narrower network (32 channels, 0.25 M multiply-adds per
    /// second) and a third of the shipped models' training windows, so it trains in minutes;
    /// `quick` halves that again and uses fewer synthetic clips.
    public init(keyword: String, folder: EnrollmentFolder, output: String, quick: Bool = false) {
        self.keyword = keyword
        self.folder = folder
        self.output = output
        syntheticClips = quick ? 150 : 400
        var training = TrainingOptions(keyword: keyword, positiveFolders: [], negativeFolders: [])
        training.channels = quick ? 24 : 32
        training.epochs = quick ? 6 : 12
        training.patience = quick ? 3 : 4
        training.positiveVariants = quick ? 3 : 4
        training.negativeWindows = quick ? 4_000 : 10_000
        training.hardNegativeRounds = 1
        // No test part: the model is checked on held-out takes; a quarter of the synthetic
        // voices validate (early stopping) and give the held-out speech the threshold is tuned on.
        training.split = DataSplit(validationFraction: 0.25, testFraction: 0)
        self.training = training
    }

    func validate() throws(EnrollmentError) {
        func check(_ ok: Bool, _ name: String, _ value: Any, _ expected: String) throws(EnrollmentError) {
            if !ok { throw .invalidOption(name: name, value: "\(value)", expected: expected) }
        }
        try check(syntheticClips >= 1, "--synthetic", syntheticClips, "at least 1")
        try check(heldOutEvery >= 2, "held-out interval", heldOutEvery, "at least 2")
        try check(targetFalseAlarmsPerHour > 0, "--target-fa-per-hour", targetFalseAlarmsPerHour, "more than 0")
    }
}
