import Logging
import PostgresNIO
import Synchronization

/// Tells feed readers that events were appended, after the commit: in this process through a
/// ``WakeUpSignal``, in others (optionally) with a NOTIFY on `storeledger_events`.
///
/// The NOTIFY is sent from its own statement after the append committed, never inside the
/// append: PostgreSQL serialises every transaction that notifies, from pre-commit until its
/// commit is flushed. At most one is in flight: the append that finds none sends it (and one
/// more for the appends that came meanwhile) before it returns; those appends do not wait.
final class AppendAnnouncer: Sendable {
  private struct State {
    var sending = false
    var pending = false
  }

  private let hosts: DatabaseHosts
  private let logger: Logger
  private let wakeUp: WakeUpSignal?
  private let notifiesListeners: Bool
  private let state = Mutex(State())

  init(hosts: DatabaseHosts, logger: Logger, wakeUp: WakeUpSignal?, notifiesListeners: Bool) {
    self.hosts = hosts
    self.logger = logger
    self.wakeUp = wakeUp
    self.notifiesListeners = notifiesListeners
  }

  func announce() async {
    wakeUp?.signal()
    guard notifiesListeners else { return }
    let startsSending = state.withLock { state in
      if state.sending {
        state.pending = true
        return false
      }
      state.sending = true
      return true
    }
    if startsSending { await sendUntilSettled() }
  }

  private func sendUntilSettled() async {
    repeat {
      // A hint only: a lost notification delays readers until their next poll.
      _ = try? await hosts.current.execute("SELECT pg_notify('storeledger_events', '')", logger: logger)
    } while state.withLock { state in
      state.sending = state.pending
      state.pending = false
      return state.sending
    }
  }
}
