"""The spec's retry rules: 429 and 5xx are retried with exponential backoff and jitter, honouring
``Retry-After``; any other 4xx fails again the same way and is never retried."""

import random
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Callable, Optional

__all__ = ["RetryPolicy", "is_retryable_status", "parse_retry_after"]


def is_retryable_status(status: int) -> bool:
    """429 (rate or concurrency limit) and every 5xx; never another 4xx."""
    return status == 429 or 500 <= status <= 599


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Seconds to wait from a ``Retry-After`` value: whole seconds, or an HTTP date. None if unreadable."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """How a retryable failure is retried.

    The n-th retry (n = 0, 1, ...) waits ``min(max_delay, initial_delay * 2**n)`` with equal
    jitter (half fixed, half random), or the server's ``Retry-After`` when that is longer. A
    ``Retry-After`` beyond ``max_retry_after`` is not waited out: the error is raised at once, so
    a caller is never blocked for minutes without knowing (``RateLimitError.retry_after`` says how
    long). ``RetryPolicy(max_retries=0)`` turns retrying off.
    """

    max_retries: int = 3
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if not 0 <= self.max_retries <= 20:
            raise ValueError("max_retries must be 0 to 20")
        if self.initial_delay < 0 or self.max_delay < self.initial_delay:
            raise ValueError("need 0 <= initial_delay <= max_delay")
        if self.max_retry_after < 0:
            raise ValueError("max_retry_after must be >= 0")

    def delay(self, retry: int, retry_after: Optional[float] = None, rand: Callable[[], float] = random.random) -> Optional[float]:
        """Seconds to wait before retry number ``retry`` (0-based), or None when no retry is due."""
        if retry >= self.max_retries:
            return None
        if retry_after is not None and retry_after > self.max_retry_after:
            return None
        ceiling = min(self.max_delay, self.initial_delay * (2.0**retry))
        backoff = ceiling / 2 + rand() * ceiling / 2
        return max(backoff, retry_after) if retry_after is not None else backoff
