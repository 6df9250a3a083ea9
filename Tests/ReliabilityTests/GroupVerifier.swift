import DataStoreCrashHelper

/// Checks what a store holds against what the crash helper acknowledged.
///
/// - Every group (change set) present is complete: exactly `of` documents, indexes `0..<of`, each
///   with the payload it was written with.
/// - A group that removed another is present only with that other group wholly gone (the remove
///   and the inserts were one change set).
/// - Every acknowledged group is present, unless a present group removed it.
enum GroupVerifier {
    static func problems(stored: [CrashItem], acknowledged: [Acknowledgement]) -> [String] {
        var problems: [String] = []
        let groups = Dictionary(grouping: stored, by: \.tag)
        var removedBy: [String: String] = [:]
        for (tag, documents) in groups {
            let count = documents[0].of
            let indexes = documents.map(\.index).sorted()
            if indexes != Array(0..<count) || documents.contains(where: { $0.of != count }) {
                problems.append("group \(tag) is partly present: indexes \(indexes) of \(count)")
            }
            for document in documents
            where document.payload != CrashWorkload.payload(tag: tag, index: document.index)
                || document.id != "\(tag).\(document.index)"
            {
                problems.append("document \(document.id) of group \(tag) does not hold what was written")
            }
            if let removed = documents[0].removes {
                removedBy[removed] = tag
                if let left = groups[removed] {
                    problems.append(
                        "group \(tag) is present but the group \(removed) it removed still has \(left.count) document(s)"
                    )
                }
            }
        }
        for acknowledgement in acknowledged {
            if let documents = groups[acknowledgement.tag] {
                if documents.count != acknowledgement.count {
                    problems.append(
                        "acknowledged group \(acknowledgement.tag) has \(documents.count) of \(acknowledgement.count) documents"
                    )
                }
                if documents[0].removes != acknowledgement.removes {
                    problems.append("acknowledged group \(acknowledgement.tag) lost its removes field")
                }
            } else if removedBy[acknowledgement.tag] == nil {
                problems.append("acknowledged group \(acknowledgement.tag) is missing and no present group removed it")
            }
        }
        return problems.sorted()
    }
}
