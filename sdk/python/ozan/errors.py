"""Typed errors: one class per kind of failure, each carrying the API's code, message and request id."""

import json
from typing import Any, Dict, List, Mapping, Optional, Type

__all__ = [
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "BadRequestError",
    "ConflictError",
    "NotFoundError",
    "OzanError",
    "PayloadTooLargeError",
    "PaymentRequiredError",
    "PermissionDeniedError",
    "RateLimitError",
    "ServerError",
    "UnprocessableEntityError",
    "error_from_response",
]


class OzanError(Exception):
    """Every error this library raises."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class APIConnectionError(OzanError):
    """No HTTP response: the server could not be reached, the connection broke, or it timed out."""


class APIError(OzanError):
    """The API answered with an error status.

    ``code`` is the API's machine code (``error.code``: ``not_found``, ``rate_limited``...). A 422,
    whose body is ``{"detail": [...]}`` and has no code, gets ``validation_error``; any other body
    without one gets ``http_<status>``. ``request_id`` is ``error.request_id``, else the
    ``X-Request-ID`` header.
    """

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str],
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.request_id = request_id
        self.body = body
        self.headers: Dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}

    def __str__(self) -> str:
        rid = " (request %s)" % self.request_id if self.request_id else ""
        return "%d %s: %s%s" % (self.status, self.code, self.message, rid)

    def __repr__(self) -> str:
        return "%s(status=%d, code=%r, message=%r, request_id=%r)" % (
            type(self).__name__,
            self.status,
            self.code,
            self.message,
            self.request_id,
        )


class BadRequestError(APIError):
    """400: a malformed request or an invalid value (``invalid_scope``, ``invalid_token``...)."""


class AuthenticationError(APIError):
    """401: a missing or invalid API key or session token."""


class PaymentRequiredError(APIError):
    """402: ``insufficient_credit`` or ``quota_exceeded``; retrying does not help until that changes."""


class PermissionDeniedError(APIError):
    """403: authenticated but not allowed (``permission_denied``, ``user_session_required``...)."""


class NotFoundError(APIError):
    """404: no such resource, or it belongs to another organization."""


class ConflictError(APIError):
    """409: the request conflicts with the resource's current state."""


class PayloadTooLargeError(APIError):
    """413: the body or uploaded file is too large."""


class UnprocessableEntityError(APIError):
    """422: the request failed validation; ``detail`` lists each problem (``type``, ``loc``, ``msg``)."""

    @property
    def detail(self) -> List[Dict[str, Any]]:
        detail = self.body.get("detail") if isinstance(self.body, dict) else None
        return [d for d in detail if isinstance(d, dict)] if isinstance(detail, list) else []


class RateLimitError(APIError):
    """429: ``rate_limited`` (``retry_after`` seconds to wait) or ``concurrency_limit`` (too many live calls)."""

    @property
    def retry_after(self) -> Optional[float]:
        from .retry import parse_retry_after

        return parse_retry_after(self.headers.get("retry-after"))


class ServerError(APIError):
    """5xx: a failure inside the service (500) or at an upstream provider (502, 503)."""


_BY_STATUS: Dict[int, Type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: PaymentRequiredError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def _validation_message(detail: List[Any]) -> str:
    parts = []
    for entry in detail[:5]:
        if isinstance(entry, dict):
            loc = ".".join(str(p) for p in entry.get("loc", []) if p != "body")
            parts.append("%s: %s" % (loc, entry.get("msg")) if loc else str(entry.get("msg")))
    more = " (and %d more)" % (len(detail) - 5) if len(detail) > 5 else ""
    return "; ".join(parts) + more if parts else "Validation error"


def error_from_response(status: int, raw: bytes, headers: Mapping[str, str]) -> APIError:
    """The typed error for an error response: its class by status, its fields from the body."""
    lower = {k.lower(): v for k, v in headers.items()}
    try:
        body: Any = json.loads(raw.decode("utf-8")) if raw else None
    except (UnicodeDecodeError, ValueError):
        body = raw.decode("utf-8", "replace")[:2000]
    request_id = lower.get("x-request-id")
    code, message = "http_%d" % status, "HTTP %d" % status
    err = body.get("error") if isinstance(body, dict) else None
    if isinstance(err, dict):
        code = str(err.get("code") or code)
        message = str(err.get("message") or message)
        request_id = str(err.get("request_id") or "") or request_id
    elif isinstance(body, dict) and isinstance(body.get("detail"), list):
        code, message = "validation_error", _validation_message(body["detail"])
    elif isinstance(body, dict) and isinstance(body.get("detail"), str):
        # An unknown path or method: {"detail": "Not Found"} / {"detail": "Method Not Allowed"}.
        message = body["detail"]
        code = {404: "not_found", 405: "method_not_allowed"}.get(status, code)
    elif isinstance(body, str) and body.strip():
        message = body.strip()[:200]
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIError)
    return cls(status, code, message, request_id, body, lower)
