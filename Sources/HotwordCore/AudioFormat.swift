/// The audio hotword hears: mono Float samples at 16 kHz. Microphones, files and Wyoming
/// clients at other rates are converted to it; the detector's stream, the utterance recorder
/// and the speech recognisers take it.
public enum AudioFormat {
    public static let sampleRate = 16_000
}
