"""The model behind the pipeline: any OpenAI-compatible endpoint, or two offline backends.

- `openai`: the `openai` SDK against `OPENAI_BASE_URL` (OpenAI itself, vLLM, Ollama,
  llama.cpp server...), key from `OPENAI_API_KEY`, retried with backoff on rate limits,
  time-outs, connection errors and 5xx; a rejected key stops at once.
- `replay:PATH`: answers from a recorded transcript, in order, checking every prompt.
- `exchange:DIR`: writes each prompt to a file and waits for the answer file, so any model
  or person outside this machine can answer.

Every exchange is appended to the transcript the caller passes in.
"""

from __future__ import annotations

import difflib
import json
import os
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import jsonschema

from sphinxfuzz.errors import ExternalError
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.synthesis.transcript import Transcript, read_transcript

Messages = list[dict[str, str]]


class LLMError(ExternalError):
    """The model could not be asked (bad key, endpoint down after retries, transcript
    mismatch, exchange timed out)."""


class UnusableAnswer(ExternalError):
    """The model answered, but the answer cannot be used as it stands (cut off at the token
    limit). The exchange is in the transcript; the pipeline asks again, then gives up on
    that theory alone."""

    def __init__(self, message: str, answer: str = "") -> None:
        super().__init__(message)
        self.answer = answer


TRUNCATED = "the answer was cut off at the token limit (finish_reason: length)"


class LLM(Protocol):
    backend: str
    model: str

    def complete(self, step: str, messages: Messages, *, theory: str = "") -> str:
        """The model's answer to `messages`; `step` names the prompt template and `theory`
        the document it is about (both only label the exchange)."""
        ...


@dataclass
class Settings:
    model: str = "gpt-4o"
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.2
    timeout: float = 300.0
    # Larger answers are refused (a 5 MB answer needed 2 GB to check); a generator module
    # is a few kilobytes.
    max_answer_bytes: int = 1_000_000


def config_paths() -> list[Path]:
    return [Path.cwd() / "sphinxfuzz.toml", Path.home() / ".config" / "sphinxfuzz" / "config.toml"]


def load_settings(model: str | None = None, paths: list[Path] | None = None) -> Settings:
    """Settings from the first config file that has an `[llm]` table, then the environment
    (`OPENAI_BASE_URL`), then the `--model` option, each overriding the one before."""
    settings = Settings()
    for path in paths if paths is not None else config_paths():
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            _check_config(path, data)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise LLMError(f"{path}: not valid TOML ({exc})") from None
        except RecursionError:  # both readers recurse per nesting level
            raise LLMError(
                f"{path}: nested too deep to read (arrays or tables in arrays)"
            ) from None
        table = data.get("llm", {})
        for key in (
            "model",
            "base_url",
            "api_key_env",
            "temperature",
            "timeout",
            "max_answer_bytes",
        ):
            if key in table:
                setattr(settings, key, table[key])
        break
    if os.environ.get("OPENAI_BASE_URL"):
        settings.base_url = os.environ["OPENAI_BASE_URL"]
    if model:
        settings.model = model
    return settings


def _check_config(path: Path, data: dict[str, Any]) -> None:
    """One line naming the file, the key and what is wrong (schemas/config.schema.json)."""
    schema = json.loads(
        resources.files("sphinxfuzz.schemas").joinpath("config.schema.json").read_text()
    )
    error = jsonschema.exceptions.best_match(
        jsonschema.Draft202012Validator(schema).iter_errors(data)
    )
    if error is not None:
        where = ".".join(str(part) for part in error.absolute_path) or "(top level)"
        raise LLMError(f"{path}: {where}: {error.message}")


def check_answer_size(answer: str | bytes, limit: int, where: str) -> None:
    size = len(answer.encode("utf-8") if isinstance(answer, str) else answer)
    if size > limit:
        raise LLMError(
            f"{where}: the answer has {size:,} bytes, over the {limit:,}-byte limit "
            "(max_answer_bytes in the [llm] table)"
        )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class _Recorder:
    backend = "?"
    model = "?"

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript

    def record(
        self, theory: str, step: str, messages: Messages, answer: str, started: str, **extra: Any
    ) -> None:
        self.transcript.append(
            {
                "backend": self.backend,
                "model": self.model,
                "theory": theory,
                "step": step,
                "messages": messages,
                "answer": answer,
                "started": started,
                "finished": _now(),
                **extra,
            }
        )


