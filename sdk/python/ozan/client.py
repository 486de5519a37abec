"""The API client: authentication, environment, retries and errors around urllib.request.

The methods (one per operation of the API) come from ``_generated.Operations``; they call
``_call`` and ``_paginate`` here, which are the only places a request is sent.
"""

import http.client
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ._generated import Operations
from .errors import APIConnectionError, APIError, OzanError, error_from_response
from .paging import PageIterator
from .retry import RetryPolicy, is_retryable_status, parse_retry_after

__all__ = ["Client", "Response", "RetryEvent"]

__version__ = "0.1.0"

#: A response larger than this is refused rather than held in memory.
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Response:
    status: int
    #: Header names in lower case.
    headers: Dict[str, str]
    #: The parsed JSON body; None for an empty body; bytes for a body that is not JSON.
    body: Any


@dataclass(frozen=True)
class RetryEvent:
    """Passed to ``on_retry`` before each wait: which retry (1-based), how long, and why."""

    attempt: int
    delay: float
    method: str
    path: str
    error: OzanError = field(repr=False)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # The API never redirects; following one would send the API key to wherever it points.
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


class Client(Operations):
    """An Ozan API client.

    ``Client("https://ozan.example.com", api_key="ozk_...", environment="prod")``. ``api_key``
    is sent as ``X-API-Key``; ``access_token`` (a dashboard session) as a bearer token instead.
    ``environment`` (``dev``, ``staging``, ``prod`` or an environment uuid) is sent as
    ``X-Environment-Id``; without it the organization's default environment is used.
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        *,
        access_token: Optional[str] = None,
        environment: Optional[str] = None,
        timeout: float = 30.0,
        retry: Optional[RetryPolicy] = None,
        accept_language: Optional[str] = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError("base_url must be an http(s) URL, e.g. https://ozan.example.com")
        if api_key is not None and access_token is not None:
            raise ValueError("give api_key or access_token, not both")
        if timeout <= 0 or max_response_bytes <= 0:
            raise ValueError("timeout and max_response_bytes must be positive")
        root = base_url.rstrip("/")
        self.base_url = root[: -len("/api/v1")] if root.endswith("/api/v1") else root
        self.api_key = api_key
        self.access_token = access_token
        self.environment = environment
        self.timeout = timeout
        self.retry_policy = retry or RetryPolicy()
        self.accept_language = accept_language
        self.max_response_bytes = max_response_bytes
        self.on_retry = on_retry
        self._sleep = sleep
        self._opener = urllib.request.build_opener(_NoRedirect)

    def with_environment(self, environment: Optional[str]) -> "Client":
        """The same client acting in another environment."""
        other = Client.__new__(Client)
        other.__dict__.update(self.__dict__)
        other.environment = environment
        return other

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        encoding: str = "json",
        content_type: Optional[str] = None,
        retry: bool = True,
    ) -> Response:
        """Sends one request (retrying as the policy says unless ``retry`` is False); raises APIError on an error status."""
        url = self.base_url + path + _query_string(query)
        data, ctype = _encode_body(body, encoding, content_type)
        sent = self._headers(headers, ctype)
        attempt = 0
        while True:
            try:
                response = self._send(method, url, data, sent)
                if response.status < 300:
                    return response
                error: OzanError = error_from_response(response.status, response.body, response.headers)
                retryable = is_retryable_status(response.status)
            except APIConnectionError as exc:
                error, retryable = exc, True
            # 429 carries Retry-After; so may a 503 (an upstream provider's own back-off).
            retry_after = parse_retry_after(error.headers.get("retry-after")) if isinstance(error, APIError) else None
            delay = self.retry_policy.delay(attempt, retry_after, random.random) if retry and retryable else None
            if delay is None:
                raise error
            attempt += 1
            if self.on_retry:
                self.on_retry(RetryEvent(attempt, delay, method, path, error))
            self._sleep(delay)

    def _call(self, method: str, path: str, **options: Any) -> Any:
        return self.request(method, path, **options).body

    def _paginate(
        self, method: str, path: str, query: Optional[Dict[str, Any]], *, page_size: Optional[int], offset: int, body_pages: bool
    ) -> PageIterator[Any]:
        def fetch(at: int, limit: Optional[int]) -> Tuple[List[Any], Optional[int]]:
            q = dict(query or {}, offset=at, limit=limit)
            res = self.request(method, path, query=q)
            if body_pages:
                if not isinstance(res.body, dict) or not isinstance(res.body.get("items"), list):
                    raise OzanError("%s %s: expected a page body with items" % (method, path))
                return res.body["items"], int(res.body["total"]) if isinstance(res.body.get("total"), int) else None
            if not isinstance(res.body, list):
                raise OzanError("%s %s: expected a JSON array" % (method, path))
            total = res.headers.get("x-total-count", "")
            return res.body, int(total) if total.isdigit() else None

        return PageIterator(fetch, offset=offset, page_size=page_size)

    def _headers(self, extra: Optional[Mapping[str, str]], content_type: Optional[str]) -> Dict[str, str]:
        out = {"Accept": "application/json", "User-Agent": "ozan-python/%s" % __version__}
        if self.api_key is not None:
            out["X-API-Key"] = self.api_key
        if self.access_token is not None:
            out["Authorization"] = "Bearer %s" % self.access_token
        if self.environment is not None:
            out["X-Environment-Id"] = self.environment
        if self.accept_language is not None:
            out["Accept-Language"] = self.accept_language
        if content_type is not None:
            out["Content-Type"] = content_type
        out.update({k: v for k, v in (extra or {}).items() if v is not None})
        return out

    def _send(self, method: str, url: str, data: Optional[bytes], headers: Dict[str, str]) -> Response:
        req = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self._opener.open(req, timeout=self.timeout) as res:
                return self._read(res.status, res.headers, res)
        except urllib.error.HTTPError as res:
            with res:
                return self._read(res.code, res.headers, res)
        except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            raise APIConnectionError("%s %s: %s" % (method, url, reason)) from exc

    def _read(self, status: int, raw_headers: Any, stream: Any) -> Response:
        headers = {k.lower(): v for k, v in raw_headers.items()}
        raw = stream.read(self.max_response_bytes + 1)
        if len(raw) > self.max_response_bytes:
            raise OzanError("the response is larger than max_response_bytes (%d)" % self.max_response_bytes)
        if status >= 300:
            return Response(status, headers, raw)  # error_from_response reads the raw bytes
        if not raw:
            return Response(status, headers, None)
        if headers.get("content-type", "").split(";")[0].strip().endswith("json"):
            try:
                return Response(status, headers, json.loads(raw.decode("utf-8")))
            except (UnicodeDecodeError, ValueError) as exc:
                raise OzanError("the server sent invalid JSON (status %d)" % status) from exc
        return Response(status, headers, raw)


def _query_string(query: Optional[Mapping[str, Any]]) -> str:
    pairs = [(k, ("true" if v else "false") if isinstance(v, bool) else str(v)) for k, v in (query or {}).items() if v is not None]
    return "?" + urllib.parse.urlencode(pairs) if pairs else ""


def _encode_body(body: Any, encoding: str, content_type: Optional[str]) -> Tuple[Optional[bytes], Optional[str]]:
    if body is None:
        return None, None
    if encoding == "raw":
        if not isinstance(body, (bytes, bytearray, memoryview)):
            raise TypeError("this operation's body is bytes")
        return bytes(body), content_type or "application/octet-stream"
    if encoding == "multipart":
        return _multipart(body)
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), "application/json"


def _multipart(fields: Mapping[str, Any]) -> Tuple[bytes, str]:
    """multipart/form-data: str values as text parts; bytes or (filename, bytes[, type]) as file parts."""
    boundary = "ozan-%s" % uuid.uuid4().hex
    out = bytearray()
    for name, value in fields.items():
        if value is None:
            continue
        head = 'Content-Disposition: form-data; name="%s"' % _quote(name)
        if isinstance(value, str):
            part_headers, content = [head], value.encode("utf-8")
        else:
            filename, content, ctype = _file_part(name, value)
            part_headers = [head + '; filename="%s"' % _quote(filename), "Content-Type: %s" % ctype]
        out += b"--" + boundary.encode() + b"\r\n" + "\r\n".join(part_headers).encode("utf-8") + b"\r\n\r\n" + content + b"\r\n"
    out += b"--" + boundary.encode() + b"--\r\n"
    return bytes(out), "multipart/form-data; boundary=%s" % boundary


def _file_part(name: str, value: Any) -> Tuple[str, bytes, str]:
    if isinstance(value, (bytes, bytearray)):
        return name, bytes(value), "application/octet-stream"
    if isinstance(value, tuple) and len(value) in (2, 3) and isinstance(value[1], (bytes, bytearray)):
        return str(value[0]), bytes(value[1]), str(value[2]) if len(value) == 3 else "application/octet-stream"
    raise TypeError("field %r: give bytes, (filename, bytes) or (filename, bytes, content type)" % name)


def _quote(text: str) -> str:
    # As browsers do: a quote or line break in a name cannot end the header early.
    return text.replace("\\", "\\\\").replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")
