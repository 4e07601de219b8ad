#!/usr/bin/env python3
"""Apple's own App Store Server Library (Python) as a judge of `storeledger simulate`.

Runs a simulated App Store whose webhook is this script, then holds everything the simulator
signs to Apple's SignedDataVerifier (strict X.509 checks, as shipped) and calls every Server API
endpoint the simulator serves with Apple's AppStoreServerAPIClient, comparing what it decodes
with what the notifications said. Prints one JSON summary; exits 1 on any failure.

Usage: apple_library.py STORELEDGER_BINARY WORKDIR [--customers N] [--months N]
"""
import argparse
import collections
import re
import base64
import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid

from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
from appstoreserverlibrary.models.MassExtendRenewalDateRequest import MassExtendRenewalDateRequest
from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest
from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
from appstoreserverlibrary.api_client import GetTransactionHistoryVersion
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

BUNDLE_ID = "com.example.app"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Judge:
    def __init__(self):
        self.checks = 0
        self.failures = []

    def check(self, ok, what):
        self.checks += 1
        if not ok:
            self.failures.append(what)

    def attempt(self, what, call):
        """Runs `call`; an exception is a failure named `what`."""
        self.checks += 1
        try:
            return call()
        except APIException as error:
            self.failures.append(f"{what}: HTTP {error.http_status_code} {error.raw_api_error}")
        except VerificationException as error:
            self.failures.append(f"{what}: {error.status}")
        except Exception as error:  # the judge reports, never crashes
            self.failures.append(f"{what}: {type(error).__name__} {error}")
        return None


