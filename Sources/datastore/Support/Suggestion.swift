/// "Did you mean" for a misspelled command or option: the closest known word, when it is close.
enum Suggestion {
    /// The word of `candidates` nearest to `word` in edits (insertions, deletions, substitutions,
    /// and swaps of neighbours), when at most 2 edits and at most a third of its length away.
    /// Ties go to the candidate listed first.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        var best: (word: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            guard distance <= min(2, max(1, candidate.count / 3)) else { continue }
            if best == nil || distance < best!.distance { best = (candidate, distance) }
        }
        return best?.word
    }

    /// The optimal string alignment distance between `a` and `b`.
    /// - Complexity: O(*a* × *b*).
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }

    /// ` (did you mean X?)` for the closest candidate, or nothing.
    static func note(for word: String, among candidates: [String], quoted: (String) -> String) -> String {
        closest(to: word, among: candidates).map { " (did you mean \(quoted($0))?)" } ?? ""
    }
}
