"""Golden outputs of `floorcalc analyze` on the committed real traces.

    python3 tests/golden.py --update     # rewrite tests/data/golden/*.json after a deliberate change
    python3 tests/golden.py --summary    # each fixture's decomposition and idle causes, per pass

A golden file is the analyze JSON (made with --absolute-paths, so the paths are as recorded and
the normalisers below find them) with the fields that depend on where it ran (paths) removed.
Runs of several ranks (:data:`RUNS`, folders of tests/data/distributed/) are analysed together,
``floorcalc analyze FOLDER --format json``, against a committed spec (:data:`RUN_SPECS`): the
CPU that recorded the gloo runs (tests/data/distributed/cpu_host.yaml), so their goldens do not
depend on the checking machine; the H200 pair's run against the spec its traces match
(devices/h200.yaml) and again against the pair's measured NCCL bus bandwidth
(tests/data/distributed/h200x2_nccl_calibrated.yaml, golden ``<folder>.nccl_calibrated.json``).
Review the diff of a regenerated golden file like code: every changed number needs a reason.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
GOLDEN = DATA / "golden"
FIXTURES = ["h200_gpt2", "h200_k13_pageable_copy", "h200_k14_item", "h200_two_streams", "h200_tiny_ops",
            "h200_cold_mlp", "h200_mlp_eager", "h200_mlp_graphs", "h200_mlp_compiled", "h200_llama_decode_eager",
            "h200_llama_decode_graphs", "h200_llama_decode_compiled"]
DISTRIBUTED = DATA / "distributed"
#: The spec the gloo runs are analysed against (the CPU that recorded them).
RUN_SPEC = DISTRIBUTED / "cpu_host.yaml"
#: The H200 pair's measured NCCL bus bandwidth as a spec overlay (tools/nccl_sweep_spec.py).
NCCL_SPEC = DISTRIBUTED / "h200x2_nccl_calibrated.yaml"
#: Runs of several ranks recorded on the CPU with gloo, folders of tests/data/distributed/.
CPU_RUNS = ["cpu_gloo_tp_llama_block_balanced", "cpu_gloo_tp_llama_block_late"]
#: Every run golden ``<name>.json``: name -> (folder of tests/data/distributed/, spec; None: the
#: one the traces match).
RUN_SPECS = {**{name: (name, RUN_SPEC) for name in CPU_RUNS},
             "h200x2_tp_mlp_balanced": ("h200x2_tp_mlp_balanced", None),
             "h200x2_tp_mlp_balanced.nccl_calibrated": ("h200x2_tp_mlp_balanced", NCCL_SPEC)}
RUNS = list(RUN_SPECS)


def analyze(name: str) -> dict:
    """Run the CLI's analyze on tests/data/<name>.trace.json.gz and return its normalised JSON."""
    from floorcalc.cli import main

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out.json"
        code = main(["analyze", str(DATA / f"{name}.trace.json.gz"), "-o", str(out), "--absolute-paths"])
        if code != 0:
            raise RuntimeError(f"analyze {name} exited {code}")
        rep = json.loads(out.read_text())
    return _normalised(rep)


@functools.lru_cache(maxsize=None)
def report(name: str) -> dict:
    """:func:`analyze` of ``name``, made once per test session and shared by every test that
    reads it (the one cache of the golden reports: read it, never change it)."""
    return analyze(name)


@functools.lru_cache(maxsize=None)
def run(name: str) -> dict:
    """:func:`analyze_run` of ``name``, made once per test session (read it, never change it)."""
    return analyze_run(name)


def _normalised(rep: dict) -> dict:
    """One report's JSON without what depends on where it ran (command, paths, version)."""
    rep["capture"].pop("command", None)
    rep["capture"].pop("trace", None)
    rep["device"].pop("source", None)
    rep["tool"].pop("version", None)
    return rep


