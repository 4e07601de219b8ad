import StoreLedgerCore

/// A seeded run of the local App Store: every customer's planned steps, merged in time
/// order, applied to a ``SimulatedAppStore`` as its clock advances, with the truth they make.
public struct Simulation: Sendable {
  public let configuration: SimulationConfiguration
  public let steps: [SimulatedStep]
  public let truth: SimulationTruth

  public init(_ configuration: SimulationConfiguration) {
    self.configuration = configuration
    var steps: [(step: SimulatedStep, customer: Int, order: Int)] = []
    var truth = SimulationTruth()
    for index in 0..<configuration.customers {
      let lifecycle = CustomerLifecycle(index: index, configuration: configuration)
      steps += lifecycle.steps.enumerated().map { ($0.element, index, $0.offset) }
      truth.merge(lifecycle.truth)
    }
    // Time order; a customer's simultaneous steps keep their planned order.
    steps.sort { ($0.step.time, $0.customer, $0.order) < ($1.step.time, $1.customer, $1.order) }
    self.steps = steps.map(\.step).filter { $0.time <= configuration.end }
    self.truth = truth
  }

  /// Applies the steps from `index` whose time is at or before `time` to `store`, moving its
  /// clock along; returns the index of the first step not applied.
  @discardableResult
  public func apply(to store: SimulatedAppStore, from index: Int = 0, through time: Timestamp)
    -> Int
  {
    var next = index
    while next < steps.count, steps[next].time <= time {
      apply(steps[next], to: store)
      next += 1
    }
    store.advance(to: time)
    return next
  }

  private func apply(_ step: SimulatedStep, to store: SimulatedAppStore) {
    store.advance(to: step.time)
    switch step.action {
    case .put(let transaction):
      store.put(transaction, customer: step.customer)
    case .renewal(let renewal, let status):
      store.put(
        SimulatedSubscription(
          originalTransactionId: renewal.originalTransactionId!, renewalInfo: renewal,
          status: status))
    case .notify(let type, let subtype, let transactionId, let status):
      guard let transaction = store.transaction(transactionId) else { return }
      var subscription = transaction.originalTransactionId.flatMap(store.subscription)
      if let status, subscription != nil, transaction.type == .autoRenewableSubscription {
        subscription?.status = status
        store.put(subscription!)
      }
      store.notify(
        type, subtype, transaction: transaction, renewal: subscription?.renewalInfo,
        status: transaction.type == .autoRenewableSubscription ? status : nil,
        uuid: Self.uuid(step, in: self))
    case .rescindConsent(let appTransactionId):
      store.notifyRescindedConsent(appTransactionId, uuid: Self.uuid(step, in: self))
    case .futureNotification(let type, let body):
      store.notifyFuture(type: type, body: body, uuid: Self.uuid(step, in: self))
    }
  }

  /// Notification UUIDs derived from the seed and the step, so a rerun names them alike.
  private static func uuid(_ step: SimulatedStep, in simulation: Simulation) -> String {
    var hasher = StableDigest()
    hasher.add(simulation.configuration.seed)
    hasher.add(UInt64(bitPattern: step.time.milliseconds))
    for byte in step.customer.utf8 { hasher.add(UInt64(byte)) }
    switch step.action {
    case .notify(let type, let subtype, let id, _):
      for byte in (type.rawValue + (subtype?.rawValue ?? "") + id).utf8 { hasher.add(UInt64(byte)) }
    case .rescindConsent(let id):
      for byte in ("RESCIND_CONSENT" + id).utf8 { hasher.add(UInt64(byte)) }
    case .futureNotification(let type, _):
      for byte in type.utf8 { hasher.add(UInt64(byte)) }
    case .put, .renewal: break
    }
    var random = SimulatorRandom(seed: hasher.value)
    return CustomerLifecycle.uuid(&random)
  }
}
