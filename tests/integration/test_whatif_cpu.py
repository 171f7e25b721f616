"""`floorcalc whatif` on a report that has no what-if section says why, for that report."""

import json
from pathlib import Path

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
CPU_RANK = ROOT / "tests" / "data" / "distributed" / "cpu_gloo_tp_llama_block_balanced" / "tp_llama_block.rank0.trace.json.gz"


def test_a_cpu_report_is_told_what_if_needs_a_gpu_run_not_to_analyse_again(tmp_path, capsys):
    # GIVEN the JSON report of a CPU trace (it has no what-if section)
    rep = tmp_path / "cpu.json"
    assert main(["analyze", str(CPU_RANK), "-o", str(rep), "-q"]) == 0
    assert json.loads(rep.read_text()).get("whatif") is None
    capsys.readouterr()
    # WHEN whatif reads it THEN one line says it is a CPU run and what-if projects GPU changes
    assert main(["whatif", str(rep)]) == 13
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "analyze on its trace again" not in err[0], err
    assert f"report {rep} has no what-if section: it is a cpu run, and what-if projects GPU changes" in err[0], err
    assert "floorcalc report MODEL.py --device cuda" in err[0], err


def test_a_report_made_without_a_spec_is_told_to_name_one(tmp_path, capsys):
    # GIVEN a GPU trace that names no GPU (no spec fits: no ceilings, no what-if)
    from builders import KinetoBuilder, tensor_args

    b = KinetoBuilder(gpu_name=None)
    for k, t0 in enumerate((0.0, 100.0)):
        b.step(k, t0, 90.0)
        ext = b.op("aten::addmm", t0 + 1, 10.0, tensor_args([64], [32, 128], [128, 64], scalars=("1", "1")))
        b.launch(t0 + 2, t0 + 5, 20.0, "gemm_kernel", ext=ext)
    trace = b.write(tmp_path / "unnamed.json")
    rep = tmp_path / "nospec.json"
    assert main(["analyze", str(trace), "-o", str(rep), "-q"]) == 0
    capsys.readouterr()
    assert main(["whatif", str(rep)]) == 13
    err = capsys.readouterr().err.strip()
    assert "it was made with no device spec" in err and "--spec KEY or FILE" in err, err
