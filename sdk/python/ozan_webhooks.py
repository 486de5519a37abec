"""Verify Ozan webhook deliveries. Standard library only, Python 3.8+.

A delivery is signed as ``X-Ozan-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`` over the
bytes ``b"<t>." + raw_body``, keyed with the endpoint's whole signing secret (``whsec_...``, used
as UTF-8 text, not decoded). While the platform rotates a secret the header carries two ``v1=``
entries. The rules match the Node library (``@ozan/server``) exactly.
"""

import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, List, Optional, Tuple, Union

__all__ = [
    "DEFAULT_TOLERANCE_S",
    "WebhookVerificationError",
    "sign_payload",
    "verify_webhook",
]

DEFAULT_TOLERANCE_S = 300

CODES = (
    "missing_header",
    "malformed_header",
    "no_matching_signature",
    "timestamp_too_old",
    "timestamp_in_future",
    "malformed_body",
)

RawBody = Union[bytes, bytearray, memoryview, str]
Secret = Union[str, List[str]]

# str.isdigit() also accepts non-ASCII digits such as "²", which the Node library would not.
_DIGITS = re.compile(r"[0-9]+")
_SHA256_HEX = re.compile(r"[0-9a-fA-F]{64}")


class WebhookVerificationError(Exception):
    """The delivery is not genuine, not fresh or not readable; ``code`` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return "WebhookVerificationError(%r, %r)" % (self.code, self.message)


def verify_webhook(
    raw_body: RawBody,
    signature_header: Optional[str],
    secret: Secret,
    tolerance_s: float = DEFAULT_TOLERANCE_S,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """Check one delivery's signature and timestamp and return its parsed JSON body.

    ``raw_body`` must be the bytes exactly as received (Flask: ``request.get_data()``,
    FastAPI/Starlette: ``await request.body()``); JSON that was parsed and re-serialized will
    not match. ``secret`` may be a list, so a receiver can roll its own configuration over
    without dropping deliveries. ``now`` is unix seconds, for tests.
    """
    secrets = _secret_list(secret)
    if not _is_number(tolerance_s) or not 0 <= tolerance_s < float("inf"):
        raise ValueError("tolerance_s must be a finite number of seconds, 0 or more")
    # Only spaces and tabs count as blank, the same set the Node library trims.
    if signature_header is None or signature_header.strip(" \t") == "":
        raise WebhookVerificationError("missing_header", "The X-Ozan-Signature header is missing")
    timestamp, signatures = _parse_header(signature_header)
    body = _to_bytes(raw_body)

    # The signature is checked before the timestamp so that a forged or edited header is
    # reported as forged, and so the timestamp we then trust is one the platform signed.
    matched = False
    for s in secrets:
        expected = _hmac(s, timestamp, body)
        for sig in signatures:
            if hmac.compare_digest(sig, expected):
                matched = True
    if not matched:
        raise WebhookVerificationError("no_matching_signature", "No signature matches the secret")

    current = time.time() if now is None else now
    t = int(timestamp)
    if t < current - tolerance_s:
        raise WebhookVerificationError("timestamp_too_old", "The signed timestamp is outside the tolerance")
    if t > current + tolerance_s:
        raise WebhookVerificationError("timestamp_in_future", "The signed timestamp is in the future")

    return _parse_body(body)


def sign_payload(raw_body: RawBody, secret: Secret, timestamp: int) -> str:
    """Return an ``X-Ozan-Signature`` value for ``raw_body``, as the platform would send it.

    For a receiver's own tests. Several secrets give several ``v1=`` entries, as during a rotation.
    """
    if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
        raise ValueError("timestamp must be a whole number of unix seconds")
    t = str(timestamp)
    body = _to_bytes(raw_body)
    parts = ["t=" + t] + ["v1=" + _hmac(s, t, body).hex() for s in _secret_list(secret)]
    return ",".join(parts)


def _parse_header(header: str) -> Tuple[str, List[bytes]]:
    """Split on commas, allowing spaces or tabs around the parts (some proxies re-fold headers).

    Every part must be ``key=value``; keys other than ``t`` and ``v1`` are future schemes and
    are skipped. The timestamp is kept as written: the signed bytes use that text.
    """
    timestamp = None
    signatures = []  # type: List[bytes]
    v1_count = 0
    for raw in header.split(","):
        part = raw.strip(" \t")
        key, eq, value = part.partition("=")
        if not eq or not key or not value:
            raise _malformed('"%s" is not key=value' % part)
        if key == "t":
            if timestamp is not None:
                raise _malformed("more than one t=")
            if not _DIGITS.fullmatch(value):
                raise _malformed("t= is not a whole number of seconds")
            timestamp = value
        elif key == "v1":
            v1_count += 1
            # Anything that is not exactly a SHA-256 in hex can never match; it is left out
            # rather than failing the other entries.
            if _SHA256_HEX.fullmatch(value):
                signatures.append(bytes.fromhex(value))
    if timestamp is None:
        raise _malformed("no t=")
    if v1_count == 0:
        raise _malformed("no v1=")
    return timestamp, signatures


def _parse_body(body: bytes) -> Dict[str, Any]:
    try:
        # parse_constant rejects NaN and Infinity, which JSON (and the Node library) does not allow.
        parsed = json.loads(body.decode("utf-8"), parse_constant=_reject_constant)
    except (UnicodeDecodeError, ValueError):
        raise WebhookVerificationError("malformed_body", "The body is not UTF-8 JSON") from None
    if (
        not isinstance(parsed, dict)
        or not isinstance(parsed.get("event"), str)
        or not isinstance(parsed.get("data"), dict)
    ):
        raise WebhookVerificationError("malformed_body", 'The body is not {"event": string, "data": object}')
    return parsed


def _reject_constant(name: str) -> Any:
    raise ValueError("not JSON: " + name)


def _hmac(secret: str, timestamp: str, body: bytes) -> bytes:
    mac = hmac.new(secret.encode("utf-8"), digestmod=hashlib.sha256)
    mac.update(timestamp.encode("ascii") + b".")
    mac.update(body)
    return mac.digest()


def _secret_list(secret: Secret) -> List[str]:
    secrets = list(secret) if isinstance(secret, (list, tuple)) else [secret]
    # An empty key would let anyone sign, so it is a setup mistake rather than a failed delivery.
    if not secrets or any(not isinstance(s, str) or s == "" for s in secrets):
        raise ValueError("secret must be a non-empty string or a non-empty list of them")
    return secrets


def _to_bytes(body: RawBody) -> bytes:
    if isinstance(body, str):
        return body.encode("utf-8")
    if isinstance(body, (bytes, bytearray, memoryview)):
        return bytes(body)
    raise TypeError("raw_body must be bytes or str")


def _is_number(value: Any) -> bool:
    # bool is an int subclass, but True as a tolerance is surely a mistake.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _malformed(why: str) -> WebhookVerificationError:
    return WebhookVerificationError("malformed_header", "The X-Ozan-Signature header is malformed: " + why)
