extension CodecError {
    /// The one error for an integer that does not fit `Int64`, whichever reader met it (JSON text,
    /// an integral `Decimal`): never a silent double.
    static func integerOutOfRange(_ digits: String, offset: Int? = nil) -> CodecError {
        CodecError(
            .outOfRange,
            "the integer \(digits) does not fit a 64-bit signed integer (\(Int64.min) to "
                + "\(Int64.max)); store it as a string, or write it with a fraction or an exponent to store the nearest "
                + "double", offset: offset)
    }

    /// The number written in decimal `text` as the nearest double, or `.outOfRange` beyond a
    /// double's range (JSON cannot carry infinity).
    static func nearestDouble(_ text: String, offset: Int? = nil) throws(CodecError) -> Value {
        guard let value = Double(text), value.isFinite else {
            throw CodecError(.outOfRange, "the number \(text) is beyond the range of a double", offset: offset)
        }
        return .double(value)
    }
}
