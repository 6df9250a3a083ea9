/// One page of a query's results (`StoreCollection.page(params:options:size:after:)`): the
/// results, and the token that resumes after the last of them.
public struct Page<Object> {
    /// The results, in the query's order (the plan's without a sort).
    public var objects: [Object]
    /// Where the next page starts; `nil` when this page holds the last results.
    public var next: PageToken?

    /// A page of `objects` followed by the page `next` names.
    public init(objects: [Object], next: PageToken?) {
        self.objects = objects
        self.next = next
    }
}

extension Page: Sendable where Object: Sendable {}
