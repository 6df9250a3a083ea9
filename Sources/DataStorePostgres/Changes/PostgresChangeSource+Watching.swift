import Foundation

extension PostgresChangeSource {
    /// Starts learning of other stores' commits as `mode` says, once a reader waits.
    func watch(_ mode: ChangeNotifications, conninfo: String) {
        switch mode {
        case .listen:
            let thread = Thread { [self] in listen(conninfo) }
            thread.name = "PostgresStore.listen"
            thread.start()
        case .poll:
            signal.poll { [weak self] in try? self?.newestRecorded() }
        }
    }

    /// `LISTEN`s on a connection of its own until the store closes, reconnecting when the server
    /// goes away (and then reading the newest commit, since notifications may have been missed).
    private func listen(_ conninfo: String) {
        var connection: Connection?
        while !signal.isClosed {
            do {
                if connection?.isHealthy != true {
                    let made = try Connection(conninfo, timeouts: pool.timeouts)
                    try made.execute("LISTEN \(Outbox.channel)")
                    connection = made
                    signal.committed(try newestRecorded())
                }
                for payload in try connection!.notifications(waitingUpTo: .milliseconds(250)) {
                    if let commit = Int(payload) { signal.committed(commit) }
                }
            } catch {
                connection = nil
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
    }
}
