import Foundation

/// Scores are probabilities; thresholds are compared, interpolated and averaged as their log-odds.
public enum LogOdds {
    /// log(p / (1 − p)), with p kept `margin` inside (0, 1), where the log-odds are finite.
    @inlinable
    public static func logit(_ p: Double, margin: Double = 1e-9) -> Double {
        let kept = min(max(p, margin), 1 - margin)
        return log(kept / (1 - kept))
    }

    @inlinable
    public static func logit(_ p: Float, margin: Float = 1e-7) -> Float {
        let kept = min(max(p, margin), 1 - margin)
        return log(kept / (1 - kept))
    }

    @inlinable
    public static func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

    @inlinable
    public static func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }
}
