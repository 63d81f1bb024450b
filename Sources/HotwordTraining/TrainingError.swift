/// Why training, evaluation or tuning could not go on.
public enum TrainingError: Error, Sendable, CustomStringConvertible {
    case missingFolder(String)
    case noAudio(role: String, folders: [String])
    case unreadableClip(path: String, reason: String)
    case invalidOption(name: String, value: String, expected: String)
    case diverged(epoch: Int, loss: Float)
    /// Models that cannot be run side by side as one network, and why.
    case incompatibleEnsemble(String)

    public var description: String {
        switch self {
        case .missingFolder(let path): "\(path): no such file or folder (nor files matching it)"
        case .noAudio(let role, let folders): "no \(role) audio files in \(folders.joined(separator: ", "))"
        case .unreadableClip(let path, let reason): "\(path): \(reason)"
        case .invalidOption(let name, let value, let expected): "\(name) \(value) is invalid: expected \(expected)"
        case .diverged(let epoch, let loss): "training diverged in epoch \(epoch) (loss \(loss)); try a lower learning rate"
        case .incompatibleEnsemble(let reason): "cannot combine the models into an ensemble: \(reason)"
        }
    }
}
