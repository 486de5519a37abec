"""Webhook verification, re-exported from ``ozan_webhooks`` (a single standard-library file that can
also be copied into a project on its own; see sdk/python/README.md)."""

from ozan_webhooks import DEFAULT_TOLERANCE_S, WebhookVerificationError, sign_payload, verify_webhook

__all__ = ["DEFAULT_TOLERANCE_S", "WebhookVerificationError", "sign_payload", "verify_webhook"]
