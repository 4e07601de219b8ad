import StoreLedgerCore

/// Plays a ``Simulation`` into a store in compressed time: one simulated day lasts `day`;
/// after each day the steps up to it are in the store (and queued notifications go out
/// through the deliverer, which runs alongside). Reports progress once per simulated month.
public struct SimulationRunner: Sendable {
  public struct Progress: Sendable, Hashable, Codable {
    public var month: Int
    public var months: Int
    public var steps: Int
    public var notifications: Int
    public var delivered: Int
    /// Notifications with attempts, none successful (still retried, or given up).
    public var failing: Int
    /// The last report: every step applied and every delivery (with its retries) over.
    public var isFinal: Bool
  }

  public let simulation: Simulation
  public let store: SimulatedAppStore
  public let deliverer: NotificationDeliverer?
  public let day: Duration

  public init(
    simulation: Simulation, store: SimulatedAppStore, deliverer: NotificationDeliverer?,
    day: Duration
  ) {
    self.simulation = simulation
    self.store = store
    self.deliverer = deliverer
    self.day = day
  }

  /// Runs to the simulation's end, then waits for the last deliveries (and their retries).
  public func run(progress: @Sendable (Progress) -> Void) async throws {
    let configuration = simulation.configuration
    let days = Int64(configuration.months) * 30
    try await withThrowingTaskGroup(of: Void.self) { group in
      let done = Countdown(1)
      if let deliverer {
        group.addTask {
          while done.isPending {
            await deliverer.deliverPending()
            // At least a few milliseconds: with no pause per simulated day this loop would
            // otherwise spin on the store's lock while the steps are applied.
            try await Task.sleep(for: max(day / 4, .milliseconds(5)))
          }
        }
      }
      var next = 0
      for elapsed in 1...days {
        let time = Timestamp(
          milliseconds: configuration.start.milliseconds + elapsed * SimulationConfiguration.day)
        next = simulation.apply(to: store, from: next, through: time)
        if elapsed % 30 == 0 { progress(report(month: Int(elapsed / 30), steps: next)) }
        try await Task.sleep(for: day)
      }
      _ = done.take()
      try await group.waitForAll()
      await deliverer?.deliverPending()
    }
    var last = report(month: configuration.months, steps: simulation.steps.count)
    last.isFinal = true
    progress(last)
  }

  /// After the run, for as long as the simulator serves: delivers what the API creates (TEST
  /// notifications, extension results, consumption and seat notifications), as Apple keeps
  /// sending. Ends when the task is cancelled.
  public func keepDelivering() async {
    guard let deliverer else { return }
    while !Task.isCancelled {
      await deliverer.deliverPending()
      try? await Task.sleep(for: max(day / 4, .milliseconds(20)))
    }
  }

  func report(month: Int, steps: Int) -> Progress {
    let notifications = store.notifications()
    return Progress(
      month: month, months: simulation.configuration.months, steps: steps,
      notifications: notifications.count,
      delivered: notifications.filter(\.delivered).count,
      failing: notifications.filter { !$0.delivered && !$0.attempts.isEmpty }.count,
      isFinal: false)
  }
}
