extension Duration {
    /// The duration in whole nanoseconds, as `DispatchTime` counts: 0 for a negative one, and
    /// `UInt64.max` past what that holds, so that comparing with a clock never traps.
    package var saturatingNanoseconds: UInt64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        guard seconds < 1 << 33 else { return .max }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
