"""`analyze --counters` and `report --counters` end to end without a GPU: the committed GPT-2 H200
trace with its ncu CSV in every format, every bad input as one line and its exit code, and
capture.ncu's profiling run driven through a stand-in ncu on the CPU."""

import gzip
import json
import os
import stat
import sys
from pathlib import Path

import pytest

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"
TRACE = EXAMPLES / "gpt2.h200.trace.json.gz"
NCU = EXAMPLES / "ncu_gpt2.h200.csv.gz"
MLP = ROOT / "examples" / "mlp.py"


def test_analyze_counters_prints_the_section(capsys):
    code = main(["analyze", str(TRACE), "--counters", str(NCU), "-q"])
    out = capsys.readouterr().out
    assert code == 0
    assert "why kernels miss their floor: Nsight Compute counters, per pass (126 of 126 kernels joined" in out
    assert "kernels with the most excess (of 126" in out
    assert "note: counters: 126 of ncu's 126 kernels" in out and "0 name mismatches" in out


@pytest.mark.parametrize("ext", ["md", "html"])
def test_analyze_counters_in_markdown_and_html(tmp_path, ext):
    out = tmp_path / f"r.{ext}"
    assert main(["analyze", str(TRACE), "--counters", str(NCU), "-q", "-o", str(out)]) == 0
    text = out.read_text()
    assert "Nsight Compute counters, per pass (126 of 126 kernels joined" in text
    assert "compute not reached" in text and "extra traffic us" in text


