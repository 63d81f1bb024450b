/// How often each positive folder's training clips are drawn when folders are balanced
/// (`hotword train --balance-positives`): as often as it takes to match the largest folder,
/// so a few hundred recordings of people are not outweighed by thousands of synthetic clips.
/// Each repeat is augmented afresh.
public enum FolderBalance {
    /// Repeats per folder for folders of `counts` clips: the largest folder's count divided by
    /// the folder's, rounded, at least 1 (0 for an empty folder).
    public static func repeats(clipCounts counts: [Int]) -> [Int] {
        let largest = counts.max() ?? 0
        return counts.map { $0 == 0 ? 0 : max(1, Int((Double(largest) / Double($0)).rounded())) }
    }
}
