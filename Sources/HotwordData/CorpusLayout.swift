import Foundation

/// How a corpus's archive is laid out, and which of its files `hotword data fetch` keeps and
/// under what name. Every corpus of a layout is unpacked the same way, so a new corpus of a
/// known layout (another LibriSpeech subset, say) is one catalogue line.
///
/// Files keep their format (WAV or FLAC, 16 kHz, which `train` reads as they are); names start
/// with the speaker and `_` where the corpus names one, so that train, validation and test
/// parts never share a speaker. Where a corpus is far larger than a training run can hold in
/// memory (`train` loads every clip), a fixed, documented selection is kept.
public enum CorpusLayout: String, CaseIterable, Sendable {
    /// Google Speech Commands: `WORD/SPEAKER_nohash_N.wav`, one second each. Kept: each
    /// speaker's first take (`N` = 0) of a word, at most 40 speakers per word, as
    /// `words/SPEAKER_WORD.wav`; and `_background_noise_/*.wav` as `noise/`.
    case speechCommands = "speech-commands"
    /// LibriSpeech: `LibriSpeech/SUBSET/SPEAKER/CHAPTER/SPEAKER-CHAPTER-N.flac`, read English.
    /// Kept: the first 20 utterances of each speaker, as `speech/SPEAKER_CHAPTER-N.flac`.
    case librispeech
    /// OpenSLR 28 (RIRS_NOISES): simulated rooms, `simulated_rirs/{small,medium,large}room/RoomN/RoomN-M.wav`,
    /// and point-source noises. Kept: the first response of every small and medium room (the
    /// size of living rooms) as `rirs/smallroom-RoomN.wav`, and `pointsource_noises/*.wav` as `noise/`.
    case openslrRIRsNoises = "openslr-rirs-noises"
    /// MUSAN: `musan/noise/SOURCE/*.wav` (the music and speech parts are not kept). Kept: every
    /// fourth noise, about 1.5 of its 6 hours, as `noise/`.
    case musan

    /// The folders a corpus of this layout fills.
    public var roles: [CorpusRole] {
        switch self {
        case .speechCommands: [.words, .noise]
        case .librispeech: [.speech]
        case .openslrRIRsNoises: [.rirs, .noise]
        case .musan: [.noise]
        }
    }

    /// Where the archive member `path` goes, or nil when it is not kept.
    func placement(of path: String) -> Placement? {
        let parts = path.split(separator: "/").map(String.init).filter { $0 != "." }
        guard let file = parts.last else { return nil }
        let stem = (file as NSString).deletingPathExtension, fileExtension = (file as NSString).pathExtension.lowercased()
        switch self {
        case .speechCommands:
            guard parts.count == 2, fileExtension == "wav" else { return nil }
            if parts[0] == "_background_noise_" { return Placement(role: .noise, fileName: file, group: "noise", take: .all) }
            let pieces = stem.components(separatedBy: "_nohash_")
            guard pieces.count == 2, pieces[1] == "0", !pieces[0].isEmpty else { return nil }
            return Placement(role: .words, fileName: "\(pieces[0])_\(parts[0]).wav", group: parts[0], take: .first(40))
        case .librispeech:
            let speaker = parts.count == 5 ? parts[2] : ""
            guard parts.count == 5, parts[0] == "LibriSpeech", fileExtension == "flac", stem.hasPrefix("\(speaker)-") else { return nil }
            return Placement(role: .speech, fileName: "\(speaker)_\(stem.dropFirst(speaker.count + 1)).flac", group: speaker, take: .first(20))
        case .openslrRIRsNoises:
            guard parts.first == "RIRS_NOISES", fileExtension == "wav" else { return nil }
            if parts.count == 5, parts[1] == "simulated_rirs", ["smallroom", "mediumroom"].contains(parts[2]), stem == "\(parts[3])-00001" {
                return Placement(role: .rirs, fileName: "\(parts[2])-\(parts[3]).wav", group: "rirs", take: .all)
            }
            if parts.count == 3, parts[1] == "pointsource_noises" {
                return Placement(role: .noise, fileName: file, group: "noise", take: .all)
            }
            return nil
        case .musan:
            guard parts.count == 4, parts[0] == "musan", parts[1] == "noise", fileExtension == "wav" else { return nil }
            return Placement(role: .noise, fileName: file, group: "noise", take: .everyNth(4))
        }
    }
}

/// A kept archive member: its folder, its name there, and the group whose count the layout
/// caps (a word, a speaker), counted in the archive's order.
struct Placement: Equatable {
    enum Take: Equatable {
        case all
        case first(Int)
        case everyNth(Int)

        /// Whether the `index`-th (0-based) member of its group is kept.
        func keeps(_ index: Int) -> Bool {
            switch self {
            case .all: true
            case .first(let count): index < count
            case .everyNth(let stride): index % stride == 0
            }
        }
    }

    let role: CorpusRole
    let fileName: String
    let group: String
    let take: Take
}
