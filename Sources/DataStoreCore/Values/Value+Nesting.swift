/// How deep values nest, measured without recursing deeper than the format allows.
///
/// A `Value` can be built in Swift code to any depth, far beyond what the stack can recurse
/// through (`.array([.array([…])])`). The readers refuse input nested deeper than
/// ``RecordCodec/maxDepth`` before they build it, so such a value only exists when a caller
/// made it by hand; every function of this module given one either throws
/// `CodecError.tooDeep` (writers) or walks it with an explicit stack (``nestingDepth``,
/// ``description``, comparison), and never overflows the stack. Releasing it is the caller's:
/// Swift frees nested arrays and dictionaries recursively.
extension Value {
    /// Whether this value is an array or an object.
    @inline(__always)
    var isContainer: Bool {
        switch self {
        case .array, .object: true
        default: false
        }
    }

    /// Throws unless this value nests at most `limit` arrays and objects, counting itself.
    ///
    /// It recurses at most `limit` + 1 levels, whatever the value's depth.
    /// - Throws: `CodecError.tooDeep` whose field path names the first container beyond the limit.
    /// - Complexity: O(*n*) in the number of values within the first `limit` levels.
    func checkNesting(limit: Int) throws(CodecError) {
        switch self {
        case .array(let elements):
            guard limit > 0 else { throw Value.tooDeep() }
            for (index, element) in elements.enumerated() where element.isContainer {
                do throws(CodecError) {
                    try element.checkNesting(limit: limit - 1)
                } catch {
                    throw error.inElement(index)
                }
            }
        case .object(let document):
            guard limit > 0 else { throw Value.tooDeep() }
            for (name, field) in document.fields where field.isContainer {
                do throws(CodecError) {
                    try field.checkNesting(limit: limit - 1)
                } catch {
                    throw error.inField(name)
                }
            }
        default:
            return
        }
    }

    /// The error for a container nested beyond ``RecordCodec/maxDepth``, before its field path.
    static func tooDeep() -> CodecError {
        CodecError(.tooDeep, "arrays and objects nest deeper than \(RecordCodec.maxDepth) levels")
    }
}

extension Value {
    /// One step of ``walk(_:)``.
    enum WalkStep {
        /// A value that is not an array or an object.
        case scalar(Value)
        case startArray
        /// Before the element at this index of the innermost open array.
        case element(Int)
        case endArray
        case startObject
        /// Before the value of the field at this index (in name order) of the innermost open object.
        case field(Int, name: String)
        case endObject
    }

    /// Visits this value depth first, object fields in name order, with an explicit stack rather
    /// than by recursion: the shared walk of the writers that cannot fail on depth (descriptions,
    /// keys), so that a value of any depth never overflows the stack.
    ///
    /// - Complexity: O(*n*) in the number of values, plus sorting each object's fields.
    func walk(_ visit: (WalkStep) -> Void) {
        var open: [OpenContainer] = []
        var next: Value? = self
        while true {
            if let value = next {
                next = nil
                switch value {
                case .array(let elements):
                    visit(.startArray)
                    open.append(.array(elements, next: 0))
                case .object(let document):
                    visit(.startObject)
                    open.append(.object(document.sortedFields, next: 0))
                default:
                    visit(.scalar(value))
                }
            }
            guard let container = open.popLast() else { return }
            switch container {
            case .array(let elements, let index):
                guard index < elements.count else {
                    visit(.endArray)
                    continue
                }
                visit(.element(index))
                open.append(.array(elements, next: index + 1))
                next = elements[index]
            case .object(let fields, let index):
                guard index < fields.count else {
                    visit(.endObject)
                    continue
                }
                visit(.field(index, name: fields[index].name))
                open.append(.object(fields, next: index + 1))
                next = fields[index].value
            }
        }
    }

    /// A container being walked, with the index of the next element or field to visit.
    private enum OpenContainer {
        case array([Value], next: Int)
        case object([(name: String, value: Value)], next: Int)
    }
}
