import Foundation
import StoreLedgerCore

/// The kinds of data the App Store signs, as recognised from a payload's fields.
public enum SignedDataKind: String, Sendable, CaseIterable {
  case notification
  case transaction
  case renewalInfo
  case appTransaction
  case realtimeRequest

  private struct Probe: Decodable {
    var notificationType: String?
    var receiptType: String?
    var userLocale: String?
    var requestIdentifier: String?
    var transactionId: String?
    var bundleId: String?
    var type: String?
    var environment: String?
    var data: Nested?
    var summary: Nested?
    var appData: Nested?
    var externalPurchaseToken: Nested?
    var unclaimInfo: Nested?
  }

  private struct Nested: Decodable {
    var environment: String?
    var externalPurchaseId: String?
    var bundleId: String?
  }

  /// What a (not yet verified) payload says it is: its kind and the environment it claims.
  /// Read only to choose how to verify it, never to trust it.
  public struct Claims: Sendable, Hashable {
    public var kind: SignedDataKind
    /// `environment` (`receiptType` for an app transaction; `data`/`summary`/`appData`'s for
    /// a notification); nil when the payload names none.
    public var environment: AppStoreEnvironment?
    /// The app the payload names (a notification's `data`, `summary`, `appData` or
    /// `externalPurchaseToken`), for routing it to that app's verifier; nil when none.
    public var bundleId: String?

    public init(kind: SignedDataKind, environment: AppStoreEnvironment?, bundleId: String? = nil) {
      self.kind = kind
      self.environment = environment
      self.bundleId = bundleId
    }
  }

  /// Recognises the kind of `jws` from its (not yet verified) payload.
  ///
  /// `notificationType` marks a notification, `receiptType` an app transaction,
  /// `userLocale`/`requestIdentifier` a retention request; a `transactionId`, `bundleId` or
  /// `type` a transaction. Renewal info has none of these.
  public static func of(_ jws: String) throws(VerificationError) -> SignedDataKind {
    try claims(of: jws).kind
  }

  /// The kind of `jws` and the environment its payload claims.
  public static func claims(of jws: String) throws(VerificationError) -> Claims {
    let token = try CompactJWS(jws)
    let probe: Probe
    do {
      probe = try JSONDecoding.decoder.decode(Probe.self, from: token.payloadJSON)
    } catch {
      throw VerificationError(.malformedPayload, "the payload is not a JSON object")
    }
    let kind = kind(of: probe)
    if kind == .notification, probe.data == nil, probe.summary == nil, probe.appData == nil,
      probe.externalPurchaseToken == nil, probe.unclaimInfo?.environment == nil
    {
      // A body this release does not model (or one that names no environment): read it
      // whole, as the notification's own identity does.
      let body = try? JSONDecoding.decoder.decode(
        ResponseBodyV2DecodedPayload.self, from: token.payloadJSON)
      return Claims(kind: kind, environment: body?.environment, bundleId: body?.bundleId)
    }
    let environment =
      switch kind {
      case .notification:
        (probe.data ?? probe.summary ?? probe.appData ?? probe.unclaimInfo)?.environment
          ?? probe.externalPurchaseToken?.externalPurchaseId.map {
            // As the payload's own `environment` reads it: a SANDBOX prefix means Sandbox.
            $0.hasPrefix("SANDBOX") ? "Sandbox" : "Production"
          }
      case .appTransaction: probe.receiptType
      default: probe.environment
      }
    let nested =
      probe.data ?? probe.summary ?? probe.appData ?? probe.externalPurchaseToken
      ?? probe.unclaimInfo
    return Claims(
      kind: kind, environment: environment.map(AppStoreEnvironment.init(rawValue:)),
      bundleId: kind == .notification ? nested?.bundleId : probe.bundleId)
  }

  private static func kind(of probe: Probe) -> SignedDataKind {
    if probe.notificationType != nil { return .notification }
    if probe.receiptType != nil { return .appTransaction }
    if probe.userLocale != nil || probe.requestIdentifier != nil { return .realtimeRequest }
    if probe.transactionId != nil || probe.bundleId != nil || probe.type != nil {
      return .transaction
    }
    return .renewalInfo
  }
}
