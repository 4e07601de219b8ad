/// What a read needs from the database that answers it.
public enum ReadConsistency: String, Sendable, CaseIterable {
  /// A replica may answer, once it has replayed every write this process made to the account
  /// asked about (within a bounded wait; else the primary answers). Writes of other
  /// processes may be missing for as long as the replica lags (taken out past a bound).
  case readYourWrites
  /// The primary answers: everything committed anywhere is seen.
  case exact
}
