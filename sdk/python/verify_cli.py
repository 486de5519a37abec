"""Verify one webhook delivery described as JSON on stdin; print the outcome as one JSON line.

Input:  {"body_b64": str, "header": str|null, "secret": str|[str], "tolerance_s"?: int, "now"?: number}
Output: {"ok": true, "event": {...}} or {"ok": false, "code": "<WebhookVerificationError code>"}

The body travels as base64 so the exact bytes that were signed reach the verifier. A rejected
delivery is a normal outcome (exit 0); input this script cannot read exits 2 with a message on
stderr, so a broken harness is not mistaken for a rejected delivery.
"""

import base64
import binascii
import json
import os
import sys

# Importable when run as `python3 sdk/python/verify_cli.py` from anywhere.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ozan_webhooks import DEFAULT_TOLERANCE_S, WebhookVerificationError, verify_webhook  # noqa: E402


def main() -> int:
    try:
        request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
        body = base64.b64decode(request["body_b64"], validate=True)
        header = request.get("header")
        secret = request["secret"]
        tolerance_s = request.get("tolerance_s", DEFAULT_TOLERANCE_S)
        now = request.get("now")
    except (ValueError, KeyError, TypeError, AttributeError, binascii.Error) as error:
        print("verify_cli: unreadable input: %s" % error, file=sys.stderr)
        return 2

    try:
        event = verify_webhook(body, header, secret, tolerance_s=tolerance_s, now=now)
    except WebhookVerificationError as error:
        out = {"ok": False, "code": error.code}
    except (ValueError, TypeError) as error:
        # A bad secret or tolerance is a harness mistake, not a verdict on the delivery.
        print("verify_cli: invalid input: %s" % error, file=sys.stderr)
        return 2
    else:
        out = {"ok": True, "event": event}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