class OpenAIBackend(_Recorder):
    backend = "openai"

    def __init__(
        self,
        settings: Settings,
        transcript: Transcript,
        *,
        attempts: int = 6,
        backoff: float = 2.0,
    ) -> None:
        super().__init__(transcript)
        from openai import OpenAI

        key = os.environ.get(settings.api_key_env)
        if not key:
            if settings.base_url is None:
                raise LLMError(
                    f"no API key: set {settings.api_key_env} (or point OPENAI_BASE_URL at a local "
                    "server such as vLLM or Ollama, which accept any key)"
                )
            key = "EMPTY"  # local servers ignore the key, the SDK requires one
        self.model = settings.model
        self.settings = settings
        self.client = OpenAI(
            api_key=key, base_url=settings.base_url, max_retries=0, timeout=settings.timeout
        )
        self.attempts = attempts
        self.backoff = backoff

    def complete(self, step: str, messages: Messages, *, theory: str = "") -> str:
        import openai
        from tenacity import (
            retry,
            retry_if_exception_type,
            stop_after_attempt,
            wait_exponential,
        )

        transient = (
            openai.RateLimitError,
            openai.APITimeoutError,
            openai.APIConnectionError,
            openai.InternalServerError,
        )

        @retry(
            retry=retry_if_exception_type(transient),
            wait=wait_exponential(multiplier=self.backoff, max=60 * self.backoff),
            stop=stop_after_attempt(self.attempts),
            reraise=True,
        )
        def ask() -> Any:
            return self.client.chat.completions.create(
                model=self.model,
                messages=messages,  # type: ignore[arg-type]
                temperature=self.settings.temperature,
            )

        started = _now()
        try:
            response = ask()
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise LLMError(
                f"the endpoint rejected the API key: set {self.settings.api_key_env} to a valid "
                f"key for {self.settings.base_url or 'OpenAI'} (HTTP {exc.status_code})"
            ) from None
        except transient as exc:
            raise LLMError(f"the endpoint failed {self.attempts} times; last: {exc}") from None
        except openai.APIStatusError as exc:
            raise LLMError(
                f"the endpoint refused the request ({exc.status_code}): {exc.message}"
            ) from None
        choice = response.choices[0]
        answer = choice.message.content or ""
        check_answer_size(answer, self.settings.max_answer_bytes, f"{theory} {step}")
        usage = response.usage.model_dump() if getattr(response, "usage", None) else None
        finish = choice.finish_reason
        self.record(theory, step, messages, answer, started, usage=usage, finish_reason=finish)
        if finish == "length":
            raise UnusableAnswer(TRUNCATED, answer)
        return answer


class ReplayBackend(_Recorder):
    """Answers from a recorded transcript; a prompt that differs from the recording is an
    error (the pipeline or a template changed since)."""

    backend = "replay"

    def __init__(
        self,
        path: Path,
        transcript: Transcript,
        *,
        max_answer_bytes: int = Settings.max_answer_bytes,
    ) -> None:
        super().__init__(transcript)
        self.max_answer_bytes = max_answer_bytes
        if not path.is_file():
            raise LLMError(f"{path}: no such transcript")
        try:
            self.records = read_transcript(path)
        except ValueError as exc:
            raise LLMError(str(exc)) from None
        self.path = path
        self.position = 0
        self.model = self.records[0].get("model", "?") if self.records else "?"

    def complete(self, step: str, messages: Messages, *, theory: str = "") -> str:
        number = self.position + 1
        if self.position >= len(self.records):
            raise LLMError(
                f"{self.path}: transcript ended after {len(self.records)} exchanges, "
                f"but the pipeline asks for exchange {number} ({theory} {step})"
            )
        record = self.records[self.position]
        self.position += 1
        if record.get("step") != step or record.get("messages") != messages:
            raise LLMError(
                f"{self.path}: exchange {number} does not match: recorded "
                f"{record.get('theory')} {record.get('step')}, asked {theory} {step}\n"
                + _diff(record.get("messages", []), messages)
            )
        answer = str(record["answer"])
        check_answer_size(answer, self.max_answer_bytes, f"{self.path}: exchange {number}")
        finish = record.get("finish_reason")
        self.record(
            theory, step, messages, answer, _now(), replayed_from=str(self.path),
            **({"finish_reason": finish} if finish else {}),
        )  # fmt: skip
        if finish == "length":
            raise UnusableAnswer(TRUNCATED, answer)
        return answer


