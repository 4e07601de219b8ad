import StoreLedgerCore

/// The change webhooks' delivery log, as operators read and replay it: each delivery's
/// attempts, the counts per endpoint, and changes queued again for an endpoint.
public struct ChangeDeliveryLog: Sendable {
  let deliveries: any ChangeDeliveryQueue
  /// The feed the deliveries are of: its head, and its readers woken by a resend.
  let reader: ChangeFeedReader
  let calls: StorageCalls

  init(deliveries: any ChangeDeliveryQueue, reader: ChangeFeedReader, calls: StorageCalls) {
    self.deliveries = deliveries
    self.reader = reader
    self.calls = calls
  }
}
