"""A scripted HTTP server on 127.0.0.1 for the client's unit tests: it answers each request with
the next scripted response and records what it was sent. (The contract tests in
test/sdk/python-client run the same client against the real server.)"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List, Optional, Tuple

Scripted = Tuple[int, Dict[str, str], bytes]


def reply(status: int, body: Any = None, headers: Optional[Dict[str, str]] = None) -> Scripted:
    raw = b"" if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
    base = {"Content-Type": "application/json"} if body is not None and not isinstance(body, bytes) else {}
    return status, {**base, **(headers or {})}, raw


class StubServer:
    def __init__(self) -> None:
        self.script: List[Scripted] = []
        self.requests: List[Dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                stub.requests.append(
                    {"method": self.command, "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}, "body": self.rfile.read(length)}
                )
                status, headers, raw = stub.script.pop(0) if stub.script else reply(500, {"error": {"code": "internal_error", "message": "unscripted", "request_id": "r"}})
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
