import Synchronization

/// The app a request turned out to be for, learnt while it is handled (from its
/// `/apps/{name}` prefix, or from the bundle id of the signed data on the shared webhook), so
/// the request's metrics carry it.
final class RequestApp: Sendable {
  @TaskLocal static var current: RequestApp?
  private let routed = Mutex<String?>(nil)

  var name: String? { routed.withLock { $0 } }

  func set(_ name: String) {
    routed.withLock { $0 = name }
  }
}
