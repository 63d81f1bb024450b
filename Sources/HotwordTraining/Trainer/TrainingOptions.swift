import Foundation
import HotwordCore

/// Everything `hotword train` can be told; recorded in the model so it can be trained again.
public struct TrainingOptions: Sendable {
    public var keyword: String
    /// Folders (or files) of the keyword spoken, one utterance per clip.
    public var positiveFolders: [String]
    /// Speech and sounds that are not the keyword: short clips (confusable words, other
    /// keywords) and long recordings alike.
    public var negativeFolders: [String]
    /// Recordings of the keyword by the person the model is for (folders or files): all trained
    /// on, never split off for validation or test, and drawn often enough to make up
    /// `personalShare` of the keyword windows.
    public var personalFolders: [String] = []
    /// Share of keyword windows taken from `personalFolders` (each drawn again with fresh
    /// augmentation as often as needed; never less than once).
    public var personalShare = 0.4
    /// Draw each of `positiveFolders`' training clips as often as the largest folder's
    /// (`FolderBalance`).
    public var balancePositiveFolders = false
    public var noiseFolders: [String] = []
    public var roomResponseFolders: [String] = []
    /// Clips that falsely woke a model; trained on as negatives with extra weight.
    public var falseAlarmFolders: [String] = []
    public var split = DataSplit()
    public var seed: UInt64 = 1
    /// Networks trained in lockstep on the same example pools (seeds `seed`, `seed + 1`, … for
    /// their initial weights, batch order and hard-negative search) and run side by side as one
    /// (`KeywordModel.ensemble(of:)`); 1 trains a single network.
    public var ensembleMembers = 1
    public var epochs = 24
    /// Stop when the validation score has not improved for this many epochs.
    public var patience = 6
    /// Time constant, in epochs, of the moving average of the weights that validation scores and
    /// training keeps (`WeightAverage`); 0 keeps the optimiser's weights as they are.
    public var averageEpochs: Double = 0
    public var batchSize = 64
    public var learningRate: Float = 2e-3
    /// Width of the network (channels of every convolution).
    public var channels = 48
    /// Dropout after each depthwise-separable block, while training only.
    public var dropout: Float = 0
    /// Augmented windows per positive clip in each example pool.
    public var positiveVariants = 8
    /// Windows cut from negative audio in each example pool.
    public var negativeWindows = 24_000
    /// Windows of noise or music alone (the noise recordings and generated music) in each
    /// training pool, as negatives: a model must not wake when nobody speaks.
    public var noiseAloneWindows = 0
    /// A fresh pool (new augmentation) is drawn every this many epochs.
    public var epochsPerPool = 3
    /// Rounds of: score the negative audio, add the false alarms as hard negatives, fine-tune.
    public var hardNegativeRounds = 1
    /// Passes over the negative audio, each with fresh augmentation, in every hard-negative round.
    public var miningPasses = 1
    public var augmentation = AugmentationSettings()
    public var frontend = FrontendConfig()
    public var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Clips longer than this are treated as long recordings (windows anywhere), shorter ones
    /// also as whole utterances (windows aligned to their end, like the keyword's).
    public var utteranceSeconds: Double = 6
    /// The command line, stored in the model's training record.
    public var command = ""

    public init(keyword: String, positiveFolders: [String], negativeFolders: [String]) {
        self.keyword = keyword
        self.positiveFolders = positiveFolders
        self.negativeFolders = negativeFolders
    }

    func validate() throws(TrainingError) {
        func check(_ ok: Bool, _ name: String, _ value: Any, _ expected: String) throws(TrainingError) {
            if !ok { throw .invalidOption(name: name, value: "\(value)", expected: expected) }
        }
        try check(!keyword.trimmingCharacters(in: .whitespaces).isEmpty, "--keyword", "''", "a name")
        try check(epochs >= 1, "--epochs", epochs, "at least 1")
        try check((1...8).contains(ensembleMembers), "--ensemble", ensembleMembers, "1 to 8 networks")
        try check(patience >= 1, "--patience", patience, "at least 1")
        try check(averageEpochs >= 0 && averageEpochs.isFinite, "--average-epochs", averageEpochs, "0 or more")
        try check(batchSize >= 2, "--batch-size", batchSize, "at least 2")
        try check(learningRate > 0 && learningRate < 1, "--learning-rate", learningRate, "in (0, 1)")
        try check(channels >= 4 && channels <= 512, "--channels", channels, "4 to 512")
        try check(dropout >= 0 && dropout < 0.9, "--dropout", dropout, "0 to 0.9")
        try check(positiveVariants >= 1, "--positive-variants", positiveVariants, "at least 1")
        try check(negativeWindows >= 10, "--negative-windows", negativeWindows, "at least 10")
        try check(noiseAloneWindows >= 0, "--noise-windows", noiseAloneWindows, "0 or more")
        try check((0...1).contains(augmentation.channelProbability), "--channels-augmented", augmentation.channelProbability, "0 to 1")
        try check((0...1).contains(augmentation.playedChannelProbability), "--played-channels-augmented", augmentation.playedChannelProbability, "0 to 1")
        try check(epochsPerPool >= 1, "--epochs-per-pool", epochsPerPool, "at least 1")
        try check(miningPasses >= 1, "--mining-passes", miningPasses, "at least 1")
        try check(threads >= 1, "--threads", threads, "at least 1")
        try check(personalShare > 0 && personalShare < 1, "personal share", personalShare, "between 0 and 1")
        try check((0..<1).contains(split.validationFraction + split.testFraction), "split", split.summary, "fractions summing below 1")
    }
}
