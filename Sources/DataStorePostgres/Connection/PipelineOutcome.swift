/// What one statement of a pipeline came to.
package enum PipelineOutcome {
    /// It ran.
    case done(QueryResult)
    /// It failed with this error; the rest of the pipeline was skipped.
    case failed(PostgresError)
    /// An earlier statement failed, so the server skipped this one.
    case skipped
}
