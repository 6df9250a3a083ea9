/// The fixtures every test target shares (the seed's `Message`, `SeededGenerator`, `TemporaryDirectory`) come
/// with the conformance battery, so a test target that uses one imports one module.
@_exported public import TestSupport
