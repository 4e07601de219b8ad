import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements of `storeledger_analytics` (schema/0021): a chain's rows are replaced in
/// one transaction, so a reader never sees half of them.
package enum RevenueAnalyticsStatements {
  package static func store(_ chains: [ChainRevenue], on client: PostgresClient, logger: Logger)
    async throws
  {
    guard !chains.isEmpty else { return }
    let timelines = chains.flatMap { chain in chain.timelines.map { (chain.chain, $0) } }
    let periods = timelines.flatMap { chain, timeline in timeline.segments.map { (chain, $0) } }
    let entries = timelines.flatMap { chain, timeline in timeline.entries.map { (chain, $0) } }
    let retries = timelines.flatMap { chain, timeline in
      timeline.billingRetry.map { (chain, $0) }
    }
    // A chain's row carries its first timeline's identity (a stream holds one chain).
    let heads = chains.map { ($0, $0.timelines.first) }
    try await client.inTransaction(logger: logger) { connection in
      try await connection.execute(
        "DELETE FROM storeledger_analytics.chains WHERE chain = ANY(\(chains.map(\.chain))::text[])",
        logger: logger)
      try await connection.execute(
        """
        INSERT INTO storeledger_analytics.chains
          (chain, original_transaction_id, is_subscription, first_start, position_tx,
           position_seq, recorded_at)
        SELECT c, o, s, CASE WHEN f = \(Int64.min) THEN NULL ELSE to_timestamp(f / 1000.0) END,
               tx, seq, r
          FROM unnest(\(heads.map(\.0.chain))::text[],
                      \(heads.map { $0.1?.originalTransactionId ?? $0.0.chain })::text[],
                      \(heads.map { $0.1?.isSubscription ?? false })::boolean[],
                      \(heads.map { $0.1?.firstStart?.milliseconds ?? Int64.min })::bigint[],
                      \(heads.map { Int64(bitPattern: $0.0.position.transactionId) })::bigint[],
                      \(heads.map(\.0.position.sequence))::bigint[],
                      \(heads.map(\.0.recordedAt))::timestamptz[])
               AS u(c, o, s, f, tx, seq, r)
        """, logger: logger)
      if !periods.isEmpty {
        try await connection.execute(
          """
          INSERT INTO storeledger_analytics.periods
            (chain, original_transaction_id, transaction_id, starts_at, ends_at, is_trial,
             monthly_value, seats, currency, environment, product_id, subscription_group,
             storefront, offer, in_grace)
          SELECT c, o, t, to_timestamp(s / 1000.0), to_timestamp(e / 1000.0), trial, v, seats,
                 cur, env, nullif(p, ''), nullif(g, ''), nullif(sf, ''), offer, grace
            FROM unnest(\(periods.map(\.0))::text[],
                        \(periods.map(\.1.originalTransactionId))::text[],
                        \(periods.map(\.1.transactionId))::text[],
                        \(periods.map(\.1.start.milliseconds))::bigint[],
                        \(periods.map(\.1.end.milliseconds))::bigint[],
                        \(periods.map(\.1.isTrial))::boolean[],
                        \(periods.map(\.1.monthlyValue))::bigint[],
                        \(periods.map(\.1.seats))::bigint[],
                        \(periods.map(\.1.attributes.currency))::text[],
                        \(periods.map(\.1.attributes.environment))::text[],
                        \(periods.map { $0.1.attributes.productId ?? "" })::text[],
                        \(periods.map { $0.1.attributes.subscriptionGroup ?? "" })::text[],
                        \(periods.map { $0.1.attributes.storefront ?? "" })::text[],
                        \(periods.map(\.1.attributes.offer))::text[],
                        \(periods.map(\.1.inGrace))::boolean[])
                 AS u(c, o, t, s, e, trial, v, seats, cur, env, p, g, sf, offer, grace)
          """, logger: logger)
      }
      if !retries.isEmpty {
        try await connection.execute(
          """
          INSERT INTO storeledger_analytics.billing_retry
            (chain, original_transaction_id, transaction_id, starts_at, ends_at, is_trial,
             monthly_value, currency, environment, product_id, subscription_group, storefront,
             offer)
          SELECT c, o, t, to_timestamp(s / 1000.0), to_timestamp(e / 1000.0), trial, v, cur,
                 env, nullif(p, ''), nullif(g, ''), nullif(sf, ''), offer
            FROM unnest(\(retries.map(\.0))::text[],
                        \(retries.map(\.1.originalTransactionId))::text[],
                        \(retries.map(\.1.transactionId))::text[],
                        \(retries.map(\.1.start.milliseconds))::bigint[],
                        \(retries.map(\.1.end.milliseconds))::bigint[],
                        \(retries.map(\.1.isTrial))::boolean[],
                        \(retries.map(\.1.monthlyValue))::bigint[],
                        \(retries.map(\.1.attributes.currency))::text[],
                        \(retries.map(\.1.attributes.environment))::text[],
                        \(retries.map { $0.1.attributes.productId ?? "" })::text[],
                        \(retries.map { $0.1.attributes.subscriptionGroup ?? "" })::text[],
                        \(retries.map { $0.1.attributes.storefront ?? "" })::text[],
                        \(retries.map(\.1.attributes.offer))::text[])
                 AS u(c, o, t, s, e, trial, v, cur, env, p, g, sf, offer)
          """, logger: logger)
      }
      if !entries.isEmpty {
        try await connection.execute(
          """
          INSERT INTO storeledger_analytics.entries
            (chain, original_transaction_id, transaction_id, kind, occurred_at, amount,
             proceeds, currency, environment, product_id, subscription_group, storefront,
             offer, reason)
          SELECT c, o, t, k, to_timestamp(d / 1000.0), a, pr, cur, env, nullif(p, ''),
                 nullif(g, ''), nullif(sf, ''), offer, nullif(r, '')
            FROM unnest(\(entries.map(\.0))::text[],
                        \(entries.map(\.1.originalTransactionId))::text[],
                        \(entries.map(\.1.transactionId))::text[],
                        \(entries.map(\.1.kind.rawValue))::text[],
                        \(entries.map(\.1.date.milliseconds))::bigint[],
                        \(entries.map(\.1.amount))::bigint[],
                        \(entries.map(\.1.proceeds))::bigint[],
                        \(entries.map(\.1.attributes.currency))::text[],
                        \(entries.map(\.1.attributes.environment))::text[],
                        \(entries.map { $0.1.attributes.productId ?? "" })::text[],
                        \(entries.map { $0.1.attributes.subscriptionGroup ?? "" })::text[],
                        \(entries.map { $0.1.attributes.storefront ?? "" })::text[],
                        \(entries.map(\.1.attributes.offer))::text[],
                        \(entries.map { $0.1.reason?.rawValue ?? "" })::text[])
                 AS u(c, o, t, k, d, a, pr, cur, env, p, g, sf, offer, r)
          """, logger: logger)
      }
    }
  }

  package static func clear(on client: PostgresClient, logger: Logger) async throws {
    try await client.execute("SELECT storeledger_analytics.clear_revenue()", logger: logger)
  }

  /// Chains after `position` with their rows, read back into timelines.
  package static func chains(
    after position: FeedPosition, limit: Int, on client: PostgresClient, logger: Logger
  ) async throws -> [ChainRevenue] {
    let tx = Int64(bitPattern: position.transactionId)
    let heads = try await client.query(
      """
      SELECT chain, original_transaction_id, is_subscription,
             (extract(epoch FROM first_start) * 1000)::bigint, position_tx, position_seq,
             recorded_at
        FROM storeledger_analytics.chains
       WHERE (position_tx, position_seq) > (\(tx), \(position.sequence))
       ORDER BY position_tx, position_seq, chain
       LIMIT \(Int64(limit))
      """, logger: logger
    ) { rows in
      var found: [(String, String, Bool, Int64?, Int64, Int64, Date)] = []
      for try await row in rows.decode((String, String, Bool, Int64?, Int64, Int64, Date).self) {
        found.append(row)
      }
      return found
    }
    guard !heads.isEmpty else { return [] }
    let names = heads.map(\.0)
    let periods = try await client.query(
      """
      SELECT chain, original_transaction_id, transaction_id,
             (extract(epoch FROM starts_at) * 1000)::bigint,
             (extract(epoch FROM ends_at) * 1000)::bigint, is_trial, monthly_value, seats,
             currency, environment, product_id, subscription_group, storefront, offer, in_grace
        FROM storeledger_analytics.periods WHERE chain = ANY(\(names)::text[])
       ORDER BY chain, starts_at
      """, logger: logger
    ) { rows in
      var found: [String: [RevenueSegment]] = [:]
      for try await row in rows.decode(
        (
          String, String, String, Int64, Int64, Bool, Int64, Int64, String, String, String?,
          String?, String?, String, Bool
        ).self)
      {
        found[row.0, default: []].append(
          RevenueSegment(
            originalTransactionId: row.1, transactionId: row.2,
            start: Timestamp(milliseconds: row.3), end: Timestamp(milliseconds: row.4),
            isTrial: row.5, monthlyValue: row.6, seats: row.7, inGrace: row.14,
            attributes: MetricsAttributes(
              productId: row.10, subscriptionGroup: row.11, storefront: row.12,
              currency: row.8, environment: row.9, offer: row.13)))
      }
      return found
    }
    let retries = try await client.query(
      """
      SELECT chain, original_transaction_id, transaction_id,
             (extract(epoch FROM starts_at) * 1000)::bigint,
             (extract(epoch FROM ends_at) * 1000)::bigint, is_trial, monthly_value, currency,
             environment, product_id, subscription_group, storefront, offer
        FROM storeledger_analytics.billing_retry WHERE chain = ANY(\(names)::text[])
       ORDER BY chain, starts_at
      """, logger: logger
    ) { rows in
      var found: [String: [RevenueSegment]] = [:]
      for try await row in rows.decode(
        (
          String, String, String, Int64, Int64, Bool, Int64, String, String, String?, String?,
          String?, String
        ).self)
      {
        found[row.0, default: []].append(
          RevenueSegment(
            originalTransactionId: row.1, transactionId: row.2,
            start: Timestamp(milliseconds: row.3), end: Timestamp(milliseconds: row.4),
            isTrial: row.5, monthlyValue: row.6, seats: 0,
            attributes: MetricsAttributes(
              productId: row.9, subscriptionGroup: row.10, storefront: row.11,
              currency: row.7, environment: row.8, offer: row.12)))
      }
      return found
    }
    let entries = try await client.query(
      """
      SELECT chain, original_transaction_id, transaction_id, kind,
             (extract(epoch FROM occurred_at) * 1000)::bigint, amount, proceeds, currency,
             environment, product_id, subscription_group, storefront, offer, reason
        FROM storeledger_analytics.entries WHERE chain = ANY(\(names)::text[])
       ORDER BY chain, occurred_at, kind, transaction_id
      """, logger: logger
    ) { rows in
      var found: [String: [RevenueEntry]] = [:]
      for try await row in rows.decode(
        (
          String, String, String, String, Int64, Int64, Int64, String, String, String?, String?,
          String?, String, String?
        ).self)
      {
        // A kind this version does not know (written by a later one) is skipped, not guessed.
        guard let kind = RevenueEntry.Kind(rawValue: row.3) else { continue }
        found[row.0, default: []].append(
          RevenueEntry(
            kind: kind, date: Timestamp(milliseconds: row.4), amount: row.5, proceeds: row.6,
            transactionId: row.2, originalTransactionId: row.1,
            attributes: MetricsAttributes(
              productId: row.9, subscriptionGroup: row.10, storefront: row.11, currency: row.7,
              environment: row.8, offer: row.12),
            reason: row.13.flatMap(ChargeReason.init(rawValue:))))
      }
      return found
    }
    return heads.map { head in
      ChainRevenue(
        chain: head.0,
        position: FeedPosition(transactionId: UInt64(bitPattern: head.4), sequence: head.5),
        recordedAt: head.6,
        timelines: [
          RevenueTimeline(
            originalTransactionId: head.1, isSubscription: head.2,
            firstStart: head.3.map(Timestamp.init(milliseconds:)),
            segments: periods[head.0] ?? [], billingRetry: retries[head.0] ?? [],
            entries: entries[head.0] ?? [])
        ])
    }
  }
}
