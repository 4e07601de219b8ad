#!/usr/bin/env python3
"""Apple's App Store Server Library (Python) as a judge of StoreLedger's signatures and
receipt reading. Reads one JSON request on standard input and prints one JSON answer.

Request: {"key": PEM, "keyId", "issuerId", "bundleId",
          "legacy": [{productId, offerIdentifier, appAccountToken, nonce, timestamp, signature}],
          "jws": [{"kind": "promotional"|"introductory", productId, offerIdentifier?,
                   transactionId?, allowIntroductoryOffer?, jws}],
          "receipts": [{"kind": "app"|"transaction", "receipt"}]}
Answer: {"legacy": [true if StoreLedger's signature verifies over the message Apple's
          PromotionalOfferSignatureCreator signs for the same inputs],
         "jws": [{"verifies", "ours": {header, claims}, "apple": {header, claims}}],
         "receipts": [transaction id Apple's ReceiptUtility reads, or null]}
"""
import json
import sys
import uuid

import jwt
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from appstoreserverlibrary.jws_signature_creator import (
    IntroductoryOfferEligibilitySignatureCreator, PromotionalOfferV2SignatureCreator)
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
from appstoreserverlibrary.receipt_utility import ReceiptUtility


class Capture:
    """A signing key that records the message Apple's creator signs."""

    def __init__(self, key):
        self.key = key
        self.messages = []

    def sign(self, data, algorithm):
        self.messages.append(data)
        return self.key.sign(data, algorithm)


def main():
    request = json.load(sys.stdin)
    pem = request["key"].encode()
    key = serialization.load_pem_private_key(pem, password=None)
    public = key.public_key()
    answer = {"legacy": [], "jws": [], "receipts": []}

    creator = PromotionalOfferSignatureCreator(pem, request["keyId"], request["bundleId"])
    capture = Capture(creator._signing_key)
    creator._signing_key = capture
    for item in request.get("legacy", []):
        apple = creator.create_signature(
            item["productId"], item["offerIdentifier"], item["appAccountToken"],
            uuid.UUID(item["nonce"]), item["timestamp"])
        message = capture.messages[-1]
        try:
            import base64
            public.verify(base64.b64decode(item["signature"]), message, ec.ECDSA(hashes.SHA256()))
            public.verify(base64.b64decode(apple), message, ec.ECDSA(hashes.SHA256()))
            answer["legacy"].append(True)
        except Exception:
            answer["legacy"].append(False)

    promotional = PromotionalOfferV2SignatureCreator(
        pem, request["keyId"], request["issuerId"], request["bundleId"])
    introductory = IntroductoryOfferEligibilitySignatureCreator(
        pem, request["keyId"], request["issuerId"], request["bundleId"])
    for item in request.get("jws", []):
        if item["kind"] == "promotional":
            apple = promotional.create_signature(
                item["productId"], item["offerIdentifier"], item.get("transactionId"))
        else:
            apple = introductory.create_signature(
                item["productId"], item["allowIntroductoryOffer"], item["transactionId"])
        ours = item["jws"]
        audience = jwt.decode(apple, options={"verify_signature": False})["aud"]
        try:
            jwt.decode(ours, public, algorithms=["ES256"], audience=audience)
            verifies = True
        except Exception:
            verifies = False
        def parts(token):
            return {"header": jwt.get_unverified_header(token),
                    "claims": jwt.decode(token, options={"verify_signature": False})}
        answer["jws"].append({"verifies": verifies, "ours": parts(ours), "apple": parts(apple)})

    utility = ReceiptUtility()
    for item in request.get("receipts", []):
        try:
            if item["kind"] == "app":
                found = utility.extract_transaction_id_from_app_receipt(item["receipt"])
            else:
                found = utility.extract_transaction_id_from_transaction_receipt(item["receipt"])
        except Exception:
            found = None
        answer["receipts"].append(found)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
