import StoreLedgerPostgres
import Synchronization
import StoreLedgerCore

/// Each concurrent loop's appender, behind a lock so the loops can share one value.
final class AppenderSet: Sendable {
  private let appenders: Mutex<[AppendCase.Appender]>

  init(_ shape: AppendCase, label: String) {
    appenders = Mutex(
      (0..<shape.appenders).map {
        AppendCase.Appender(prefix: "\(label)-a\($0)", batchSize: shape.batchSize)
      })
  }

  func next(_ appender: Int) -> (stream: String, firstVersion: Int64, events: [NewEvent]) {
    appenders.withLock { $0[appender].next() }
  }
}
