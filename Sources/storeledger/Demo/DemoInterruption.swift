import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Ctrl-C or SIGTERM that arrives before the services watch for signals (while the cluster
/// starts and the schema migrates): remembered, and acted on before the next stage, so the
/// demo still stops cleanly instead of ignoring it or leaving a cluster behind.
enum DemoInterruption {
  static let requested = Atomic<Bool>(false)

  static var wasRequested: Bool { requested.load(ordering: .relaxed) }

  /// Remembers SIGINT and SIGTERM from now on. A parent may have started us with them blocked
  /// (test runners do): they are unblocked, or nothing would ever hear Ctrl-C.
  static func watch() {
    signal(SIGINT) { _ in DemoInterruption.requested.store(true, ordering: .relaxed) }
    signal(SIGTERM) { _ in DemoInterruption.requested.store(true, ordering: .relaxed) }
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    sigprocmask(SIG_UNBLOCK, &signals, nil)
  }

  /// Throws `CancellationError` once an interruption was asked for.
  static func check() throws {
    if wasRequested { throw CancellationError() }
  }
}
