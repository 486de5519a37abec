import json
import unittest
from typing import Any, Dict, List

from ozan import (
    APIConnectionError,
    APIError,
    Client,
    ConflictError,
    NotFoundError,
    OzanError,
    RateLimitError,
    RetryPolicy,
    ServerError,
    UnprocessableEntityError,
)

from .stub_server import StubServer, reply



def ERR(code: str, message: str = "m") -> Dict[str, Any]:
    return {"error": {"code": code, "message": message, "request_id": "req-1"}}


UUID = "5f0c6a52-6f1e-4c1a-9a55-0a3c1c8c1d01"


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer()
        self.addCleanup(self.stub.close)
        self.slept: List[float] = []
        self.events: List[Any] = []
        self.client = self.make()

    def make(self, **kwargs: Any) -> Client:
        options = dict(api_key="ozk_test", environment="staging", sleep=self.slept.append, on_retry=self.events.append, timeout=5)
        options.update(kwargs)
        return Client(self.stub.url, **options)  # type: ignore[arg-type]

    def test_sends_the_key_the_environment_and_a_json_body(self) -> None:
        self.stub.script = [reply(200, {"reply": "hi"})]
        out = self.client.workflows_text_run(UUID, {"input": "çay? 👋"})
        self.assertEqual(out, {"reply": "hi"})
        req = self.stub.requests[0]
        self.assertEqual((req["method"], req["path"]), ("POST", "/api/v1/workflows/%s/runs/text" % UUID))
        self.assertEqual(req["headers"]["x-api-key"], "ozk_test")
        self.assertEqual(req["headers"]["x-environment-id"], "staging")
        self.assertEqual(req["headers"]["content-type"], "application/json")
        self.assertEqual(json.loads(req["body"]), {"input": "çay? 👋"})

    def test_path_segments_are_encoded_and_query_values_dropped_or_lowered(self) -> None:
        self.stub.script = [reply(200, {"items": [], "total": 0, "limit": 25, "offset": 0}), reply(204)]
        self.client.calls_list(channel="calls", q="a&b=c", limit=None)
        self.client.credentials_delete("../x/y")
        self.assertEqual(self.stub.requests[0]["path"], "/api/v1/calls?channel=calls&q=a%26b%3Dc")
        self.assertEqual(self.stub.requests[1]["path"], "/api/v1/credentials/..%2Fx%2Fy")

    def test_bearer_token_and_environment_switch(self) -> None:
        self.stub.script = [reply(200, {}), reply(200, {})]
        c = Client(self.stub.url + "/api/v1/", access_token="jwt")
        c.auth_me()
        c.with_environment("prod").auth_me()
        self.assertEqual(self.stub.requests[0]["path"], "/api/v1/auth/me")
        self.assertEqual(self.stub.requests[0]["headers"]["authorization"], "Bearer jwt")
        self.assertNotIn("x-environment-id", self.stub.requests[0]["headers"])
        self.assertEqual(self.stub.requests[1]["headers"]["x-environment-id"], "prod")

    def test_bad_setup_is_refused(self) -> None:
        for bad in ("ftp://x", "localhost:8000", ""):
            with self.assertRaises(ValueError):
                Client(bad)
        with self.assertRaises(ValueError):
            Client("http://x", api_key="k", access_token="t")

    def test_5xx_is_retried_with_backoff(self) -> None:
        self.stub.script = [reply(503, ERR("service_unavailable")), reply(502, ERR("upstream_error")), reply(200, [])]
        self.assertEqual(self.client.workflows_list(), [])
        self.assertEqual(len(self.stub.requests), 3)
        self.assertEqual([e.attempt for e in self.events], [1, 2])
        self.assertTrue(0.25 <= self.slept[0] <= 0.5 and 0.5 <= self.slept[1] <= 1.0, self.slept)

    def test_429_waits_for_retry_after(self) -> None:
        self.stub.script = [reply(429, ERR("rate_limited"), {"Retry-After": "3"}), reply(200, [])]
        self.client.workflows_list()
        self.assertEqual(self.slept, [3.0])
        self.assertIsInstance(self.events[0].error, RateLimitError)

    def test_a_retry_after_beyond_the_policy_is_raised_not_waited(self) -> None:
        self.stub.script = [reply(429, ERR("rate_limited"), {"Retry-After": "120"})]
        with self.assertRaises(RateLimitError) as caught:
            self.client.workflows_list()
        self.assertEqual(caught.exception.retry_after, 120.0)
        self.assertEqual((self.slept, len(self.stub.requests)), ([], 1))

    def test_retries_run_out(self) -> None:
        self.stub.script = [reply(500, ERR("internal_error"))] * 3
        with self.assertRaises(ServerError) as caught:
            self.make(retry=RetryPolicy(max_retries=2)).workflows_list()
        self.assertEqual((caught.exception.status, caught.exception.code, len(self.stub.requests)), (500, "internal_error", 3))

    def test_other_4xx_are_never_retried_and_are_typed(self) -> None:
        cases = [
            (reply(404, ERR("not_found", "The resource was not found.")), NotFoundError, "not_found"),
            (reply(409, ERR("already_in_environment")), ConflictError, "already_in_environment"),
            (reply(404, {"detail": "Not Found"}, {"X-Request-ID": "hdr-id"}), NotFoundError, "not_found"),
            (reply(400, b"<html>bad</html>", {"Content-Type": "text/html"}), APIError, "http_400"),
        ]
        for scripted, cls, code in cases:
            self.stub.requests.clear()
            self.stub.script = [scripted]
            with self.assertRaises(cls) as caught:
                self.client.workflows_get(UUID)
            self.assertEqual((caught.exception.code, len(self.stub.requests)), (code, 1))
            self.assertIn(caught.exception.request_id, ("req-1", "hdr-id", None))
        self.assertEqual(self.slept, [])

    def test_422_carries_the_detail(self) -> None:
        detail = [{"type": "missing", "loc": ["body", "name"], "msg": "Field required"}]
        self.stub.script = [reply(422, {"detail": detail}, {"X-Request-ID": "rid-422"})]
        with self.assertRaises(UnprocessableEntityError) as caught:
            self.client.workflows_create({})  # type: ignore[typeddict-item]
        e = caught.exception
        self.assertEqual((e.status, e.code, e.message, e.request_id, e.detail), (422, "validation_error", "name: Field required", "rid-422", detail))

    def test_post_calls_is_retried_only_when_asked(self) -> None:
        self.stub.script = [reply(503, ERR("service_unavailable"))]
        with self.assertRaises(ServerError):
            self.client.calls_create({"channel": "chat"})
        self.assertEqual(len(self.stub.requests), 1)
        self.stub.script = [reply(503, ERR("service_unavailable")), reply(201, {"call_uuid": UUID})]
        self.assertEqual(self.client.calls_create({"channel": "chat"}, retry=True), {"call_uuid": UUID})
        self.assertEqual(len(self.stub.requests), 3)

    def test_connection_failures_are_retried_then_raised(self) -> None:
        self.stub.close()
        with self.assertRaises(APIConnectionError):
            self.client.workflows_list()
        self.assertEqual(len(self.slept), 3)

    def test_redirects_are_not_followed(self) -> None:
        self.stub.script = [reply(302, None, {"Location": "http://evil.invalid/"})]
        with self.assertRaises(APIError) as caught:
            self.client.auth_me()
        self.assertEqual((caught.exception.status, caught.exception.code), (302, "http_302"))

    def test_an_oversized_response_is_refused(self) -> None:
        self.stub.script = [reply(200, {"x": "y" * 5000})]
        with self.assertRaises(OzanError):
            self.make(max_response_bytes=1000).auth_me()

    def test_multipart_upload(self) -> None:
        self.stub.script = [reply(201, {"id": UUID})]
        self.client.knowledge_base_upload_document({"file": ('notes "1".md', b"# hi\r\n", "text/markdown"), "title": "Notlar"})
        req = self.stub.requests[0]
        self.assertTrue(req["headers"]["content-type"].startswith("multipart/form-data; boundary="))
        self.assertIn(b'name="file"; filename="notes %221%22.md"\r\nContent-Type: text/markdown\r\n\r\n# hi\r\n\r\n', req["body"])
        self.assertIn('name="title"\r\n\r\nNotlar\r\n'.encode(), req["body"])

    def test_raw_audio_body(self) -> None:
        self.stub.script = [reply(200, {"reply": "ok"})]
        self.client.sessions_voice(UUID, UUID, b"RIFF....", content_type="audio/wav")
        self.assertEqual((self.stub.requests[0]["headers"]["content-type"], self.stub.requests[0]["body"]), ("audio/wav", b"RIFF...."))


if __name__ == "__main__":
    unittest.main()
