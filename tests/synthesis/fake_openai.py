"""A local OpenAI-compatible chat-completions server for tests: it answers from a list
(recorded transcript answers) or with given HTTP status codes, and keeps every request.
Given the recorded prompts too, it is a strict replay: a request whose messages differ from
the recording is answered with 400 and noted in `mismatches`."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOpenAI:
    def __init__(
        self,
        answers: list[str | dict[str, str]],
        statuses: list[int] | None = None,
        expected: list[list[dict[str, str]]] | None = None,
    ) -> None:
        self.answers = list(answers)
        self.expected = list(expected) if expected is not None else None
        self.mismatches: list[int] = []
        self.statuses = list(statuses or [])  # served first, one per request
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
                if owner.statuses:
                    status = owner.statuses.pop(0)
                    payload = {
                        "error": {
                            "message": f"test status {status}",
                            "type": "test",
                            "code": status,
                        }
                    }
                    self._send(status, payload)
                    return
                number = len(owner.requests)
                if owner.expected is not None and (
                    number > len(owner.expected)
                    or body.get("messages") != owner.expected[number - 1]
                ):
                    owner.mismatches.append(number)
                    message = f"request {number} does not match the recorded prompt"
                    self._send(400, {"error": {"message": message, "type": "test", "code": 400}})
                    return
                answer = owner.answers.pop(0) if owner.answers else ""
                # an answer may be {"content": ..., "finish_reason": "length"} (cut off)
                finish = answer.get("finish_reason", "stop") if isinstance(answer, dict) else "stop"
                content = answer.get("content", "") if isinstance(answer, dict) else answer
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(owner.requests)}",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "test"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": finish,
                            }
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
