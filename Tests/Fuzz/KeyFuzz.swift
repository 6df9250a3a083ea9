// libFuzzer target: the ordered key decoder (docs/encoding.md, ordered key format).
//
// Any input must throw CodecError or decode; never crash. And an accepted key whose components
// were not cut re-encodes to exactly its bytes (the decoder accepts only canonical forms), with
// the directions it reported; `decode(_:descending:)` agrees with `decodeComponents`.
func keyFuzz(_ bytes: UnsafeRawBufferPointer) {
    guard let components = try? KeyCodec.decodeComponents(bytes) else { return }
    let array = Array(bytes)
    let values = try? KeyCodec.decode(array, descending: components.map(\.isDescending))
    fuzzCheck(values == components.map(\.value), "decode(_:descending:) disagrees with decodeComponents")
    for component in components {
        _ = component.description
    }
    guard !components.contains(where: \.isTruncated) else { return }
    var again: [UInt8] = []
    for component in components {
        KeyCodec.append(component.value, to: &again, descending: component.isDescending)
    }
    fuzzCheck(again == array, "accepted key \(array) re-encodes to \(again)")
}
