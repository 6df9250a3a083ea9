extension Document {
    /// The value of `field` — a top-level name, or a dotted path (``FieldPath``) — or `nil`
    /// when missing. A field that is not a valid path is looked up as a top-level name.
    public func value(atPath field: String) -> Value? {
        guard FieldPath.needsParsing(field), let path = try? FieldPath(parsing: field) else { return self[field] }
        return path.value(in: self)
    }
}
