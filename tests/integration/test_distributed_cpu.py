"""`floorcalc report --nproc-per-node 2` for real on the CPU (gloo): torch.distributed.run starts
two ranks, each writes its own trace, and a failing rank ends the run in one line naming it, with
its exit code, never a hang. Each test is one launch (about 10 s on two busy cores)."""

import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

from floorcalc import trace
from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "examples"
FAULTS = ROOT / "tests" / "data" / "models" / "dist_faults.py"


def load(path: Path) -> dict:
    with gzip.open(path, "rt") as fh:
        return json.load(fh)


def spans(doc: dict, name: str) -> list:
    return [e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("name", "").startswith(name)]


def report(model: Path, out: Path, *extra: str) -> int:
    return main(["report", str(model), "--nproc-per-node", "2", "--warmup", "1", "--iters", "3", "-q",
                 "--top", "5", "--trace-out", str(out), *extra])


@pytest.fixture(scope="module")
def late_tp(tmp_path_factory):
    """The tensor-parallel block on two gloo ranks, rank 1 late by 20 ms each pass:
    (exit code, trace folder, stdout)."""
    import _pytest.monkeypatch

    mp = _pytest.monkeypatch.MonkeyPatch()
    mp.setenv("FLOORCALC_EXAMPLE_LATE_RANK", "1")
    mp.setenv("FLOORCALC_EXAMPLE_LATE_MS", "20")
    mp.setenv("FLOORCALC_EXAMPLE_SIZE", "small")
    out = tmp_path_factory.mktemp("tp") / "run"
    import contextlib
    import io

    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            code = report(EX / "tp_llama_block.py", out)
    finally:
        mp.undo()
    return code, out, buf.getvalue()


def test_each_rank_writes_its_own_trace_of_the_same_window(late_tp):
    code, out, stdout = late_tp
    assert code == 0
    paths = sorted(out.iterdir())
    assert [p.name for p in paths] == ["tp_llama_block.rank0.trace.json.gz", "tp_llama_block.rank1.trace.json.gz"]
    for rank, p in enumerate(paths):
        doc = load(p)
        info = doc["distributedInfo"]
        assert (info["rank"], info["world_size"], info["backend"]) == (rank, 2, "gloo")
        assert [e["name"] for e in spans(doc, "ProfilerStep#")] == ["ProfilerStep#0", "ProfilerStep#1", "ProfilerStep#2"]
        # two all_reduces per pass on the model's (default) group, none of floorcalc's barriers inside a pass
        assert len(spans(doc, "c10d::allreduce_")) == 6
        steps = spans(doc, "ProfilerStep#")
        for b in spans(doc, "c10d::monitored_barrier"):
            assert all(not (s["ts"] <= b["ts"] < s["ts"] + s["dur"]) for s in steps)
        assert "--nproc-per-node 2" in trace.load(p).capture.capture_command
    # and the report is the cross-rank one over both (floorcalc.distributed.analyze_run)
    assert "run of 2 ranks" in stdout and "collectives matched" in stdout


def test_the_late_ranks_peer_waits_in_its_collectives(late_tp):
    # rank 1 sleeps 20 ms before its matmuls each pass: rank 0's first all_reduce of the pass
    # (gloo's own range on its worker thread) waits for it, rank 1's does not
    _, out, _ = late_tp

    def first_wait_ms(rank: int) -> float:
        doc = load(out / f"tp_llama_block.rank{rank}.trace.json.gz")
        waits = []
        for s in spans(doc, "ProfilerStep#"):
            inside = [e for e in spans(doc, "gloo:all_reduce") if s["ts"] <= e["ts"] < s["ts"] + s["dur"]]
            waits.append(min(inside, key=lambda e: e["ts"])["dur"] / 1e3)
        return statistics.median(waits)

    assert first_wait_ms(0) > 12 and first_wait_ms(1) < first_wait_ms(0) - 10
    # and the cross-rank report names rank 1 as the one rank 0 waited on, and what it was doing
    stdout = late_tp[2]
    assert "rank 0 waited" in stdout and "on rank 1" in stdout and "host python (no op)" in stdout


