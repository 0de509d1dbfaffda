"""A child process that behaves like the cvc5 binary, built on the cvc5 Python wheel.

    python -m sphinxfuzz.solvers.cvc5_shim [options] [FILE]

It reads an SMT-LIB script (FILE, or standard input), runs each command and prints what the
binary prints: answers, models, `(error "...")`. Like the binary reading a file it stops at
the first error with exit code 1. Options follow the binary: `--name=value`, `--name`
(true), `--no-name` (false), `-m` (produce-models), `-i` (incremental), `-q` (quiet),
`--lang smt2`, `--version`. An unexpected failure inside cvc5 surfaces as a traceback and
exit code 70 (a crash), never as an answer.

`--sphinxfuzz-serve` keeps the process for many scripts (a persistent solver): each script
arrives as a line with its length in bytes, a token and (optionally) a JSON list of option
words, followed by the bytes, runs in a fresh `cvc5.Solver` exactly as a file would (the
command line's options and then the script's own words set on each: a campaign's options
change per seed position, and one process serves them all), and
is followed by the line `;; sphinxfuzz-end TOKEN N` on standard output and standard error
(N: the exit code the file run would have had; the token, new for every script, keeps a
script that echoes such a line from ending its own answer early).
That saves the ~0.1 s of starting Python and importing cvc5 per script.

Kept lean on purpose: it starts once per solver call, so it imports only cvc5.
"""

from __future__ import annotations

import re
import sys

_SHORT = {"-m": ("produce-models", "true"), "-i": ("incremental", "true"), "-q": ("quiet", "true")}
_IGNORED = {
    "quiet",
    "lang",
    "input-language",
    "output-lang",
    "output-language",
    "stats-every-query",
}
_CHECK_SAT = re.compile(r"\(\s*(check-sat|push|pop|check-sat-assuming)\b")


def parse_options(argv: list[str]) -> tuple[list[tuple[str, str]], str | None, bool]:
    """(options, file, wants version)."""
    options: list[tuple[str, str]] = []
    path: str | None = None
    version = False
    args = iter(argv)
    for arg in args:
        if arg in ("--version", "-V"):
            version = True
        elif arg in _SHORT:
            options.append(_SHORT[arg])
        elif arg in ("--lang", "-L", "--output-lang"):
            next(args, None)
        elif arg.startswith("--"):
            body = arg[2:]
            if "=" in body:
                name, value = body.split("=", 1)
            elif body.startswith("no-"):
                name, value = body[3:], "false"
            else:
                name, value = body, "true"
            options.append((name, value))
        elif arg.startswith("-") and arg != "-":
            raise SystemExit(f'(error "unknown option {arg}")')
        else:
            path = None if arg == "-" else arg
    return options, path, version


SERVE = "--sphinxfuzz-serve"
END = ";; sphinxfuzz-end"


def main(argv: list[str]) -> int:
    serve = SERVE in argv
    options, path, asked_version = parse_options([a for a in argv if a != SERVE])
    import cvc5

    if asked_version:
        version = getattr(cvc5, "__version__", None)
        if version is None:  # wheels before 1.2 do not say
            from importlib.metadata import version as installed_version

            version = installed_version("cvc5")
        print(f"This is cvc5 version {version} [sphinxfuzz shim over the cvc5 Python wheel]")
        return 0
    if serve:
        return _serve(options)
    text = sys.stdin.read() if path is None else open(path, encoding="utf-8").read()
    return run_script(text, options, path or "<stdin>")


def _serve(options: list[tuple[str, str]]) -> int:
    import json

    stdin = sys.stdin.buffer
    while True:
        header = stdin.readline()
        if not header:
            return 0
        size, _, rest = header.decode("utf-8", "replace").strip().partition(" ")
        token, _, words = rest.partition(" ")
        text = stdin.read(int(size)).decode("utf-8", "replace")
        try:
            extra = parse_options([str(w) for w in json.loads(words)])[0] if words else []
            status = run_script(text, options + extra, "<stdin>")
        except SystemExit as refused:  # an unknown short option: refused as the binary would
            print(refused.code, flush=True)
            status = 1
        end = f"{END} {token} {status}" if token else f"{END} {status}"
        for stream in (sys.stdout, sys.stderr):
            stream.write(f"\n{end}\n")
            stream.flush()


def run_script(text: str, options: list[tuple[str, str]], filename: str) -> int:
    """Run one script in a fresh solver, printing what the binary prints; the exit code."""
    import cvc5

    if hasattr(cvc5, "TermManager"):
        owner = cvc5.TermManager()
        solver = cvc5.Solver(owner)
    else:  # cvc5 1.1: the solver owns its terms (releases installed side by side)
        solver = owner = cvc5.Solver()
    names = {name for name, _ in options}
    # The binary on a file with a single query runs non-incrementally (some theories, such
    # as separation logic, refuse incremental mode); with several queries it must be.
    if "incremental" not in names:
        solver.setOption("incremental", "true" if len(_CHECK_SAT.findall(text)) > 1 else "false")
    for name, value in options:
        if name in _IGNORED:
            continue
        try:
            solver.setOption(name, value)
        except Exception as exc:  # noqa: BLE001 - cvc5 reports bad options as exceptions
            print(f'(error "{_escape(str(exc))}")', flush=True)
            return 1
    symbols = cvc5.SymbolManager(owner)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, filename)
    out = sys.stdout
    while True:
        try:
            command = parser.nextCommand()
        except RuntimeError as exc:  # parse errors come as RuntimeError from the parser
            out.write(f'(error "Parse Error: {_escape(str(exc))}")\n')
            out.flush()
            return 1
        if command.isNull():
            return 0
        try:
            printed = command.invoke(solver, symbols)
        except (RuntimeError, cvc5.CVC5ApiException) as exc:
            out.write(f'(error "{_escape(str(exc))}")\n')
            out.flush()
            return 1
        if printed:
            out.write(printed)
            out.flush()
            if (
                printed.startswith("(error")
                and "cannot get model" not in printed
                and "cannot get value" not in printed
            ):
                return 1
        if command.getCommandName() == "exit":
            return 0


def _escape(message: str) -> str:
    return message.replace('"', '""').strip()


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException:  # an unexpected failure is a crash, shown as the binary's would be
        import traceback

        traceback.print_exc()
        sys.exit(70)
