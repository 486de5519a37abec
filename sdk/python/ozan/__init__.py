"""Ozan's Python library: a typed API client and webhook verification, standard library only.

    from ozan import Client, NotFoundError
    client = Client("https://ozan.example.com", api_key="ozk_...", environment="prod")
    for call in client.iter_calls_list(channel="calls"):
        ...

The API's request and response shapes are TypedDicts in ``ozan.types``.
"""

from . import _generated as types
from .client import Client, Response, RetryEvent, __version__
from .errors import (
    APIConnectionError,
    APIError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    OzanError,
    PayloadTooLargeError,
    PaymentRequiredError,
    PermissionDeniedError,
    RateLimitError,
    ServerError,
    UnprocessableEntityError,
)
from .paging import Page, PageIterator
from .retry import RetryPolicy
from .webhooks import DEFAULT_TOLERANCE_S, WebhookVerificationError, sign_payload, verify_webhook

__all__ = [
    "APIConnectionError",
    "APIError",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "DEFAULT_TOLERANCE_S",
    "NotFoundError",
    "OzanError",
    "Page",
    "PageIterator",
    "PayloadTooLargeError",
    "PaymentRequiredError",
    "PermissionDeniedError",
    "RateLimitError",
    "Response",
    "RetryEvent",
    "RetryPolicy",
    "ServerError",
    "UnprocessableEntityError",
    "WebhookVerificationError",
    "__version__",
    "sign_payload",
    "types",
    "verify_webhook",
]
