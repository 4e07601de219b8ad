import Foundation
import Logging
import PostgresNIO

/// The app a database serves, as recorded by `migrate` or the first `serve`
/// (`storeledger.app_configuration`): what every command reads instead of flags.
public struct RecordedAppConfiguration: Hashable, Sendable {
  public var bundleId: String
  public var appAppleId: Int64?
  public var environments: [String]
  /// The product catalog's JSON, nil when none was given.
  public var catalogJSON: String?
  /// The DER of the root certificates given; nil: Apple's roots.
  public var rootCertificates: [[UInt8]]?
  public var sandboxEntitles: Bool
  public var rescindedConsentEndsEntitlements: Bool
  /// `migrate` or `serve`, and when.
  public var recordedBy: String
  public var recordedAt: Date?

  public init(
    bundleId: String, appAppleId: Int64?, environments: [String], catalogJSON: String?,
    rootCertificates: [[UInt8]]?, sandboxEntitles: Bool, rescindedConsentEndsEntitlements: Bool,
    recordedBy: String, recordedAt: Date? = nil
  ) {
    self.bundleId = bundleId
    self.appAppleId = appAppleId
    self.environments = environments
    self.catalogJSON = catalogJSON
    self.rootCertificates = rootCertificates
    self.sandboxEntitles = sandboxEntitles
    self.rescindedConsentEndsEntitlements = rescindedConsentEndsEntitlements
    self.recordedBy = recordedBy
    self.recordedAt = recordedAt
  }

  /// The recorded configuration, nil when none is (or the schema predates it).
  public static func read(on client: PostgresClient, logger: Logger) async throws
    -> RecordedAppConfiguration?
  {
    let exists = try await client.query(
      "SELECT to_regclass('storeledger.app_configuration') IS NOT NULL", logger: logger
    ) { rows in
      var exists = false
      for try await value in rows.decode(Bool.self) { exists = value }
      return exists
    }
    guard exists else { return nil }
    return try await client.query(
      """
      SELECT bundle_id, app_apple_id, environments, catalog::text, root_certificates,
        sandbox_entitles, rescinded_consent_ends_entitlements, recorded_by, recorded_at
      FROM storeledger.app_configuration
      """, logger: logger
    ) { rows in
      var found: RecordedAppConfiguration?
      for try await row in rows.decode(
        (
          String, Int64?, [String], String?, [String]?, Bool, Bool, String, Date
        ).self)
      {
        found = RecordedAppConfiguration(
          bundleId: row.0, appAppleId: row.1, environments: row.2, catalogJSON: row.3,
          rootCertificates: row.4.map { $0.compactMap { Data(base64Encoded: $0).map(Array.init) } },
          sandboxEntitles: row.5, rescindedConsentEndsEntitlements: row.6, recordedBy: row.7,
          recordedAt: row.8)
      }
      return found
    }
  }

  /// Records this configuration, replacing the one recorded (the owner's right: `migrate`).
  public func replace(on client: PostgresClient, logger: Logger) async throws {
    try await write(on: client, replacing: true, logger: logger)
  }

  /// Records this configuration when none is (`serve`'s first start); true when it did.
  @discardableResult
  public func recordIfAbsent(on client: PostgresClient, logger: Logger) async throws -> Bool {
    try await write(on: client, replacing: false, logger: logger)
  }

  @discardableResult
  private func write(on client: PostgresClient, replacing: Bool, logger: Logger) async throws
    -> Bool
  {
    let roots = rootCertificates?.map { Data($0).base64EncodedString() }
    let query: PostgresQuery =
      replacing
      ? """
      INSERT INTO storeledger.app_configuration (bundle_id, app_apple_id, environments, catalog,
        root_certificates, sandbox_entitles, rescinded_consent_ends_entitlements, recorded_by)
      VALUES (\(bundleId), \(appAppleId), \(environments), \(catalogJSON)::jsonb, \(roots),
        \(sandboxEntitles), \(rescindedConsentEndsEntitlements), \(recordedBy))
      ON CONFLICT (singleton) DO UPDATE SET bundle_id = EXCLUDED.bundle_id,
        app_apple_id = EXCLUDED.app_apple_id, environments = EXCLUDED.environments,
        catalog = EXCLUDED.catalog, root_certificates = EXCLUDED.root_certificates,
        sandbox_entitles = EXCLUDED.sandbox_entitles,
        rescinded_consent_ends_entitlements = EXCLUDED.rescinded_consent_ends_entitlements,
        recorded_by = EXCLUDED.recorded_by, recorded_at = now()
      RETURNING true
      """
      : """
      INSERT INTO storeledger.app_configuration (bundle_id, app_apple_id, environments, catalog,
        root_certificates, sandbox_entitles, rescinded_consent_ends_entitlements, recorded_by)
      VALUES (\(bundleId), \(appAppleId), \(environments), \(catalogJSON)::jsonb, \(roots),
        \(sandboxEntitles), \(rescindedConsentEndsEntitlements), \(recordedBy))
      ON CONFLICT (singleton) DO NOTHING
      RETURNING true
      """
    return try await client.query(query, logger: logger) { rows in
      var written = false
      for try await value in rows.decode(Bool.self) { written = value }
      return written
    }
  }
}
