"""A child process that behaves like the bitwuzla binary, built on the bitwuzla Python wheel
(which ships bindings with an SMT-LIB parser, `bitwuzla.Parser`, and no binary).

    python bitwuzla_shim.py [options] [FILE]

It reads an SMT-LIB script (FILE, or standard input) and answers each command as the binary
does: answers and models on standard output, an error as `[error] MESSAGE` on standard error
and exit code 1 (the binary's src/main/main.cpp). Options follow the binary: `--name=value`,
`--name`, `--no-name` and the short forms its options API takes (`-m`), `--lang smt2`,
`--version`. An unexpected failure inside the bindings surfaces as a traceback and exit code
70 (a crash), never as an answer; an abort inside bitwuzla kills the process with its signal.

`--sphinxfuzz-serve` keeps the process for many scripts, with the protocol of
`cvc5_shim.py`: each script arrives as a line with its length in bytes, a token and a JSON
list of option words, followed by the bytes; it runs in a fresh parser (and so a fresh
solver) with the command line's options and then those words, and is followed by
`;; sphinxfuzz-end TOKEN N` on standard output and standard error (N: the exit code the
file run would have had).

Kept lean on purpose, like the cvc5 shim: it imports only bitwuzla (and ctypes, to flush
what the C++ parser printed before its own lines).
"""

from __future__ import annotations

import sys

SERVE = "--sphinxfuzz-serve"
END = ";; sphinxfuzz-end"
_LANGUAGE = ("--lang", "-l", "--language")


class Refused(Exception):
    """A command line the binary refuses: `[error] MESSAGE`, exit 1."""


def parse_options(argv: list[str]) -> tuple[list[str], str | None, bool]:
    """(option words for the options API, file, wants version)."""
    words: list[str] = []
    path: str | None = None
    version = False
    args = iter(argv)
    for arg in args:
        if arg in ("--version", "-V"):
            version = True
        elif arg in _LANGUAGE:
            language = next(args, "smt2")
            if language != "smt2":
                raise Refused(f"sphinxfuzz's bitwuzla shim reads smt2 only, not {language!r}")
        elif arg.startswith(tuple(f"{lang}=" for lang in _LANGUAGE)):
            continue
        elif arg.startswith("-") and arg != "-":
            words.append(arg)
        else:
            path = None if arg == "-" else arg
    return words, path, version


def main(argv: list[str]) -> int:
    serve = SERVE in argv
    try:
        words, path, asked_version = parse_options([a for a in argv if a != SERVE])
    except Refused as refused:
        print(f"[error] {refused}", file=sys.stderr)
        return 1
    import bitwuzla

    if asked_version:
        print(f"bitwuzla version {bitwuzla.version()} [sphinxfuzz shim over the bitwuzla wheel]")
        return 0
    if serve:
        return _serve(words)
    if path is None:
        return run_script(sys.stdin.read(), words)
    return run_script(None, words, path)


def _serve(words: list[str]) -> int:
    import json

    stdin = sys.stdin.buffer
    while True:
        header = stdin.readline()
        if not header:
            return 0
        size, _, rest = header.decode("utf-8", "replace").strip().partition(" ")
        token, _, extra = rest.partition(" ")
        text = stdin.read(int(size)).decode("utf-8", "replace")
        try:
            more = parse_options([str(w) for w in json.loads(extra)])[0] if extra else []
            status = run_script(text, words + more)
        except Refused as refused:
            print(f"[error] {refused}", file=sys.stderr, flush=True)
            status = 1
        end = f"{END} {token} {status}" if token else f"{END} {status}"
        for stream in (sys.stdout, sys.stderr):
            stream.write(f"\n{end}\n")
            stream.flush()


def _flush_native() -> None:
    """What the parser printed through C++'s streams, out before Python's own lines."""
    import ctypes

    ctypes.CDLL(None).fflush(None)


def run_script(text: str | None, words: list[str], path: str | None = None) -> int:
    """Run one script (`text`, else the file at `path`: its name then shows in error
    positions, as the binary gives them) in a fresh parser, printing what the binary
    prints; the exit code."""
    import bitwuzla

    options = bitwuzla.Options()
    try:
        if words:
            options.set_args(*words)
        if hasattr(bitwuzla, "TermManager"):
            parser = bitwuzla.Parser(bitwuzla.TermManager(), options)
        else:  # releases before the term manager
            parser = bitwuzla.Parser(options)
        parser.parse(text if text is not None else str(path), False, text is None)
    except bitwuzla.BitwuzlaException as exc:
        _flush_native()
        sys.stdout.flush()
        print(f"[error] {_message(str(exc))}", file=sys.stderr, flush=True)
        return 1
    _flush_native()
    return 0


def _message(text: str) -> str:
    """The binary drops the API's "invalid call to '...', " prefix (src/main/main.cpp)."""
    if text.startswith("invalid call to '") and "', " in text:
        return text.split("', ", 1)[1]
    return text


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException:  # an unexpected failure is a crash, shown as the binary's would be
        import traceback

        traceback.print_exc()
        sys.exit(70)