def test_annotated_trace_carries_each_kernel_s_counters(tmp_path):
    ann = tmp_path / "a.json.gz"
    assert main(["analyze", str(TRACE), "--counters", str(NCU), "-q", "--annotate-trace", str(ann),
                 "-o", str(tmp_path / "r.txt")]) == 0
    events = json.loads(gzip.decompress(ann.read_bytes()))["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    joined = [e for e in kernels if "floorcalc.counters.verdict" in e.get("args", {})]
    assert len(joined) == len(kernels) == 630  # 126 kernels a pass, 5 passes, every pass joined
    last = max(joined, key=lambda e: e["args"]["floorcalc.counters.position"])["args"]
    assert last["floorcalc.counters.position"] == 125 and last["floorcalc.module"] == "lm_head"
    assert last["floorcalc.counters.verdict"] == "compute not reached"


@pytest.mark.parametrize("argv,code,words", [
    (["analyze", str(TRACE), "--counters-cache", "keep"], 2, "give --counters NCU_CSV too"),
    (["analyze", str(TRACE), "--counters", "/nonexistent/x.csv"], 6, "cannot read the counters file"),
    (["analyze", str(TRACE), str(TRACE), "--counters", str(NCU)], 2, "analyze one rank's trace"),
    (["report", str(MLP), "--device", "cpu", "--counters"], 2, "it needs a CUDA device"),
    (["report", str(MLP), "--device", "cpu", "--ncu", "ncu"], 2, "--ncu goes with --counters"),
    (["report", str(MLP), "--counters", "--nproc-per-node", "2"], 2, "--counters cannot be combined with --nproc"),
])
def test_bad_counters_input_is_one_line(capsys, argv, code, words):
    assert main(argv) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("floorcalc: error: ") and words in err[0]


def test_the_python_api_joins_counters_too():
    import floorcalc

    rep = floorcalc.analyze(TRACE, counters=NCU)
    c = rep.record.counters
    assert c is not None and c.join.matched == 126
    assert "counters=" in rep.record.capture.command


def test_a_csv_with_no_kernels_is_exit_6(tmp_path, capsys):
    bad = tmp_path / "empty.csv"
    bad.write_text("==PROF== nothing profiled\n")
    assert main(["analyze", str(TRACE), "--counters", str(bad)]) == 6
    assert "no header row" in capsys.readouterr().err


FAKE_NCU = r'''#!{python}
"""A stand-in for ncu: runs the workload on the CPU, writes the report file, prints a raw page."""
import subprocess, sys
a = sys.argv[1:]
if a[:1] == ["--version"]:
    print("Version 0.0 (stand-in)"); sys.exit(0)
if "--import" in a:
    print('"ID","Kernel Name","gpu__time_duration.sum","dram__bytes_read.sum","dram__bytes_write.sum"')
    print('"","","nsecond","byte","byte"')
    print('"0","k0","1500","4096","0"')
    print('"1","k1","2500","8192","4096"')
    sys.exit(0)
with open("{record}", "w") as f:
    f.write(" ".join(a))
i = a.index("-m") - 1
r = subprocess.run(a[i:] + ["--device", "cpu", "--warmup", "0"]).returncode
open(a[a.index("-o") + 1] + ".ncu-rep", "w").write("rep")
sys.exit(r)
'''


def test_profile_pass_drives_ncu_and_writes_the_csv(tmp_path):
    # GIVEN a stand-in ncu that runs the workload it is given (on the CPU) and prints a raw page
    from floorcalc.capture.ncu import find_ncu, profile_pass
    from floorcalc.counters.ncu_csv import read_ncu_csv
    from floorcalc.util.errors import OutputError

    record = tmp_path / "argv.txt"
    fake = tmp_path / "ncu"
    fake.write_text(FAKE_NCU.replace("{python}", sys.executable).replace("{record}", str(record)))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    ncu = find_ncu(str(fake))
    csv_path = tmp_path / "mlp.ncu.csv"
    # WHEN one pass of examples/mlp.py is profiled through it
    run = profile_pass(MLP, csv_path, ncu=ncu, warmup=0, env=dict(os.environ, PYTHONPATH=""))
    # THEN ncu was asked for one pass at the driver's clocks, and its page is the CSV, headed by how
    argv = record.read_text().split()
    assert argv[:4] == ["--clock-control", "none", "--profile-from-start", "off"]
    assert "floorcalc.capture.ncu" in argv and str(MLP) in argv
    assert (tmp_path / "mlp.ncu-rep").exists() and (tmp_path / "mlp.ncu.log").exists()
    assert csv_path.read_text().startswith("# floorcalc: cache=flush command=")
    p = read_ncu_csv(csv_path)
    assert p.cache == "flush" and [k.name for k in p.kernels] == ["k0", "k1"]
    assert p.kernels[1].dram_bytes == 12288 and p.kernels[1].duration_us == 2.5
    assert run.ncu_version == "Version 0.0 (stand-in)" and run.dropped_metrics == ()
    # AND a second run does not write over the first without force
    with pytest.raises(OutputError):
        profile_pass(MLP, csv_path, ncu=ncu, warmup=0)


def test_report_counters_profiles_a_pass_and_writes_the_csv_beside_the_trace(tmp_path, monkeypatch, capsys):
    # GIVEN the stand-in ncu, and the CUDA-only checks let through so the CPU can run the path
    import floorcalc.analysis.driver as analysis
    import floorcalc.cli.report as report_cli

    record = tmp_path / "argv.txt"
    fake = tmp_path / "ncu"
    fake.write_text(FAKE_NCU.replace("{python}", sys.executable).replace("{record}", str(record)))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    real_check = report_cli._check_counters
    monkeypatch.setattr(report_cli, "_check_counters", lambda args, device: real_check(args, "cuda"))
    joined = {}

    def fake_join(report, profile):  # a CPU trace has no kernels to join: keep what was given
        joined["profile"] = profile
        return report

    monkeypatch.setattr(analysis, "with_counters", fake_join)
    trace = tmp_path / "mlp.trace.json.gz"
    # WHEN report --counters runs
    code = main(["report", str(MLP), "--device", "cpu", "--warmup", "1", "--iters", "1", "-q", "--counters",
                 "--ncu", str(fake), "--trace-out", str(trace), "-o", str(tmp_path / "r.txt")])
    # THEN the CSV is beside the trace, read, and handed to the analysis
    assert code == 0, capsys.readouterr().err
    csv_path = tmp_path / "mlp.ncu.csv"
    assert csv_path.exists() and joined["profile"].path == str(csv_path)
    assert [k.name for k in joined["profile"].kernels] == ["k0", "k1"]
    argv = record.read_text().split()
    assert argv[argv.index("--warmup") + 1] == "1" and "--compile" not in argv
    # AND a second run refuses the existing CSV before any work (a new trace name, the same CSV)
    code = main(["report", str(MLP), "--device", "cpu", "-q", "--counters", "--ncu", str(fake),
                 "--counters-out", str(csv_path), "--trace-out", str(tmp_path / "t2.trace.json.gz")])
    assert code == 8 and "exists" in capsys.readouterr().err
    assert not (tmp_path / "t2.trace.json.gz").exists()
