/// A read's answer and who gave it: a replica's name, or nil for the primary (whose answers
/// may be cached; a replica's may lag and are not).
public struct ReadAnswer<Value: Sendable>: Sendable {
  public var value: Value
  public var replica: String?

  public init(value: Value, replica: String? = nil) {
    self.value = value
    self.replica = replica
  }
}
