"""The Python client against a running Ozan server; prints one JSON report line for the tap test.

Input (stdin, JSON): {"mode": "contract" | "rate-limit", "url", "api_key", "graph", "config"}.
Each step records what the client returned or raised; the tap test
(test/sdk/python-client/contract.test.ts) checks the report against the server's own view.
"""

import json
import sys
import time
import uuid
from typing import Any, Dict, List

from ozan import Client, NotFoundError, RateLimitError, RetryEvent, RetryPolicy, UnprocessableEntityError
from ozan.errors import APIError


def error_view(e: APIError) -> Dict[str, Any]:
    return {
        "class": type(e).__name__,
        "status": e.status,
        "code": e.code,
        "message": e.message,
        "request_id": e.request_id,
        "header_request_id": e.headers.get("x-request-id"),
    }


def contract(setup: Dict[str, Any]) -> Dict[str, Any]:
    retries: List[RetryEvent] = []
    client = Client(setup["url"], api_key=setup["api_key"], on_retry=retries.append)
    out: Dict[str, Any] = {}

    agent = client.workflows_create({"name": "Python contract agent", "definition": setup["graph"], "config": setup["config"]})
    out["agent"] = {"id": agent["id"], "name": agent["name"]}
    out["published"] = client.workflows_publish(agent["id"])["version"]
    run = client.workflows_text_run(agent["id"], {"input": "Ada"})
    out["text_run"] = {"reply": run["reply"], "messages": run["messages"], "status": run["status"]}
    token = client.calls_web_token({"workflow_uuid": agent["id"]})
    out["web_token"] = {"token": token["token"], "ws_url": token["ws_url"], "expires_at": token["expires_at"]}

    created = [client.calls_create({"channel": "chat", "workflow_uuid": agent["id"]})["call_uuid"] for _ in range(5)]
    calls = client.iter_calls_list(channel="chat", page_size=2)
    pages = list(calls.pages())
    out["calls"] = {
        "created": created,
        "page_sizes": [len(p.items) for p in pages],
        "offsets": [p.offset for p in pages],
        "listed": [c["call_uuid"] for p in pages for c in p.items],
        "total": calls.total,
    }
    second = client.workflows_create({"name": "Second agent"})
    workflows = client.iter_workflows_list(page_size=1)
    out["workflows"] = {"listed": [w["id"] for w in workflows], "total": workflows.total, "second": second["id"]}

    # X-Environment-Id: an agent made in staging is in staging's list, not in the default one.
    staging = client.with_environment("staging")
    staged = staging.workflows_create({"name": "Staging agent"})
    out["environments"] = {
        "agent": agent["environment"]["slug"],
        "staged": staged["environment"]["slug"],
        "staging_list": [w["id"] for w in staging.iter_workflows_list()],
        "default_list": [w["id"] for w in client.iter_workflows_list()],
        "staged_id": staged["id"],
    }
    try:
        client.workflows_get(str(uuid.uuid4()))
        out["not_found"] = None
    except NotFoundError as e:
        out["not_found"] = error_view(e)
    try:
        client.workflows_create({"name": ""})
        out["invalid"] = None
    except UnprocessableEntityError as e:
        out["invalid"] = {**error_view(e), "detail": e.detail}
    out["retries"] = len(retries)
    return out


def rate_limit(setup: Dict[str, Any]) -> Dict[str, Any]:
    """The key's bucket holds 2 requests and refills one every 2 s (the tap test's config).

    Each step sends until the bucket is empty rather than counting requests, so a slow machine
    (a token refilled between two requests) changes how many are sent, not the outcome.
    """
    retries: List[RetryEvent] = []
    client = Client(setup["url"], api_key=setup["api_key"], on_retry=retries.append)
    no_retry = Client(setup["url"], api_key=setup["api_key"], retry=RetryPolicy(max_retries=0))
    out: Dict[str, Any] = {}
    started = time.monotonic()
    sent = 0
    while not retries and sent < 30:
        client.workflows_list()  # raises if the retry did not end in a success
        sent += 1
    out["retried_list"] = {
        "sent": sent,
        "elapsed": time.monotonic() - started,
        "retries": [{"attempt": r.attempt, "delay": r.delay, "code": getattr(r.error, "code", None)} for r in retries],
        "retry_after": [r.error.headers.get("retry-after") for r in retries if isinstance(r.error, APIError)],
    }
    # With retries off the 429 is raised, typed, with its Retry-After.
    out["no_retry"] = None
    for _ in range(30):
        try:
            no_retry.workflows_list()
        except RateLimitError as e:
            out["no_retry"] = {**error_view(e), "retry_after": e.retry_after}
            break
    # The bucket is empty: POST /calls is not retried unless asked, so its 429 comes straight back.
    before = len(retries)
    try:
        client.calls_create({"channel": "chat", "agent": {"definition": setup["graph"]}})
        out["calls_create"] = None
    except RateLimitError as e:
        out["calls_create"] = {**error_view(e), "retry_after": e.retry_after, "retried": len(retries) - before}
    started = time.monotonic()
    call = client.calls_create({"channel": "chat", "agent": {"definition": setup["graph"]}}, retry=True)
    out["calls_create_opt_in"] = {"status": call["status"], "elapsed": time.monotonic() - started, "retried": len(retries) - before}
    return out


if __name__ == "__main__":
    request = json.load(sys.stdin)
    report = contract(request) if request["mode"] == "contract" else rate_limit(request)
    print(json.dumps(report))
