"""The test batches' own time-out per script: a script the solver hangs on is cut after its
share of time and the batch goes on after it, instead of waiting for the whole batch's limit."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from sphinxfuzz.solvers import parse_specs

from .batching import run_marked

# a stand-in solver: echoes the markers, answers sat, hangs on a script holding `hang_here`
# (the way a solver stuck in one query keeps the rest of a batch waiting)
HANGS = """import re, sys, time
parts = re.split(r'\\(echo "(@@ \\d+)"\\)\\n', open(sys.argv[1]).read())
for marker, script in zip(parts[1::2], parts[2::2]):
    print(marker, flush=True)
    if "hang_here" in script:
        time.sleep(600)
    print("sat", flush=True)
"""


def test_a_hanging_script_is_cut_and_the_batch_goes_on(tmp_path: Path) -> None:
    solver = tmp_path / "hangs.py"
    solver.write_text(f"#!{sys.executable}\n{HANGS}")
    solver.chmod(0o755)
    (spec,) = parse_specs(str(solver))
    texts = ["(check-sat)\n(reset)\n"] * 3 + ["(assert hang_here)\n(check-sat)\n(reset)\n"]
    texts += ["(check-sat)\n(reset)\n"] * 2
    started = time.monotonic()
    out = run_marked(spec, texts, per_script=1.0)
    assert out == [["sat"], ["sat"], ["sat"], None, ["sat"], ["sat"]]
    assert time.monotonic() - started < 20  # one script's second, not the 600 s it hangs
