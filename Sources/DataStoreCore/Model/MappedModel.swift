/// A model that shows how it maps objects to documents, so that protocol defaults needing a
/// document (``ModelProtocol/update(id:set:unset:)``, ``ModelProtocol/remove(params:)``) work for it.
public protocol MappedModel<Object>: ModelProtocol {
    /// How the model's objects become documents and back, and which field is the id.
    var mapping: ObjectMapping<Object> { get }
}
