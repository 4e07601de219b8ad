/// What an append expects of its stream, for optimistic concurrency.
public enum ExpectedVersion: Hashable, Sendable {
  /// Append whatever the stream holds.
  case any
  /// The stream must not exist yet.
  case noStream
  /// The stream's last event must have this version.
  case exact(Int64)
}
