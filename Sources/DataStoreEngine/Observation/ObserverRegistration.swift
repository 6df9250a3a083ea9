/// An observer's place in its ``ObservationCenter``, held by one observation's iterator: dropping
/// it (the iterator ended, or its task was cancelled) unregisters the observer at once.
package final class ObserverRegistration: Sendable {
    package let observer: Observer
    private let center: ObservationCenter

    init(observer: Observer, center: ObservationCenter) {
        self.observer = observer
        self.center = center
    }

    deinit { center.unregister(observer) }
}
