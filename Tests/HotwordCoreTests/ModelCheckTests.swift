import HotwordCore
import HotwordTestSupport
import Testing

/// `ModelCheck` from arrays: a second network judging the windows around detections.
@Suite struct ModelCheckTests {
    /// Windows holding a 1.5 kHz ping, a 1 kHz beep, or nothing, in an order no lane pattern matches.
    static let kinds: [Double?] = [1_500, 1_000, nil, 1_500, 1_500, nil, 1_000, 1_500, nil]
    static let windows = kinds.map { frequency in
        ToneModels.signal(seconds: 3, tones: frequency.map { [(1.5, $0)] } ?? [])
    }

    @Test func keepsTheWindowsWhereTheSecondNetworkHearsItsKeyword() throws {
        let check = try ModelCheck(model: ToneModels.model(keyword: "ping", frequency: 1_500), threshold: 0.5)
        #expect(try check.accepts(Self.windows) == Self.kinds.map { $0 == 1_500 })
        let peaks = check.peakScores(in: Self.windows)
        let pinged = zip(Self.kinds, peaks).filter { $0.0 == 1_500 }.map(\.1)
        let others = zip(Self.kinds, peaks).filter { $0.0 != 1_500 }.map(\.1)
        #expect(pinged.min()! > 0.9 && others.max()! < 0.1, "\(peaks)")
        #expect(check.peakScores(in: [Self.windows[0]]) == [peaks[0]], "each window heard afresh, whatever came before")
    }

    @Test func itsThresholdDecides() throws {
        let lenient = try ModelCheck(model: ToneModels.model(keyword: "ping", frequency: 1_500), threshold: 0.000_01)
        #expect(try lenient.accepts(Self.windows).allSatisfy { $0 })
        #expect(try lenient.accepts([]).isEmpty)
    }

    @Test func anInvalidModelIsRefusedAtOnce() {
        var model = ToneModels.model(keyword: "ping", frequency: 1_500)
        model.layers.removeAll()
        #expect(throws: DetectorError.self) { try ModelCheck(model: model, threshold: 0.5) }
    }
}
