package import DataStoreCore

/// The values of a point query's conditions, in condition order, held inline: binding a call's
/// values allocates nothing.
package struct PointValues {
    /// The most conditions a point query has.
    package static let capacity = 4

    private var values: (Value, Value, Value, Value) = (.null, .null, .null, .null)

    package init() {}

    /// The value of the condition at `position` (below ``capacity``).
    package subscript(position: Int) -> Value {
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
