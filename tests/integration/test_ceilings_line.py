"""The line under a text report names each ceiling the floors used with its own basis, as the
notes do (a CPU report: derived peak, measured DRAM bandwidth)."""

from pathlib import Path

from floorcalc.cli import main

ROOT = Path(__file__).resolve().parents[2]
CPU_RANK = ROOT / "tests" / "data" / "distributed" / "cpu_gloo_tp_llama_block_balanced" / "tp_llama_block.rank0.trace.json.gz"


def _lines(capsys, argv):
    assert main(argv) == 0
    return " ".join(capsys.readouterr().out.split())  # rich wraps long lines at the console width


def test_a_cpu_report_names_each_ceiling_with_its_basis_as_the_notes_do(capsys):
    # GIVEN a CPU trace whose spec has derived peaks and a measured DRAM bandwidth
    out = _lines(capsys, ["analyze", str(CPU_RANK)])
    # THEN the ceilings line gives each figure its basis, agreeing with the MFU/MBU note
    assert "ceilings: P vector.float32 = 439.9 GFLOP/s (derived), W DRAM = 67.15 GB/s (measured); spec from " in out
    assert "MBU uses DRAM 6.715e+10 B/s (measured)" in out
    assert "peak and bandwidth: derived figures" not in out


def test_a_gpu_report_names_its_datasheet_and_measured_ceilings(capsys):
    out = _lines(capsys, ["analyze", str(ROOT / "tests" / "data" / "h200_gpt2.trace.json.gz")])
    assert "ceilings: P tensor.bfloat16 = 989.5 TFLOP/s (datasheet)" in out
    assert "W DRAM = 4.8 TB/s (datasheet)" in out and "spec from devices/h200.yaml; L = " in out
