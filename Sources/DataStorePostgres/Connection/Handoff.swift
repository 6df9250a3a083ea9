/// A value handed from the reader thread that made it to the one task awaiting it: safe to send
/// because the thread never touches it again.
struct Handoff<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