def _diff(recorded: Messages, asked: Messages) -> str:
    def text(messages: Messages) -> list[str]:
        return "\n\n".join(f"[{m.get('role')}]\n{m.get('content')}" for m in messages).splitlines()

    lines = list(
        difflib.unified_diff(text(recorded), text(asked), "recorded", "asked", lineterm="", n=1)
    )
    shown = lines[:40]
    if len(lines) > 40:
        shown.append(f"... ({len(lines) - 40} more diff lines)")
    return "\n".join(shown)


class ExchangeBackend(_Recorder):
    """File exchange: `DIR/NNNN-<theory>-<step>.prompt.md` out, `...answer.md` back."""

    backend = "exchange"

    def __init__(
        self,
        directory: Path,
        transcript: Transcript,
        *,
        model: str = "exchange",
        timeout: float | None = None,
        poll: float = 0.5,
        notify: Callable[[str], None] = print,
        max_answer_bytes: int = Settings.max_answer_bytes,
    ) -> None:
        super().__init__(transcript)
        self.max_answer_bytes = max_answer_bytes
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.model = model
        self.timeout = timeout
        self.poll = poll
        self.notify = notify
        existing = sorted(directory.glob("*.prompt.md"))
        self.counter = len(existing)

    def complete(self, step: str, messages: Messages, *, theory: str = "") -> str:
        self.counter += 1
        stem = f"{self.counter:04d}-{theory or 'any'}-{step}"
        prompt = self.directory / f"{stem}.prompt.md"
        answer_path = self.directory / f"{stem}.answer.md"
        body = "\n\n".join(f"<!-- {m['role']} -->\n{m['content']}" for m in messages)
        write_atomic(prompt, body)  # whoever watches for prompts never reads half of one
        started = _now()
        self.notify(f"waiting for {answer_path} (the prompt is {prompt})")
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while (answer := self._answer(answer_path)) is None:
            if deadline is not None and time.monotonic() > deadline:
                raise LLMError(f"no answer in {answer_path} after {self.timeout:g} s")
            time.sleep(self.poll)
        self.record(theory, step, messages, answer, started, prompt_file=prompt.name)
        return answer

    def _answer(self, path: Path) -> str | None:
        """The answer in `path`, or None while there is none. An answer that is too large or
        not UTF-8 is skipped with a message (renamed to `.rejected.md`): write it again."""
        if not path.is_file():
            return None
        time.sleep(self.poll)  # let a writer that is not atomic finish
        problem = None
        try:
            size = path.stat().st_size
            if size > self.max_answer_bytes:
                problem = f"{size:,} bytes, over the {self.max_answer_bytes:,}-byte limit (max_answer_bytes)"
            else:
                return path.read_bytes().decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = f"not UTF-8 text (byte {exc.start}: {exc.reason})"
        except OSError as exc:
            problem = f"unreadable ({exc.strerror})"
        rejected = path.with_suffix(".rejected.md")
        path.replace(rejected)
        self.notify(
            f"skipped {path}: {problem}; moved to {rejected.name}, waiting for a new answer"
        )
        return None


def make_llm(
    spec: str,
    transcript: Transcript,
    *,
    model: str | None = None,
    exchange_timeout: float | None = None,
    notify: Callable[[str], None] = print,
) -> LLM:
    """`openai`, `replay:PATH` or `exchange:DIR`. The config file is checked for every
    backend, so a wrong value stops the build before it starts."""
    settings = load_settings(model)
    if spec == "openai":
        return OpenAIBackend(settings, transcript)
    if spec.startswith("replay:"):
        return ReplayBackend(
            Path(spec[len("replay:") :]), transcript, max_answer_bytes=settings.max_answer_bytes
        )
    if spec.startswith("exchange:"):
        if not model:
            # the manifest and the generator's header say which model wrote the code
            raise LLMError(
                "the exchange backend needs the name of the model that answers the prompts, "
                "e.g. qwen2.5-coder:32b (a person answering: person:NAME)",
                setting="model",
            )
        return ExchangeBackend(
            Path(spec[len("exchange:") :]),
            transcript,
            model=model,
            timeout=exchange_timeout,
            notify=notify,
            max_answer_bytes=settings.max_answer_bytes,
        )
    raise LLMError(
        f"unknown LLM backend {spec!r}: use openai, replay:PATH or exchange:DIR", setting="llm"
    )
