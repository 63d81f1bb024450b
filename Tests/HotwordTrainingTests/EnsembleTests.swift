import Foundation
import HotwordCore
import HotwordTraining
import Testing

/// `KeywordModel.ensemble(of:)`: networks run side by side as one.
extension ExportTests {
    static let ensembleFeatures = 12

    /// Two networks of the shipped shape, trained apart and exported.
    func ensembleMembers(keywords: [String] = ["hey susi"]) throws -> [KeywordModel] {
        try [UInt64(3), 4].map { seed in
            let network = try Network(features: Self.ensembleFeatures, layers: LayerSpec.dilatedDepthwiseStack(channels: 8), seed: seed)
            try prepare(network, seed: seed * 10)
            return KeywordModel(keywords: keywords, frontend: FrontendConfig(melBands: Self.ensembleFeatures), layers: network.exportLayers())
        }
    }

    /// The ensemble's score of each window is the sigmoid of its two members' mean logit.
    func expectMeanLogit(of members: [KeywordModel], in ensemble: KeywordModel, windows: WindowBatch) throws {
        let memberScores = try members.map {
            try streamedLastOutputs($0.layers, features: Self.ensembleFeatures, windows: windows, keywords: $0.keywords)
        }
        let scores = try streamedLastOutputs(ensemble.layers, features: Self.ensembleFeatures, windows: windows, keywords: ensemble.keywords)
        try #require(scores.count == windows.count && memberScores.allSatisfy { $0.count == windows.count })
        func logit(_ p: Float) -> Double { log(Double(p) / (1 - Double(p))) }
        for w in scores.indices {
            let expected = 1 / (1 + exp(-(logit(memberScores[0][w]) + logit(memberScores[1][w])) / 2))
            #expect(abs(Double(scores[w]) - expected) < 1e-5, "window \(w): \(scores[w]) against \(expected)")
        }
        #expect(Set(memberScores[0]) != Set(memberScores[1]), "the members must differ for the test to mean anything")
    }

    @Test func anEnsembleScoresTheSigmoidOfItsMembersMeanLogit() throws {
        let members = try ensembleMembers()
        let ensemble = try KeywordModel.ensemble(of: members)
        #expect(ensemble.parameterCount == 2 * members[0].parameterCount - 1, "the members share one output bias")
        #expect(ensemble.multiplyAddsPerSecond == 2 * members[0].multiplyAddsPerSecond, "no work on zero blocks")
        let grouped = ensemble.layers.filter { if case .conv1D(let c) = $0 { c.groups == 2 } else { false } }
        #expect(grouped.count == 4, "each member's pointwise convolutions see only its own channels")

        let frames = NetworkTestData.alignedFrames(atLeast: ensemble.receptiveField, stride: ensemble.totalStride)
        let windows = NetworkTestData.windows(count: 6, frames: frames, features: Self.ensembleFeatures, seed: 5, scale: 1.5, offset: 0.7)
        try expectMeanLogit(of: members, in: ensemble, windows: windows)
    }

    /// The head `--features speech-embedding` trains: a convolution over the whole window, a
    /// hidden dense layer (block-diagonal side by side), the output.
    @Test func anEnsembleOfHeadsWithHiddenDenseLayersAveragesTheirLogits() throws {
        let members = try [UInt64(5), 6].map { seed in
            let network = try Network(features: Self.ensembleFeatures, layers: LayerSpec.embeddingHead(channels: 6, window: 4), seed: seed)
            try prepare(network, seed: seed * 10)
            return KeywordModel(keywords: ["hey susi"], frontend: FrontendConfig(melBands: Self.ensembleFeatures), layers: network.exportLayers())
        }
        let ensemble = try KeywordModel.ensemble(of: members)
        let windows = NetworkTestData.windows(count: 6, frames: ensemble.receptiveField, features: Self.ensembleFeatures, seed: 7, scale: 1.5, offset: 0.7)
        try expectMeanLogit(of: members, in: ensemble, windows: windows)
    }

    @Test func modelsThatCannotRunSideBySideAreNamed() throws {
        let members = try ensembleMembers()
        var otherFrontend = members[1]
        otherFrontend.frontend.normalisation = .perChannelEnergyDefaults
        #expect { try KeywordModel.ensemble(of: [members[0], otherFrontend, members[1]]) } throws: {
            "\($0)" == "cannot combine the models into an ensemble: member 2 does not match member 1 in its frontend (models on two front ends pair two at a time)"
        }
        let otherWord = try ensembleMembers(keywords: ["computer"])[1]
        #expect { try KeywordModel.ensemble(of: [members[0], otherWord]) } throws: {
            "\($0)" == "cannot combine the models into an ensemble: member 2 does not match member 1 in its keywords"
        }
        let recurrent = try Network(features: Self.ensembleFeatures, layers: [.gru(hidden: 4), .dense(outputs: 1, activation: .sigmoid)], seed: 1)
        let gru = KeywordModel(keywords: ["hey susi"], frontend: FrontendConfig(melBands: Self.ensembleFeatures), layers: recurrent.exportLayers())
        #expect { try KeywordModel.ensemble(of: [gru, gru]) } throws: {
            "\($0)" == "cannot combine the models into an ensemble: layer 0: recurrent layers are not supported in an ensemble"
        }
        #expect(try KeywordModel.ensemble(of: [members[0]]) == members[0], "one member is itself")
    }

    /// Two models on different front ends cannot share a network: the second runs beside the first
    /// as its companion, with half the mean logit. A pair pairs no further.
    @Test func modelsOnTwoFrontEndsPair() throws {
        let members = try ensembleMembers()
        var otherFrontend = members[1]
        otherFrontend.frontend.normalisation = .perChannelEnergyDefaults
        let pair = try KeywordModel.ensemble(of: [members[0], otherFrontend])
        #expect(pair.layers == members[0].layers && pair.frontend == members[0].frontend)
        #expect(pair.companion == CompanionNetwork(frontend: otherFrontend.frontend, layers: otherFrontend.layers, weight: 0.5))
        #expect(pair.parameterCount == members[0].parameterCount + otherFrontend.parameterCount)
        #expect(pair.multiplyAddsPerSecond == members[0].multiplyAddsPerSecond + otherFrontend.multiplyAddsPerSecond)
        #expect { try KeywordModel.ensemble(of: [pair, members[1]]) } throws: {
            "\($0)" == "cannot combine the models into an ensemble: member 1 already has a companion network"
        }
    }
}
