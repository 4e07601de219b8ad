import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StoreLedgerCore
import Synchronization

/// Sends the store's notifications to a webhook as the App Store does: `{"signedPayload"}`
/// by POST, 200–206 counts as delivered, anything else is retried on Apple's schedule (in
/// Production 1, 12, 24, 48 and 72 hours after the previous attempt; none in Sandbox), with
/// time compressed so that one simulated hour lasts `hour`. Every attempt is recorded for
/// Get Notification History.
public final class NotificationDeliverer: Sendable {
  public static let productionRetryHours: [Int64] = [1, 12, 24, 48, 72]

  let store: SimulatedAppStore
  let webhookURL: String
  let retryHours: [Int64]
  let hour: Duration
  let faults: DeliveryFaults
  let http: HTTPClient
  let logger: Logger
  /// The longest one delivery may take before it counts as `TIMED_OUT`.
  let requestTimeout: Duration
  /// Deliveries in flight at once.
  let concurrency: Int
  private let random: Mutex<SimulatorRandom>

  public init(
    store: SimulatedAppStore, webhookURL: String, hour: Duration = .milliseconds(10),
    retryHours: [Int64]? = nil, faults: DeliveryFaults = .none, httpClient: HTTPClient = .shared,
    requestTimeout: Duration = .seconds(5), concurrency: Int = 16, logger: Logger
  ) {
    self.requestTimeout = requestTimeout
    self.concurrency = max(1, concurrency)
    self.store = store
    self.webhookURL = webhookURL
    self.retryHours =
      retryHours ?? (store.app.environment == .production ? Self.productionRetryHours : [])
    self.hour = hour
    self.faults = faults
    self.http = httpClient
    self.logger = logger
    self.random = Mutex(SimulatorRandom(seed: faults.seed))
  }

  /// Delivers every notification that is neither delivered nor out of attempts, waiting
  /// out the retry schedule; returns when none is left to try.
  public func deliverPending() async {
    var dueAt: [String: ContinuousClock.Instant] = [:]
    let clock = ContinuousClock()
    while true {
      let pending = store.undelivered(attemptedAtMost: retryHours.count)
      guard !pending.isEmpty else { return }
      let now = clock.now
      var due = pending.filter { (dueAt[$0.uuid] ?? now) <= now }
      if due.isEmpty {
        let next = pending.compactMap { dueAt[$0.uuid] }.min() ?? now
        try? await Task.sleep(until: next, clock: clock)
        continue
      }
      if faults.reorder { random.withLock { due.shuffle(using: &$0) } }
      await attemptAll(due)
      for notification in due where notification.attempts.count < retryHours.count {
        dueAt[notification.uuid] = clock.now + hour * Int(retryHours[notification.attempts.count])
      }
    }
  }

  /// Sends `due`, at most `concurrency` at a time, starting them in order.
  private func attemptAll(_ due: [SimulatedNotification]) async {
    await withTaskGroup(of: Void.self) { group in
      for (index, notification) in due.enumerated() {
        if index >= concurrency { await group.next() }
        group.addTask { await self.attempt(notification) }
      }
    }
  }

  private func attempt(_ notification: SimulatedNotification) async {
    let elapsedHours = retryHours.prefix(notification.attempts.count).reduce(0, +)
    let attemptDate = Timestamp(
      milliseconds: notification.sentAt.milliseconds + elapsedHours * 3_600_000)
    let (drop, duplicate, delay) = random.withLock { random in
      (
        random.chance(faults.dropFraction), random.chance(faults.duplicateFraction),
        faults.maximumDelay * Double.random(in: 0...1, using: &random)
      )
    }
    if delay > .zero { try? await Task.sleep(for: delay) }
    let result = drop ? .timedOut : await send(notification.signedPayload)
    store.recordAttempt(notification.uuid, result, at: attemptDate)
    if result == .success, duplicate { _ = await send(notification.signedPayload) }
  }

  private func send(_ signedPayload: String) async -> SendAttemptResult {
    var request = HTTPClientRequest(url: webhookURL)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    let body = try! JSONEncoder().encode(["signedPayload": signedPayload])
    request.body = .bytes(ByteBuffer(bytes: body))
    do {
      let (seconds, attoseconds) = requestTimeout.components
      let timeout = TimeAmount.nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
      let response = try await http.execute(request, timeout: timeout)
      _ = try? await response.body.collect(upTo: 1 << 16)
      return (200...206).contains(response.status.code) ? .success : .unsuccessfulHTTPResponseCode
    } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
      return .timedOut
    } catch {
      logger.debug("webhook delivery failed", metadata: ["error": "\(type(of: error))"])
      return .socketIssue
    }
  }
}