def receive_notifications(port, into, done):
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            into.append(body.get("signedPayload"))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    done.append(server)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("workdir")
    parser.add_argument("--customers", type=int, default=80)
    parser.add_argument("--months", type=int, default=12)
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    judge = Judge()
    payloads, servers = [], []
    hook_port, api_port = free_port(), free_port()
    receive_notifications(hook_port, payloads, servers)
    simulator = subprocess.Popen(
        [args.binary, "simulate", "--customers", str(args.customers), "--months", str(args.months),
         "--seed", "11", "--port", str(api_port), "--day-seconds", "0.002", "--history-days", "30",
         "--out", args.workdir, "--webhook", f"http://127.0.0.1:{hook_port}/hook", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        done = False
        for line in simulator.stdout:
            if '"isFinal":true' in line.replace(' ', ''):
                done = True
                break
        deadline = time.time() + 30
        while time.time() < deadline:
            count = len(payloads)
            time.sleep(0.5)
            if count == len(payloads):
                break
        run(judge, args.workdir, api_port, payloads)
    finally:
        simulator.terminate()
        simulator.wait(timeout=10)
        for server in servers:
            server.shutdown()
    kinds = collections.Counter(re.sub(r"\d{6,}", "#", f) for f in judge.failures)
    summary = {"judge": "app-store-server-library", "checks": judge.checks,
               "notifications": len(payloads), "failures": len(judge.failures),
               "kinds": dict(kinds.most_common(30))}
    print(json.dumps(summary, indent=1))
    sys.exit(1 if judge.failures or not payloads else 0)


def run(judge, workdir, api_port, payloads):
    with open(os.path.join(workdir, "root.der"), "rb") as f:
        root = f.read()
    with open(os.path.join(workdir, "api-key.p8"), "rb") as f:
        key = f.read()
    verifier = SignedDataVerifier([root], False, Environment.SANDBOX, BUNDLE_ID)
    client = AppStoreServerAPIClient(key, "SIM11", "5f6e7d8c-0000-4000-8000-000000000011",
                                     BUNDLE_ID, Environment.SANDBOX)
    client._base_url = f"http://127.0.0.1:{api_port}"

    delivered_during_run = len(payloads)
    # Everything the notifications carry, verified strictly.
    seen = {}  # originalTransactionId -> newest transaction payload seen in a notification
    decoded_notifications = []
    for signed in payloads:
        decoded = judge.attempt("notification", lambda: verifier.verify_and_decode_notification(signed))
        if decoded is None or decoded.data is None:
            continue
        t = None
        if decoded.data.signedTransactionInfo:
            t = judge.attempt("notification transaction",
                              lambda: verifier.verify_and_decode_signed_transaction(
                                  decoded.data.signedTransactionInfo))
            if t is not None:
                previous = seen.get(t.originalTransactionId)
                if previous is None or (t.signedDate or 0) >= (previous.signedDate or 0):
                    seen[t.originalTransactionId] = t
        r = None
        if decoded.data.signedRenewalInfo:
            r = judge.attempt("notification renewal info",
                              lambda: verifier.verify_and_decode_renewal_info(decoded.data.signedRenewalInfo))
        decoded_notifications.append((decoded, t, r))

    check_what_apple_sends(judge, decoded_notifications)

    # Every endpoint, as Apple's client calls it.
    chains = sorted(seen)[:40]
    active = []
    for original in chains:
        history = []
        revision = None
        while True:
            page = judge.attempt(
                "Get Transaction History v2",
                lambda: client.get_transaction_history(
                    original, revision, TransactionHistoryRequest(),
                    GetTransactionHistoryVersion.V2))
            if page is None:
                break
            for signed in page.signedTransactions or []:
                t = judge.attempt("history transaction", lambda: verifier.verify_and_decode_signed_transaction(signed))
                if t is not None:
                    history.append(t)
            if not page.hasMore:
                break
            revision = page.revision
        judge.attempt("Get Transaction History v2, revoked=False", lambda: client.get_transaction_history(
            original, None, TransactionHistoryRequest(revoked=False), GetTransactionHistoryVersion.V2))
        ids = {t.transactionId for t in history}
        judge.check(seen[original].transactionId in ids,
                    f"history of {original} lacks {seen[original].transactionId}, which a notification named")
        info = judge.attempt("Get Transaction Info", lambda: client.get_transaction_info(original))
        if info is not None:
            judge.attempt("transaction info JWS", lambda: verifier.verify_and_decode_signed_transaction(info.signedTransactionInfo))
        statuses = judge.attempt("Get All Subscription Statuses", lambda: client.get_all_subscription_statuses(original))
        for group in (statuses.data or []) if statuses else []:
            for item in group.lastTransactions or []:
                if item.rawStatus == 1 and item.originalTransactionId == original:
                    active.append(original)
                judge.attempt("status transaction", lambda: verifier.verify_and_decode_signed_transaction(item.signedTransactionInfo))
                judge.attempt("status renewal info", lambda: verifier.verify_and_decode_renewal_info(item.signedRenewalInfo))
        refunds = judge.attempt("Get Refund History", lambda: client.get_refund_history(original, None))
        if refunds is not None:
            refunded = set()
            for signed in refunds.signedTransactions or []:
                t = judge.attempt("refund JWS", lambda: verifier.verify_and_decode_signed_transaction(signed))
                if t is not None:
                    judge.check(t.revocationDate is not None, f"refund history of {original} holds an unrevoked transaction")
                    judge.check(t.transactionId not in refunded, f"{t.transactionId} refunded twice")
                    refunded.add(t.transactionId)
        app = judge.attempt("Get App Transaction Info", lambda: client.get_app_transaction_info(original))
        if app is not None and app.signedAppTransactionInfo:
            decoded = judge.attempt("app transaction JWS",
                                    lambda: verifier.verify_and_decode_app_transaction(app.signedAppTransactionInfo))
            carried = {t.appTransactionId for t in history if t.appTransactionId}
            if decoded is not None and carried:
                judge.check(decoded.appTransactionId in carried,
                            f"app transaction of {original} is {decoded.appTransactionId}; its transactions carry {sorted(carried)}")
    judge.check(bool(active), "no active subscription to extend")
    # Finish Transaction takes a transaction the customer holds; Look Up Order ID is not served
    # in the Sandbox (Apple's Sandbox host has no such path: 404).
    if chains:
        judge.attempt("Finish Transaction", lambda: client.finish_transaction(seen[chains[0]].transactionId))
    try:
        client.look_up_order_id("MK5TTTVWJH")
        judge.check(False, "Look Up Order ID answered in the Sandbox")
    except APIException as error:
        judge.check(error.http_status_code == 404, f"Look Up Order ID in the Sandbox: {error.http_status_code}")
    # Send Consumption Information for a refund request Apple sent (not family-shared).
    asked = [t for d, t, _ in decoded_notifications
             if d.rawNotificationType == "CONSUMPTION_REQUEST" and t is not None]
    judge.check(bool(asked), "no CONSUMPTION_REQUEST to answer")
    if asked:
        t = asked[0]
        consumable = t.rawType == "Consumable"
        judge.attempt("Send Consumption Information", lambda: client.send_consumption_information(
            t.transactionId, ConsumptionRequest(
                customerConsented=True, sampleContentProvided=False,
                deliveryStatus=DeliveryStatus.DELIVERED,
                consumptionPercentage=50000 if consumable else None)))
    if active:
        original = active[0]
        judge.attempt("Set App Account Token", lambda: client.set_app_account_token(
            original, UpdateAppAccountTokenRequest(appAccountToken=str(uuid.uuid4()))))
        judge.attempt("Extend a Subscription Renewal Date", lambda: client.extend_subscription_renewal_date(
            original, ExtendRenewalDateRequest(extendByDays=3, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION,
                                               requestIdentifier=str(uuid.uuid4()))))
        product = seen[original].productId
        request_id = str(uuid.uuid4())
        judge.attempt("Extend for All Active Subscribers", lambda: client.extend_renewal_date_for_all_active_subscribers(
            MassExtendRenewalDateRequest(extendByDays=1, extendReasonCode=ExtendReasonCode.SERVICE_ISSUE_OR_OUTAGE,
                                         requestIdentifier=request_id, productId=product)))
        judge.attempt("Get Status of Renewal Date Extensions",
                      lambda: client.get_status_of_subscription_renewal_date_extensions(request_id, product))
        # What the calls create is delivered after the simulated run too, as Apple keeps sending.
        deadline = time.time() + 20
        summary = None
        while summary is None and time.time() < deadline:
            for signed in list(payloads[delivered_during_run:]):
                decoded = verifier.verify_and_decode_notification(signed)
                if decoded.rawNotificationType == "RENEWAL_EXTENSION" and decoded.rawSubtype == "SUMMARY" \
                        and decoded.summary and decoded.summary.requestIdentifier == request_id:
                    summary = decoded
            time.sleep(0.2)
        judge.check(summary is not None, "no RENEWAL_EXTENSION SUMMARY after the mass extension")
    sent = judge.attempt("Request a Test Notification", lambda: client.request_test_notification())
    status = None
    if sent is not None:
        # Apple sends it within moments; its status is 404 until the first attempt.
        deadline = time.time() + 20
        while status is None and time.time() < deadline:
            try:
                status = client.get_test_notification_status(sent.testNotificationToken)
            except APIException as error:
                if error.http_status_code != 404:
                    break
                time.sleep(0.2)
        judge.check(status is not None and any(a.rawSendAttemptResult == "SUCCESS" for a in status.sendAttempts or []),
                    "the TEST notification was not delivered after the simulated run")

    # The simulator's clock (a simulated year, not the wall clock): the TEST notification's
    # signature, made now, else the newest one seen.
    now = max((d.signedDate or 0) for d, _, _ in decoded_notifications) if decoded_notifications else 0
    if status is not None and status.signedPayload:
        test = judge.attempt("TEST notification", lambda: verifier.verify_and_decode_notification(status.signedPayload))
        if test is not None and test.signedDate:
            now = test.signedDate
    judge.attempt("Get Notification History", lambda: client.get_notification_history(
        None, NotificationHistoryRequest(startDate=now - 29 * 86_400_000, endDate=now)))
    # Apple keeps 30 days of Sandbox history (180 in Production) and refuses an older start.
    try:
        client.get_notification_history(
            None, NotificationHistoryRequest(startDate=now - 31 * 86_400_000, endDate=now))
        judge.check(False, "Notification History served a start 31 days back in the Sandbox")
    except APIException as error:
        judge.check(error.raw_api_error == 4000012,
                    f"Notification History 31 days back: {error.http_status_code} {error.raw_api_error}, not 4000012")



def check_what_apple_sends(judge, notifications):
    """What Apple's payloads always carry, and what Apple never does."""
    refunded = {}
    for decoded, t, r in notifications:
        kind = decoded.rawNotificationType
        for payload, what in ((t, "transaction"), (r, "renewal info")):
            if payload is None or payload.rawOfferType is None:
                continue
            judge.check(payload.rawOfferDiscountType is not None,
                        f"{kind}: a {what} with offerType {payload.rawOfferType} and no offerDiscountType")
            judge.check(payload.offerPeriod is not None,
                        f"{kind}: a {what} with offerType {payload.rawOfferType} and no offerPeriod")
            if payload.rawOfferType == 2:
                judge.check(payload.offerIdentifier is not None,
                            f"{kind}: a promotional offer's {what} with no offerIdentifier")
        if kind == "REFUND" and t is not None:
            previous = refunded.get(t.transactionId)
            judge.check(previous is None, f"{t.transactionId} refunded twice ({previous}, {t.revocationDate})")
            refunded[t.transactionId] = t.revocationDate
        if kind == "CONSUMPTION_REQUEST" and t is not None:
            judge.check(t.rawInAppOwnershipType != "FAMILY_SHARED",
                        f"CONSUMPTION_REQUEST for a family-shared purchase ({t.transactionId})")


if __name__ == "__main__":
    main()
