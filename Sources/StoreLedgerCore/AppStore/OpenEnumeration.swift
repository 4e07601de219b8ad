/// An enumeration whose set of values Apple may grow at any time.
///
/// A value Apple adds later still decodes: it keeps its raw value and reports
/// `isKnown == false`, so an event is never dropped because of a new case.
public protocol OpenEnumeration: RawRepresentable, Hashable, Sendable, Codable,
  CustomStringConvertible
where RawValue: Codable & Hashable & Sendable {
  init(rawValue: RawValue)
  /// The values documented when this version of StoreLedger was written.
  static var knownValues: [Self] { get }
}

extension OpenEnumeration {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    self.init(rawValue: try container.decode(RawValue.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }

  public var isKnown: Bool { Self.knownValues.contains(self) }

  public var description: String { "\(rawValue)" }
}
