import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Relay targets: add and remove them (an administrator's key), list them with their queues,
/// read what each was sent from the log, its dead letters, and send those again.
struct RelaysController: Sendable {
  let relays: Relays

  struct TargetBody: Decodable {
    let name: String
    let url: String
    let environments: [String]?
    let notificationTypes: [String]?
  }

  /// A target as the API shows it: never its URL (whose query may hold a credential).
  /// Instants are Unix milliseconds, as everywhere in the API.
  struct Target: Encodable {
    let name: String
    let urlKey: String
    let environments: [String]
    let notificationTypes: [String]?
    let createdAt: Timestamp
    let createdBy: String
    let delivered: Int?
    let retrying: Int?
    let waiting: Int?
    let dead: Int?
    let oldestPendingSeconds: Double?

    init(_ target: RelayTarget, _ counts: RelayTargetCounts?) {
      name = target.name
      urlKey = target.urlKey
      environments = target.environments
      notificationTypes = target.notificationTypes
      createdAt = Timestamp(target.createdAt)
      createdBy = target.createdBy
      delivered = counts?.delivered
      retrying = counts?.retrying
      waiting = counts?.waiting
      dead = counts?.dead
      oldestPendingSeconds = counts?.oldestPendingSeconds
    }

    private enum CodingKeys: String, CodingKey {
      case name, urlKey, environments, notificationTypes, createdAt, createdBy, delivered
      case retrying, waiting, dead, oldestPendingSeconds
    }

    /// `notificationTypes` is null for "every type", said explicitly.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(name, forKey: .name)
      try container.encode(urlKey, forKey: .urlKey)
      try container.encode(environments, forKey: .environments)
      try container.encode(notificationTypes, forKey: .notificationTypes)
      try container.encode(createdAt, forKey: .createdAt)
      try container.encode(createdBy, forKey: .createdBy)
      try container.encodeIfPresent(delivered, forKey: .delivered)
      try container.encodeIfPresent(retrying, forKey: .retrying)
      try container.encodeIfPresent(waiting, forKey: .waiting)
      try container.encodeIfPresent(dead, forKey: .dead)
      try container.encodeIfPresent(oldestPendingSeconds, forKey: .oldestPendingSeconds)
    }
  }

  struct Targets: Encodable {
    let targets: [Target]
  }

  struct Attempt: Encodable {
    let streamVersion: Int64
    let recordedAt: Timestamp
    let notificationUUID: String
    let notificationType: String?
    let environment: String?
    let attempt: Int
    let outcome: String
    let status: Int?
    let error: String?
    let sentAt: Timestamp
    let answeredAt: Timestamp
    let bodySha256: String
    let bodyBytes: Int
    let urlKey: String
    let notificationStream: String
    let notificationStreamVersion: Int64

    private enum CodingKeys: String, CodingKey {
      case streamVersion, recordedAt, notificationUUID, notificationType, environment, attempt
      case outcome, status, error, sentAt, answeredAt, bodySha256, bodyBytes, urlKey
      case notificationStream, notificationStreamVersion
    }

    /// Absent values are said as null, as the document requires.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(streamVersion, forKey: .streamVersion)
      try container.encode(recordedAt, forKey: .recordedAt)
      try container.encode(notificationUUID, forKey: .notificationUUID)
      try container.encode(notificationType, forKey: .notificationType)
      try container.encode(environment, forKey: .environment)
      try container.encode(attempt, forKey: .attempt)
      try container.encode(outcome, forKey: .outcome)
      try container.encode(status, forKey: .status)
      try container.encode(error, forKey: .error)
      try container.encode(sentAt, forKey: .sentAt)
      try container.encode(answeredAt, forKey: .answeredAt)
      try container.encode(bodySha256, forKey: .bodySha256)
      try container.encode(bodyBytes, forKey: .bodyBytes)
      try container.encode(urlKey, forKey: .urlKey)
      try container.encode(notificationStream, forKey: .notificationStream)
      try container.encode(notificationStreamVersion, forKey: .notificationStreamVersion)
    }

    init(_ recorded: RecordedRelayAttempt) {
      let attempt = recorded.attempt
      streamVersion = recorded.streamVersion
      recordedAt = Timestamp(recorded.recordedAt)
      notificationUUID =
        attempt.notification.hasPrefix("asn2:")
        ? String(attempt.notification.dropFirst(5)) : attempt.notification
      notificationType = attempt.notificationType
      environment = attempt.environment
      self.attempt = attempt.attempt
      outcome = attempt.outcome.rawValue
      status = attempt.status
      error = attempt.error
      sentAt = attempt.sentAt
      answeredAt = attempt.answeredAt
      bodySha256 = attempt.bodySHA256
      bodyBytes = attempt.bodyBytes
      urlKey = attempt.urlKey
      notificationStream = attempt.streamId
      notificationStreamVersion = attempt.streamVersion
    }
  }

  struct Attempts: Encodable {
    let target: String
    let attempts: [Attempt]
    /// The `before` that reads the next (older) page; null on the last.
    let nextBefore: Int64?
    /// How many attempts the target (of the notification, when asked) has in all.
    let total: Int

    private enum CodingKeys: String, CodingKey { case target, attempts, nextBefore, total }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(target, forKey: .target)
      try container.encode(attempts, forKey: .attempts)
      try container.encode(nextBefore, forKey: .nextBefore)
      try container.encode(total, forKey: .total)
    }
  }

  struct Delivery: Encodable {
    let notificationUUID: String
    let notificationType: String?
    let environment: String?
    let state: String
    let attempts: Int
    let lastStatus: Int?
    let lastError: String?
    let nextAttemptAt: Timestamp
    let deliveredAt: Timestamp?

    private enum CodingKeys: String, CodingKey {
      case notificationUUID, notificationType, environment, state, attempts, lastStatus
      case lastError, nextAttemptAt, deliveredAt
    }

    /// Absent values are said as null, as the document requires.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(notificationUUID, forKey: .notificationUUID)
      try container.encode(notificationType, forKey: .notificationType)
      try container.encode(environment, forKey: .environment)
      try container.encode(state, forKey: .state)
      try container.encode(attempts, forKey: .attempts)
      try container.encode(lastStatus, forKey: .lastStatus)
      try container.encode(lastError, forKey: .lastError)
      try container.encode(nextAttemptAt, forKey: .nextAttemptAt)
      try container.encode(deliveredAt, forKey: .deliveredAt)
    }

    init(_ delivery: RelayDelivery) {
      notificationUUID =
        delivery.notificationKey.hasPrefix("asn2:")
        ? String(delivery.notificationKey.dropFirst(5)) : delivery.notificationKey
      notificationType = delivery.notificationType
      environment = delivery.environment
      state = delivery.state.rawValue
      attempts = delivery.attempts
      lastStatus = delivery.lastStatus
      lastError = delivery.lastError
      nextAttemptAt = Timestamp(delivery.nextAttemptAt)
      deliveredAt = delivery.deliveredAt.map { Timestamp($0) }
    }
  }

  struct Deliveries: Encodable {
    let target: String
    let deliveries: [Delivery]
    /// How many rows the list holds (all pages), and the cursor of the next page.
    let total: Int
    let nextCursor: String?

    // `nextCursor` is null on the last page, never left out.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(target, forKey: .target)
      try container.encode(deliveries, forKey: .deliveries)
      try container.encode(total, forKey: .total)
      try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey { case target, deliveries, total, nextCursor }
  }

  struct Retried: Encodable {
    let target: String
    let queued: Int
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/relays") { _, _ in
      try JSONBody.response(
        Targets(targets: try await relays.targets().map { Target($0.0, $0.1) }))
    }
    group.post("/v1/relays") { request, _ in
      let body = try await JSONBody.decode(
        TargetBody.self, from: request, limit: 16_384,
        what: #"a relay target ({"name", "url", "environments"?, "notificationTypes"?})"#)
      let target = try await relays.add(
        name: body.name, url: body.url, environments: body.environments,
        notificationTypes: body.notificationTypes, by: GrantsController.who())
      return try JSONBody.response(Target(target, nil), status: .created)
    }
    group.delete("/v1/relays/{name}") { _, context in
      let target = try await relays.remove(
        name: try context.parameters.require("name"), by: GrantsController.who())
      return try JSONBody.response(Target(target, nil))
    }
    group.get("/v1/relays/{name}/attempts") { request, context in
      let name = try context.parameters.require("name")
      let query = request.uri.queryParameters
      let limit = try Self.integer(query["limit"].map(String.init), "limit") ?? 100
      let before = try Self.integer(query["before"].map(String.init), "before").map(Int64.init)
      // A removed target is gone from the API (its attempts stay in the log: the CLI and the
      // console read them).
      _ = try await relays.target(named: name)
      let page = try await relays.attemptsPage(
        of: name, notificationUUID: query["notificationUUID"].map(String.init), before: before,
        limit: limit)
      return try JSONBody.response(
        Attempts(
          target: name.lowercased(), attempts: page.attempts.map(Attempt.init),
          nextBefore: page.nextBefore, total: page.total ?? page.attempts.count))
    }
    group.get("/v1/relays/{name}/deliveries") { request, context in
      let name = try context.parameters.require("name")
      let query = request.uri.queryParameters
      let limit = try Self.integer(query["limit"].map(String.init), "limit") ?? 100
      let page = try await relays.deliveriesPage(
        of: name, state: try DeliveryState.named(query["state"].map(String.init)), limit: limit,
        cursor: query["cursor"].map(String.init))
      return try JSONBody.response(
        Deliveries(
          target: name.lowercased(), deliveries: page.rows.map(Delivery.init), total: page.total,
          nextCursor: page.nextCursor))
    }
    group.post("/v1/relays/{name}/retry") { _, context in
      let name = try context.parameters.require("name")
      let queued = try await relays.retryDead(of: name)
      return try JSONBody.response(Retried(target: name.lowercased(), queued: queued))
    }
  }

  static func integer(_ text: String?, _ name: String) throws -> Int? {
    guard let text else { return nil }
    guard let value = Int(text) else {
      throw APIError.invalidRequest("`\(name)` is a whole number")
    }
    return value
  }
}
