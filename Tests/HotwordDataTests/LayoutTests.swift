import Foundation
@testable import HotwordData
import Testing

@Suite("corpus layouts")
struct LayoutTests {
    @Test(arguments: [
        // Speech Commands: first takes only, named speaker first; noise as it is.
        (CorpusLayout.speechCommands, "./yes/0a7c2a8d_nohash_0.wav", "words/0a7c2a8d_yes.wav", "yes"),
        (.speechCommands, "yes/0a7c2a8d_nohash_0.wav", "words/0a7c2a8d_yes.wav", "yes"),
        (.speechCommands, "./_background_noise_/dishes.wav", "noise/dishes.wav", "noise"),
        // LibriSpeech: speaker, then chapter and utterance.
        (.librispeech, "LibriSpeech/dev-clean/84/121123/84-121123-0000.flac", "speech/84_121123-0000.flac", "84"),
        // OpenSLR 28: the first response of small and medium rooms, and the point-source noises.
        (.openslrRIRsNoises, "RIRS_NOISES/simulated_rirs/smallroom/Room007/Room007-00001.wav", "rirs/smallroom-Room007.wav", "rirs"),
        (.openslrRIRsNoises, "RIRS_NOISES/simulated_rirs/mediumroom/Room112/Room112-00001.wav", "rirs/mediumroom-Room112.wav", "rirs"),
        (.openslrRIRsNoises, "RIRS_NOISES/pointsource_noises/noise-free-sound-0001.wav", "noise/noise-free-sound-0001.wav", "noise"),
        (.musan, "musan/noise/free-sound/noise-free-sound-0003.wav", "noise/noise-free-sound-0003.wav", "noise"),
    ])
    func keptMembersGoToTheirRoleUnderTheirName(layout: CorpusLayout, member: String, target: String, group: String) throws {
        let placement = try #require(layout.placement(of: member))
        #expect("\(placement.role.rawValue)/\(placement.fileName)" == target)
        #expect(placement.group == group)
    }

    @Test(arguments: [
        (CorpusLayout.speechCommands, "./yes/0a7c2a8d_nohash_1.wav"),      // a second take
        (.speechCommands, "./README.md"),
        (.speechCommands, "./validation_list.txt"),
        (.librispeech, "LibriSpeech/dev-clean/84/121123/84-121123.trans.txt"),
        (.librispeech, "LibriSpeech/LICENSE.TXT"),
        (.openslrRIRsNoises, "RIRS_NOISES/simulated_rirs/smallroom/Room007/Room007-00002.wav"),
        (.openslrRIRsNoises, "RIRS_NOISES/simulated_rirs/largeroom/Room007/Room007-00001.wav"),
        (.openslrRIRsNoises, "RIRS_NOISES/real_rirs_isotropic_noises/RVB2014_type1_rir_largeroom1_far_angla.wav"),
        (.musan, "musan/music/fma/music-fma-0000.wav"),
        (.musan, "musan/speech/librivox/speech-librivox-0000.wav"),
    ])
    func otherMembersAreLeftInTheArchive(layout: CorpusLayout, member: String) {
        #expect(layout.placement(of: member) == nil)
    }

    @Test func selectionsKeepWhatTheyPromise() {
        #expect((0..<50).filter { Placement.Take.first(40).keeps($0) }.count == 40)
        #expect((0..<12).filter { Placement.Take.everyNth(4).keeps($0) } == [0, 4, 8])
        #expect(CorpusLayout.speechCommands.placement(of: "no/x_nohash_0.wav")?.take == .first(40))
        #expect(CorpusLayout.librispeech.placement(of: "LibriSpeech/dev-clean/84/1/84-1-0.flac")?.take == .first(20))
        #expect(CorpusLayout.musan.placement(of: "musan/noise/free-sound/n.wav")?.take == .everyNth(4))
    }
}
