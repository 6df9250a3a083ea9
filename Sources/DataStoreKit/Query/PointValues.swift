import DataStoreCore

/// The values of a ``PointQuery``'s conditions, in condition order, held inline: binding a call's
/// values allocates nothing.
struct PointValues {
    private var values: (Value, Value, Value, Value) = (.null, .null, .null, .null)

    /// The value of the condition at `position` (below ``PointQuery/maxConditions``).
    subscript(position: Int) -> Value {
        get {
            switch position {
            case 0: values.0
            case 1: values.1
            case 2: values.2
            default: values.3
            }
        }
        set {
            switch position {
            case 0: values.0 = newValue
            case 1: values.1 = newValue
            case 2: values.2 = newValue
            default: values.3 = newValue
            }
        }
    }
}
