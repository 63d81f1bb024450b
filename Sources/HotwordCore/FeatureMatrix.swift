/// Feature frames of one signal, row-major and contiguous: `values[t · featureCount + i]` is
/// feature i of frame t.
public struct FeatureMatrix: Sendable, Hashable {
    public let featureCount: Int
    public let values: [Float]

    /// `values.count` must be a multiple of `featureCount` (> 0); anything else is a programming error.
    public init(featureCount: Int, values: [Float]) {
        precondition(featureCount > 0 && values.count % featureCount == 0,
                     "\(values.count) values do not make rows of \(featureCount) features")
        self.featureCount = featureCount
        self.values = values
    }

    public var frameCount: Int { values.count / featureCount }

    /// Frame t's features.
    public subscript(frame t: Int) -> ArraySlice<Float> {
        values[t * featureCount..<(t + 1) * featureCount]
    }

    public subscript(frame t: Int, feature i: Int) -> Float {
        values[t * featureCount + i]
    }
}
