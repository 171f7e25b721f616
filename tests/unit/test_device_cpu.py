"""The host CPU's spec, derived from a fake /proc/cpuinfo."""

from __future__ import annotations

import pytest

from floorcalc.device import cpu_spec, load_spec
from floorcalc.device.cpu import parse_cpuinfo
from floorcalc.util.errors import SpecError
from floorcalc.records import Figure


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(tmp_path / "config"))


def x86_cpuinfo(flags: str, *, cores: int = 4, smt: int = 2, mhz: float = 2100.0, model: str = "Test Xeon") -> str:
    """/proc/cpuinfo of one socket with ``cores`` cores, each with ``smt`` hardware threads."""
    blocks = []
    for thread in range(smt):
        for core in range(cores):
            cpu = thread * cores + core
            blocks.append(
                f"processor\t: {cpu}\nvendor_id\t: GenuineIntel\nmodel name\t: {model}\n"
                f"cpu MHz\t\t: {mhz}\nphysical id\t: 0\ncore id\t\t: {core}\nflags\t\t: {flags}\n"
            )
    return "\n".join(blocks) + "\n"


AVX2 = "fpu sse sse2 avx avx2 fma f16c"
AVX512 = AVX2 + " avx512f avx512bw avx512vl"
SPR = AVX512 + " avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8 amx_fp16"

ARM = """\
processor\t: 0
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp
CPU implementer\t: 0x41

processor\t: 1
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp
CPU implementer\t: 0x41
"""


def spec(text, *, cpus=range(8), freq="3500000\n", machine="x86_64", **kw):
    return cpu_spec(cpuinfo_text=text, max_freq_text=freq, cpus=set(cpus), machine=machine, **kw)


def test_avx2_fma_host():
    s = spec(x86_cpuinfo(AVX2))

    # 4 physical cores (the 8 CPUs are SMT pairs) x 32 FLOP/cycle x 3500 MHz
    assert s.peak_flop_per_s["vector.float32"].value == pytest.approx(4 * 32 * 3.5e9)
    assert s.peak_flop_per_s["vector.float64"].value == pytest.approx(4 * 16 * 3.5e9)
    assert s.peak_flop_per_s["vector.bfloat16"].value == s.peak_flop_per_s["vector.float32"].value
    assert s.details["cores"].value == 4
    assert s.details["clock_mhz"].value == 3500
    assert s.name == "Test Xeon (4 cores)"
    assert s.kind == "cpu"


def test_tensor_keys_equal_vector_keys_without_matrix_units():
    s = spec(x86_cpuinfo(AVX512))

    for dtype in ("float32", "float64", "bfloat16", "float16"):
        assert s.peak_flop_per_s[f"tensor.{dtype}"] == s.peak_flop_per_s[f"vector.{dtype}"]
    assert s.peak_flop_per_s["vector.float32"].value == pytest.approx(4 * 64 * 3.5e9)


def test_bf16_fp16_and_amx_flags_raise_those_peaks():
    s = spec(x86_cpuinfo(SPR))

    fp32 = 4 * 64 * 3.5e9
    assert s.peak_flop_per_s["vector.bfloat16"].value == pytest.approx(2 * fp32)
    assert s.peak_flop_per_s["vector.float16"].value == pytest.approx(2 * fp32)
    assert s.peak_flop_per_s["tensor.bfloat16"].value == pytest.approx(4 * 1024 * 3.5e9)
    assert "amx_bf16" in s.peak_flop_per_s["tensor.bfloat16"].source
    assert s.peak_flop_per_s["tensor.float32"].value == pytest.approx(fp32)
    assert s.peak_flop_per_s["tensor.tfloat32"].value == pytest.approx(fp32)  # not the AMX BF16 rate


def test_affinity_limits_the_cores():
    s = spec(x86_cpuinfo(AVX2), cpus={0, 4})  # one core, both of its hardware threads

    assert s.details["cores"].value == 1


def test_aarch64_neon():
    s = spec(ARM, cpus={0, 1}, machine="aarch64", freq="2600000")

    assert s.peak_flop_per_s["vector.float32"].value == pytest.approx(2 * 16 * 2.6e9)
    assert "NEON" in s.peak_flop_per_s["vector.float32"].source
    assert s.name == "aarch64 (2 cores)"


def test_clock_falls_back_to_cpu_mhz_then_to_an_assumption():
    from_cpuinfo = spec(x86_cpuinfo(AVX2, mhz=2400.5), freq=None, max_freq_path=None)
    assumed = spec(ARM, cpus={0, 1}, machine="aarch64", freq=None, max_freq_path=None)

    assert from_cpuinfo.details["clock_mhz"].value == 2400.5
    assert "cpu MHz" in from_cpuinfo.details["clock_mhz"].source
    assert from_cpuinfo.peak_flop_per_s["vector.float32"].basis == "derived"
    assert assumed.details["clock_mhz"].basis == "assumed"
    assert assumed.peak_flop_per_s["vector.float32"].basis == "assumed"


def test_sources_give_formula_and_inputs():
    src = spec(x86_cpuinfo(AVX2)).peak_flop_per_s["vector.float32"].source

    assert src.startswith("derived: 4 cores x 32 FLOP/cycle/core x 3500 MHz")
    assert "AVX2+FMA" in src and "cpufreq" in src


def test_bandwidth_and_latency_default_to_cpu_generic_assumptions():
    generic = load_spec("cpu-generic")

    s = spec(x86_cpuinfo(AVX2))

    assert s.mem_bytes_per_s == generic.mem_bytes_per_s
    assert s.mem_bytes_per_s.basis == "assumed"
    assert s.launch_latency_us == generic.launch_latency_us
    assert s.origin[-1].endswith("cpu-generic.yaml")


def test_measured_figures_are_used_and_checked():
    measured = Figure(38.2e9, "measured", "STREAM triad, 2 GB arrays")
    latency = Figure(4.2, "measured", "empty aten::add, median of 1000")

    s = spec(x86_cpuinfo(AVX2), bandwidth=measured, launch_latency=latency)

    assert s.mem_bytes_per_s is measured
    assert s.launch_latency_us is latency
    with pytest.raises(SpecError, match="mem_bytes_per_s.value = 38.2 is out of range"):
        spec(x86_cpuinfo(AVX2), bandwidth=Figure(38.2, "measured", "GB/s by mistake"))


def test_parse_cpuinfo_blocks():
    blocks = parse_cpuinfo(x86_cpuinfo(AVX2, cores=2, smt=1))

    assert [b["processor"] for b in blocks] == ["0", "1"]
    assert blocks[0]["core id"] == "0"


def test_this_host_derives_without_error():
    s = cpu_spec()

    assert s.peak_flop_per_s["tensor.float32"].value >= 1e9
    assert s.details["cores"].value >= 1
