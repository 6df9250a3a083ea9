/// Another process wrote the collection while this one built an index from a snapshot: the
/// entries appended from the snapshot may disagree with the records, so the build starts over in
/// chunks. Never reaches a caller.
struct SnapshotBuildDisturbed: Error {}
