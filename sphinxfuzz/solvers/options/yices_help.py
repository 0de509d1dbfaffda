"""The options a yices-smt2 release declares, read from its help texts.

`--help` lists the front end's options, `--mcsat-help` the MCSat solver's and `--ef-help`
the exists-forall solver's, each as `--name`, `--name=<ARG>` or `-x, --name` at the start of
a line, its description after. A release without one of the sub-helps prints the usage
instead (no option lines: nothing from it). What a line says:

- a flag (no argument) is a Boolean that is off unless given: its only other value, true,
  is the word `--name` (`probe.option_words`); yices has no `--no-name`. `--ematch` toggles
  e-matching, which its description says is on by default: given, it turns it off;
- "(can be a, b, or c)" lists an enum's choices (`--delegate`, `--ematch-cnstr-mode`), and
  "(default: x)" its default; a choice list without a default leaves every choice to try;
- any other argument (a number, a file name) has no small set of values.

Standing: yices marks none of its options, so its documents say it. The options of `--help`
are the man page's (yices-smt2(1)) and those of `--mcsat-help` the ones it sends users to:
regular. Those only `--ef-help` lists tune the exists-forall solver's e-matching and MBQI,
named in neither the man page nor the manual (doc/manual/manual.tex): expert.

A yices option set by `(set-option :yices-NAME value)` (its search parameters) has no
command-line form, and campaigns draw options on the command line: those are not listed.
"""

from __future__ import annotations

import re

from sphinxfuzz.solvers.options.declaration import LIST_TIMEOUT, Declared, Kind, ListingError
from sphinxfuzz.solvers.options.standing import Standing
from sphinxfuzz.solvers.reaper import run_bounded

# which help text lists which options, and their standing (see the module doc)
HELPS = (
    ("--help", Standing.REGULAR),
    ("--mcsat-help", Standing.REGULAR),
    ("--ef-help", Standing.EXPERT),
)
_LINE = re.compile(r"^\s+(?:-\w, )?--([a-z][a-z0-9-]*)(?:=<([^>]*)>)?(?:,? +(.*))?$")
_CHOICES = re.compile(r"\(can be ([^)]*)\)")
_DEFAULT = re.compile(r"\(default:? =? ?([^)\s]+)\)")


def parse_yices_help(text: str, standing: Standing = Standing.REGULAR) -> list[Declared]:
    """The options one help text lists, in its order."""
    found: list[Declared] = []
    for line in text.splitlines():
        matched = _LINE.match(line)
        if matched is None:
            continue
        name, argument, about = matched.group(1), matched.group(2), matched.group(3) or ""
        if argument is None:
            found.append(Declared(name, Kind.BOOL, "false", type_name="flag", standing=standing))
            continue
        choices = _CHOICES.search(about)
        default = _DEFAULT.search(about)
        if choices is not None:
            words = re.split(r",\s*(?:or\s+)?|\s+or\s+", choices.group(1))
            listed = tuple(w.strip() for w in words if w.strip())
            found.append(
                Declared(name, Kind.ENUM, default.group(1) if default else None, listed,
                         type_name=argument, standing=standing)
            )  # fmt: skip
            continue
        found.append(
            Declared(name, Kind.OTHER, default.group(1) if default else None,
                     type_name=argument, standing=standing)
        )  # fmt: skip
    return found


def _help_text(program: tuple[str, ...], flag: str) -> str:
    try:
        done = run_bounded([*program, flag], timeout=LIST_TIMEOUT, memory_mb=1024)
    except OSError as exc:
        raise ListingError(f"{' '.join(program)}: {exc}") from None
    if done.timed_out:
        raise ListingError(f"{' '.join(program)} {flag}: no answer in {LIST_TIMEOUT:.0f} s")
    return done.stdout.decode("utf-8", "replace")


def yices_declared(program: tuple[str, ...]) -> list[Declared]:
    """Every option a yices-smt2 release's help texts list (each name once, the first help
    naming it deciding its standing)."""
    found: dict[str, Declared] = {}
    for flag, standing in HELPS:
        for option in parse_yices_help(_help_text(program, flag), standing):
            found.setdefault(option.name, option)
    if not found:
        raise ListingError(f"{' '.join(program)}: its help text lists no options")
    return list(found.values())
