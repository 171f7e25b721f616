"""A truncated trace is said to be truncated once, in one clause: no "truncated (the trace is
truncated (...)" nesting, no coverage said twice."""

import gzip
from pathlib import Path

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
GPT2 = ROOT / "docs" / "examples" / "gpt2.h200.trace.json.gz"


def _cut(tmp_path: Path, share: float) -> Path:
    raw = gzip.decompress(GPT2.read_bytes())
    p = tmp_path / f"trunc{int(share * 100)}.json.gz"
    p.write_bytes(gzip.compress(raw[: int(len(raw) * share)]))
    return p


def test_a_trace_cut_before_its_gpu_events_is_one_clause(tmp_path, capsys):
    # GIVEN the GPT-2 trace cut in half (Kineto writes device events last: none survive)
    p = _cut(tmp_path, 0.5)
    assert main(["analyze", str(p), "-q"]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].count("truncated") == 1 and "the trace is" not in err[0], err
    assert err[0].startswith(f"floorcalc: error: trace {p} is truncated (its traceEvents array is not closed): read "
                             "the first "), err
    assert err[0].endswith("no device event survived the cut (Kineto writes them after the host events): nothing on "
                           "the GPU can be analysed"), err
    assert "only host-side figures remain" not in err[0]


def test_a_trace_cut_after_some_gpu_events_warns_once(tmp_path, capsys):
    p = _cut(tmp_path, 0.93)
    assert main(["analyze", str(p), "-q"]) == 0
    cap = capsys.readouterr()
    warn = cap.err.strip().splitlines()
    assert len(warn) == 1 and warn[0].count("truncated") == 1 and warn[0].count("figures") == 1, warn
    assert warn[0].startswith(f"floorcalc: warning: trace {p} is truncated (its traceEvents array is not closed)")
    partial = [x for x in cap.out.splitlines() if "PARTIAL" in x]
    assert partial and all(x.count("figures") == 1 for x in partial), partial