def analyze_run(name: str) -> dict:
    """Run the CLI's analyze on the run golden ``name`` (:data:`RUN_SPECS`: a folder of
    tests/data/distributed/, every rank together, in this process, and its spec) and return its
    normalised run JSON: each rank's path as its file name, spec files by their path in the
    repository."""
    from floorcalc.cli import main

    folder, spec_file = RUN_SPECS[name]
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "out.json"
        spec_args = ["--spec", str(spec_file)] if spec_file is not None else []
        code = main(["analyze", str(DISTRIBUTED / folder), *spec_args, "--workers", "1",
                     "--format", "json", "-o", str(out), "--absolute-paths"])
        if code != 0:
            raise RuntimeError(f"analyze {name} exited {code}")
        text = out.read_text()
    root = Path(__file__).resolve().parents[1]
    for spec in [spec_file, root / "devices" / "h200.yaml"]:   # figure sources name the spec file
        if spec is not None:
            for form in sorted({str(spec), str(spec.resolve())}, key=len, reverse=True):
                text = text.replace(json.dumps(form)[1:-1], spec.resolve().relative_to(root).as_posix())
    run = json.loads(text)
    run.pop("command", None)
    run["tool"].pop("version", None)
    run["device"].pop("source", None)
    for r in run["ranks"]:
        r["path"] = Path(r["path"]).name if r["path"] else r["path"]
    run["reports"] = {k: _normalised(v) for k, v in run["reports"].items()}
    return run


def diff(a: Any, b: Any, path: str = "", rel: float = 1e-9) -> list[str]:
    """Differences between two JSON values, numbers compared to a relative tolerance."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: only in {'golden' if k in b else 'output'}")
            else:
                out += diff(a[k], b[k], f"{path}.{k}", rel)
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: length {len(a)} != golden {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in diff(x, y, f"{path}[{i}]", rel)]
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return [] if math.isclose(a, b, rel_tol=rel, abs_tol=1e-9) else [f"{path}: {a!r} != golden {b!r}"]
    return [] if a == b else [f"{path}: {a!r} != golden {b!r}"]


def update() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name in FIXTURES:
        (GOLDEN / f"{name}.json").write_text(json.dumps(analyze(name), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN / name}.json")
    for name in RUNS:
        (GOLDEN / f"{name}.json").write_text(json.dumps(analyze_run(name), indent=1, sort_keys=True) + "\n")
        print(f"wrote {GOLDEN / name}.json")


PARTS = ("floor_us", "excess_us", "data_movement_us", "host_overhead_us", "blocking_us", "other_us", "residual_us")


def summary() -> str:
    """Each fixture's latency decomposition and idle time by cause, per pass, as text (a digest of
    the golden files' ``timeline`` to review a regenerated golden by)."""
    lines = [f"{'fixture':<24}{'wall':>10}" + "".join(f"{p[:-3]:>14}" for p in PARTS) + "  bound"]
    causes = []
    for name in FIXTURES:
        t = json.loads((GOLDEN / f"{name}.json").read_text())["timeline"]
        d = t["decomposition"]["pass"]
        lines.append(f"{name:<24}{d['wall_us']:>10.1f}" + "".join(f"{d[p]:>14.3f}" for p in PARTS) + f"  {d['bound']}")
        idle = {c: v for c, v in t["gaps"]["idle_us_by_cause"].items() if v > 0}
        counts = t["gaps"]["count_by_cause"]
        causes.append(f"{name:<24}" + ", ".join(f"{c} {v:.1f} us ({counts[c]} gaps)"
                                              for c, v in sorted(idle.items(), key=lambda kv: -kv[1])))
    return "\n".join(lines + ["", "idle time by cause, per pass (gaps holding some of it, over the window):"] + causes)


if __name__ == "__main__":
    if sys.argv[1:] not in (["--update"], ["--summary"]):
        sys.exit(__doc__)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    if sys.argv[1] == "--update":
        update()
    print(summary())