@pytest.mark.parametrize("name, collective", [("pp_two_stage", ("c10d::send", "c10d::recv_")),
                                              ("ep_moe", ("c10d::alltoall_base_",))])
def test_the_pipeline_and_expert_parallel_examples_run_on_two_ranks(tmp_path, capsys, name, collective):
    assert report(EX / f"{name}.py", tmp_path / "run") == 0
    docs = [load(tmp_path / "run" / f"{name}.rank{r}.trace.json.gz") for r in (0, 1)]
    if name == "pp_two_stage":  # rank 0 sends each micro-batch on, rank 1 receives it
        assert len(spans(docs[0], "c10d::send")) == 2 * 3 and not spans(docs[0], "c10d::recv_")
        assert len(spans(docs[1], "c10d::recv_")) == 2 * 3 and not spans(docs[1], "c10d::send")
    else:  # counts, tokens out, tokens back: three all_to_alls a pass on each rank
        assert all(len(spans(d, collective[0])) == 3 * 3 for d in docs)
    out = capsys.readouterr().out      # the cross-rank report: the ranks' collectives matched
    assert "run of 2 ranks" in out and "collectives matched" in out and "no collective matched" not in out


def test_a_rank_whose_model_raises_is_named_with_exit_code_4(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FLOORCALC_TEST_FAULT", "raise")
    rc = report(FAULTS, tmp_path / "run")
    err = capsys.readouterr().err
    assert rc == 4
    lines = err.splitlines()
    at = next(i for i, x in enumerate(lines) if x.startswith("floorcalc: error: "))
    assert lines[at] == "floorcalc: error: rank 1: get_model() raised ValueError: no weights for rank 1"
    # then the rank's own traceback, its frames only (issue 27): where the model file raised
    assert lines[at + 1].startswith("Traceback of your code") and "dist_faults.py\", line " in lines[at + 2], lines[at:]
    assert lines[-1] == "ValueError: no weights for rank 1" and "floorcalc" + os.sep + "capture" not in err, lines[at:]
    assert "Traceback (most recent call last)" not in err and not list((tmp_path / "run").iterdir())


def test_a_hung_rank_ends_the_run_at_the_timeout_with_exit_code_11(tmp_path, capsys, monkeypatch):
    # rank 1 sleeps in its forward for an hour; rank 0 waits in the all_reduce for 10 s, then gives up
    monkeypatch.setenv("FLOORCALC_TEST_FAULT", "hang")
    t0 = time.monotonic()
    rc = report(FAULTS, tmp_path / "run", "--rank-timeout", "10")
    took = time.monotonic() - t0
    last = capsys.readouterr().err.splitlines()[-1]
    assert rc == 11 and took < 120
    assert last.startswith("floorcalc: error: rank 0: the model's forward raised") and "Timed out" in last
    assert last.endswith("rank 1 still running when the run was stopped (hung, or slower than --rank-timeout)")


def test_the_ranks_prints_go_to_stderr_and_stdout_holds_only_the_report(tmp_path):
    # issue 13: the ranks ran the model with stdout untouched, so `--format json` on stdout was
    # not JSON when the model printed; a separate process, as the ranks write to fd 1 itself
    env = {**os.environ, "FLOORCALC_TEST_FAULT": "print", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "floorcalc", "report", str(FAULTS), "--nproc-per-node", "2",
                           "--warmup", "1", "--iters", "2", "-q", "--format", "json",
                           "--trace-out", str(tmp_path / "run")], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["world_size"] == 2 and "model stdout" not in done.stdout
    for where in ("import", "get_model", "forward"):         # both ranks, Python's print and fd 1
        assert done.stderr.count(f"model stdout: print in {where}") >= 2
        assert done.stderr.count(f"model stdout: fd 1 in {where}") >= 2
