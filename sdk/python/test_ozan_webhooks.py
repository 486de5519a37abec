"""Tests for ozan_webhooks; the same cases as test/sdk/node-verify.test.ts.

Run from this folder: python3 -m unittest test_ozan_webhooks
"""

import base64
import hashlib
import hmac
import json
import time
import unittest

from ozan_webhooks import (
    DEFAULT_TOLERANCE_S,
    WebhookVerificationError,
    sign_payload,
    verify_webhook,
)

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
OTHER_SECRET = "whsec_2v1Zb0n9Qk3yR1m4T7w8X5c6V0b3N2m1"
NOW = 1700000000
EVENT = {"event": "session.ended", "data": {"session_id": 42, "caller": "çağrı"}}
BODY = json.dumps(EVENT, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
# Computed independently: printf '%s' '1700000000.<BODY>' | openssl dgst -sha256 -hmac <SECRET>
KNOWN_V1 = "6c62052be6725d305993190dfe08cfd41d9b5c93c21f57fae14672cf7130e53c"


def v1(body, secret=SECRET, t=NOW):
    return sign_payload(body, secret, t).split(",", 1)[1]


class VerifyTest(unittest.TestCase):
    def assert_code(self, code, body, header, secret=SECRET, **kwargs):
        kwargs.setdefault("now", NOW)
        with self.assertRaises(WebhookVerificationError) as caught:
            verify_webhook(body, header, secret, **kwargs)
        self.assertEqual(caught.exception.code, code)

    def test_known_answer(self):
        self.assertEqual(sign_payload(BODY, SECRET, NOW), "t=%d,v1=%s" % (NOW, KNOWN_V1))

    def test_genuine_bytes_and_str_bodies(self):
        header = sign_payload(BODY, SECRET, NOW)
        self.assertEqual(verify_webhook(BODY, header, SECRET, now=NOW), EVENT)
        self.assertEqual(verify_webhook(BODY.decode("utf-8"), header, SECRET, now=NOW), EVENT)
        self.assertEqual(verify_webhook(bytearray(BODY), header, SECRET, now=NOW), EVENT)

    def test_default_now_is_the_clock(self):
        t = int(time.time())
        self.assertEqual(verify_webhook(BODY, sign_payload(BODY, SECRET, t), SECRET), EVENT)

    def test_second_of_two_v1_matches(self):
        header = "t=%d,v1=%s,%s" % (NOW, "0" * 64, v1(BODY))
        self.assertEqual(verify_webhook(BODY, header, SECRET, now=NOW), EVENT)

    def test_rotation_header_from_two_secrets(self):
        header = sign_payload(BODY, [OTHER_SECRET, SECRET], NOW)
        self.assertEqual(header.count("v1="), 2)
        self.assertEqual(verify_webhook(BODY, header, SECRET, now=NOW), EVENT)
        self.assertEqual(verify_webhook(BODY, header, OTHER_SECRET, now=NOW), EVENT)

    def test_unknown_schemes_are_ignored(self):
        header = "t=%d,v0=deadbeef,%s,v2=whatever" % (NOW, v1(BODY))
        self.assertEqual(verify_webhook(BODY, header, SECRET, now=NOW), EVENT)

    def test_v1_that_is_not_sha256_hex_does_not_match(self):
        for bad in ["abc", "zz" * 32, KNOWN_V1[:-2], KNOWN_V1 + "00"]:
            self.assert_code("no_matching_signature", BODY, "t=%d,v1=%s" % (NOW, bad))
        # ...and does not stop a good entry after it from matching.
        self.assertEqual(verify_webhook(BODY, "t=%d,v1=xyz,%s" % (NOW, v1(BODY)), SECRET, now=NOW), EVENT)

    def test_uppercase_hex_matches(self):
        self.assertEqual(verify_webhook(BODY, "t=%d,v1=%s" % (NOW, KNOWN_V1.upper()), SECRET, now=NOW), EVENT)

    def test_tampered_body(self):
        header = sign_payload(BODY, SECRET, NOW)
        self.assert_code("no_matching_signature", BODY.replace(b"42", b"43"), header)
        self.assert_code("no_matching_signature", BODY + b" ", header)
        # Re-serialized JSON is equal as data but not as bytes.
        self.assert_code("no_matching_signature", json.dumps(EVENT).encode(), header)

    def test_tampered_timestamp(self):
        header = "t=%d,%s" % (NOW + 1, v1(BODY))
        self.assert_code("no_matching_signature", BODY, header)

    def test_wrong_secret(self):
        self.assert_code("no_matching_signature", BODY, sign_payload(BODY, SECRET, NOW), OTHER_SECRET)

    def test_secret_is_not_decoded(self):
        # A receiver that base64-decodes the part after whsec_ gets a different key.
        decoded = base64.urlsafe_b64decode(SECRET[len("whsec_"):] + "==")
        digest = hmac.new(decoded, b"%d." % NOW + BODY, hashlib.sha256).hexdigest()
        header = "t=%d,v1=%s" % (NOW, digest)
        self.assert_code("no_matching_signature", BODY, header)

    def test_forged_stale_header_is_reported_as_forged(self):
        self.assert_code("no_matching_signature", BODY, "t=1,v1=" + "ab" * 32)

    def test_stale_and_future(self):
        old = NOW - DEFAULT_TOLERANCE_S - 1
        new = NOW + DEFAULT_TOLERANCE_S + 1
        self.assert_code("timestamp_too_old", BODY, sign_payload(BODY, SECRET, old))
        self.assert_code("timestamp_in_future", BODY, sign_payload(BODY, SECRET, new))

    def test_tolerance_edges_are_inclusive(self):
        for t in (NOW - DEFAULT_TOLERANCE_S, NOW + DEFAULT_TOLERANCE_S):
            self.assertEqual(verify_webhook(BODY, sign_payload(BODY, SECRET, t), SECRET, now=NOW), EVENT)

    def test_custom_tolerance(self):
        header = sign_payload(BODY, SECRET, NOW - 100)
        self.assertEqual(verify_webhook(BODY, header, SECRET, tolerance_s=100, now=NOW), EVENT)
        self.assert_code("timestamp_too_old", BODY, header, tolerance_s=99)
        self.assert_code("timestamp_in_future", BODY, sign_payload(BODY, SECRET, NOW + 11), tolerance_s=10)
        self.assert_code("timestamp_too_old", BODY, sign_payload(BODY, SECRET, NOW - 1), tolerance_s=0)

    def test_fractional_now(self):
        header = sign_payload(BODY, SECRET, NOW)
        self.assertEqual(verify_webhook(BODY, header, SECRET, now=NOW + 300.0), EVENT)
        self.assert_code("timestamp_too_old", BODY, header, now=NOW + 300.5)

    def test_missing_header(self):
        for header in (None, "", "   ", "\t"):
            self.assert_code("missing_header", BODY, header)

    def test_malformed_header(self):
        sig = v1(BODY)
        for header in (
            "t=abc," + sig,
            sig,
            "t=%d" % NOW,
            "hello world",
            "t=-5," + sig,
            "t=1.5," + sig,
            "t=," + sig,
            "t=%d,v1=" % NOW,
            "t=%d,t=%d,%s" % (NOW, NOW, sig),
            "t=%d,%s," % (NOW, sig),
            "t=%d,,%s" % (NOW, sig),
            "t=%d;%s" % (NOW, sig),
            "t=%d,garbage,%s" % (NOW, sig),
            "t=%d,=x,%s" % (NOW, sig),
            "t = %d,%s" % (NOW, sig),
            "t=\u0661\u0662," + sig,
        ):
            with self.subTest(header=header):
                self.assert_code("malformed_header", BODY, header)

    def test_spaces_and_tabs_around_commas_are_accepted(self):
        header = " t=%d , v0=1,\t%s " % (NOW, v1(BODY))
        self.assertEqual(verify_webhook(BODY, header, SECRET, now=NOW), EVENT)

    def test_secret_list(self):
        header = sign_payload(BODY, SECRET, NOW)
        self.assertEqual(verify_webhook(BODY, header, [OTHER_SECRET, SECRET], now=NOW), EVENT)
        self.assert_code("no_matching_signature", BODY, header, [OTHER_SECRET])

    def test_empty_secret_is_a_setup_error(self):
        header = sign_payload(BODY, SECRET, NOW)
        for secret in ("", [], [SECRET, ""]):
            with self.assertRaises(ValueError):
                verify_webhook(BODY, header, secret, now=NOW)
        with self.assertRaises(ValueError):
            sign_payload(BODY, "", NOW)

    def test_malformed_body(self):
        for body in (
            b"not json",
            b"[]",
            b"null",
            b'"session.ended"',
            b'{"data":{}}',
            b'{"event":5,"data":{}}',
            b'{"event":"x"}',
            b'{"event":"x","data":[]}',
            b'{"event":"x","data":{"n":NaN}}',
            b'\xef\xbb\xbf{"event":"x","data":{}}',
            b'{"event":"\xff","data":{}}',
            b"",
        ):
            with self.subTest(body=body):
                self.assert_code("malformed_body", body, sign_payload(body, SECRET, NOW))

    def test_extra_fields_are_kept(self):
        body = b'{"event":"x","data":{},"api_version":"2025-01"}'
        event = verify_webhook(body, sign_payload(body, SECRET, NOW), SECRET, now=NOW)
        self.assertEqual(event["api_version"], "2025-01")

    def test_error_carries_code_and_message(self):
        error = WebhookVerificationError("malformed_body", "nope")
        self.assertIsInstance(error, Exception)
        self.assertEqual((error.code, error.message, str(error)), ("malformed_body", "nope", "nope"))

    def test_sign_payload_rejects_non_integer_timestamps(self):
        for t in (1.5, -1, True, "1700000000"):
            with self.assertRaises(ValueError):
                sign_payload(BODY, SECRET, t)


if __name__ == "__main__":
    unittest.main()
