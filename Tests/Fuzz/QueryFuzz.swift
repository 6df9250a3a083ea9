// libFuzzer target: the query-parameter parser (docs/queries.md).
//
// The input becomes `params` and `options` in one of two ways: a record (first byte 0x01) whose
// field "$options", if an object, is the options and whose other fields are the params; or text,
// one `key<TAB>value` per line (a line starting with "@" is an option), values read by a small
// grammar (null, true, false, integers, doubles, [a,b], {k:v}, else a string).
//
// Parsing must throw `.invalidQuery` / `.invalidOption` or succeed; never crash. A parsed query:
// prints, parses the same again, evaluates within its limit, and its planner ranges are
// conservative (every matching scalar value lies in `range(on:)` of its field).
func queryFuzz(_ bytes: UnsafeRawBufferPointer) {
    guard let (params, options) = fuzzQueryInput(bytes) else { return }
    let query: Query
    do {
        query = try Query(params: params, options: options)
    } catch {
        fuzzCheck(error.code == .invalidQuery || error.code == .invalidOption, "unexpected error \(error)")
        fuzzCheck(!error.message.isEmpty, "empty error message")
        return
    }
    _ = query.description
    fuzzCheck((try? Query(params: params, options: options)) == query, "parsing is not deterministic")

    // Documents built from the conditions' own values, so some of them match.
    var documents: [Document] = [[:]]
    for (index, condition) in query.conditions.enumerated() {
        var document: Document = ["id": .int(Int64(index))]
        document[condition.field] = condition.value
        documents.append(document)
        if case .array(let elements) = condition.value, let first = elements.first {
            var element: Document = ["id": .int(Int64(1_000 + index))]
            element[condition.field] = first
            documents.append(element)
        }
    }
    let results = query.evaluate(documents, idField: "id")
    if let limit = query.limit { fuzzCheck(results.count <= max(limit, 0), "more results than the limit") }
    for document in documents where query.matches(document) {
        for field in query.conditionFields {
            guard let range = query.range(on: field), let value = document[field] else { continue }
            if case .array = value { continue }
            fuzzCheck(range.contains(value), "range \(range) on \(field) excludes matching value \(value) for \(query)")
        }
    }
}

func fuzzQueryInput(_ bytes: UnsafeRawBufferPointer) -> ([String: Value]?, [String: Value]?)? {
    if bytes.first == RecordCodec.formatVersion {
        guard let document = try? RecordCodec.decode(bytes) else { return nil }
        var params: [String: Value] = [:]
        var options: [String: Value]?
        for (name, value) in document {
            if name == "$options", case .object(let object) = value {
                options = Dictionary(uniqueKeysWithValues: object.map { ($0.key, $0.value) })
            } else {
                params[name] = value
            }
        }
        return (params, options)
    }
    guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
    var params: [String: Value] = [:]
    var options: [String: Value] = [:]
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
        let key = String(parts[0])
        let value = parts.count > 1 ? fuzzValue(parts[1]) : .null
        if key.hasPrefix("@") { options[String(key.dropFirst())] = value } else { params[key] = value }
    }
    return (params, options.isEmpty ? nil : options)
}

func fuzzValue(_ text: Substring, depth: Int = 0) -> Value {
    switch text {
    case "null": return .null
    case "true": return .bool(true)
    case "false": return .bool(false)
    case "nan": return .double(.nan)
    default: break
    }
    if let int = Int64(text) { return .int(int) }
    if let double = Double(text) { return .double(double) }
    if depth < 4, text.hasPrefix("["), text.hasSuffix("]"), text.count >= 2 {
        let body = text.dropFirst().dropLast()
        return .array(
            body.isEmpty
                ? []
                : body.split(separator: ",", omittingEmptySubsequences: false).map { fuzzValue($0, depth: depth + 1) })
    }
    if depth < 4, text.hasPrefix("{"), text.hasSuffix("}"), text.count >= 2 {
        var document = Document()
        for pair in text.dropFirst().dropLast().split(separator: ",") {
            let kv = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            document[String(kv[0])] = kv.count > 1 ? fuzzValue(kv[1], depth: depth + 1) : .null
        }
        return .object(document)
    }
    if text.hasPrefix("#") { return .bytes(Array(text.dropFirst().utf8)) }
    return .string(String(text))
}
