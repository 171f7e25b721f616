"""CPU peaks from the microarchitecture, cache levels from sysfs, and the per-machine ceilings
cache (issue 12, item 3)."""

from __future__ import annotations

import errno
import json
import os

import pytest

from floorcalc.device import cpu_spec
from floorcalc.util.errors import OutputError
from floorcalc.device.cpu import (MICROARCHITECTURES, UARCH_SOURCES, cache_levels_sysfs, identify_microarch,
                                  load_cached_ceilings, parse_cpuinfo, store_ceilings)

ZEN4_FLAGS = "fpu sse sse2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_bf16"
SPR_FLAGS = "sse2 avx fma avx2 avx512f avx512_bf16 avx512_fp16 amx_bf16 amx_fp16 amx_tile"


def cpuinfo(vendor: str, family: int, model: int, flags: str, cores: int = 2, mhz: float = 2596.15) -> str:
    return "\n".join(
        f"processor\t: {c}\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
        f"model name\t: Test CPU\ncpu MHz\t\t: {mhz}\nphysical id\t: 0\ncore id\t\t: {c}\nflags\t\t: {flags}\n"
        for c in range(cores)) + "\n"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_CACHE_DIR", str(tmp_path / "cache"))


def test_zen4_is_32_fp32_flop_per_cycle_despite_avx512():
    # GIVEN an AMD family 25 model 17 (Zen 4, Genoa) that reports avx512f
    spec = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1})
    # THEN 2 cores x 32 FLOP/cycle x 2596.15 MHz, citing AMD's Zen 4 guide
    assert spec.details["fp32_flop_per_cycle_per_core"].value == 32
    assert spec.peak_flop_per_s["vector.float32"].value == pytest.approx(2 * 32 * 2596.15e6)
    assert "Zen 4" in spec.peak_flop_per_s["vector.float32"].source and "57647" in spec.peak_flop_per_s["vector.float32"].source
    # avx512_bf16 doubles the BF16 rate on top of the right FP32 one
    assert spec.peak_flop_per_s["vector.bfloat16"].value == pytest.approx(2 * 64 * 2596.15e6)


@pytest.mark.parametrize("vendor, family, model, flags, expected, name", [
    ("GenuineIntel", 6, 0x8F, SPR_FLAGS, 64, "Sapphire"),
    ("GenuineIntel", 6, 0x55, "avx2 fma avx512f", 64, "Skylake-SP"),
    ("GenuineIntel", 6, 0x8C, "avx2 fma avx512f", 32, "Tiger Lake"),
    ("GenuineIntel", 6, 0x3F, "avx2 fma", 32, "Haswell"),
    ("GenuineIntel", 6, 0x2D, "avx", 16, "Sandy Bridge"),
    ("AuthenticAMD", 0x17, 0x01, "avx2 fma", 16, "Zen / Zen+"),
    ("AuthenticAMD", 0x17, 0x31, "avx2 fma", 32, "Zen 2"),
    ("AuthenticAMD", 0x19, 0x01, "avx2 fma", 32, "Zen 3"),
    ("AuthenticAMD", 0x1A, 0x02, "avx2 fma avx512f", 64, "Zen 5 (server"),
    ("AuthenticAMD", 0x1A, 0x24, "avx2 fma avx512f", 32, "Zen 5 (mobile"),
])
def test_microarchitecture_table(vendor, family, model, flags, expected, name):
    arch = identify_microarch(parse_cpuinfo(cpuinfo(vendor, family, model, flags)))
    assert arch is not None and name in arch.name and arch.fp32_flop_per_cycle == expected


def test_every_table_entry_names_a_known_source():
    for _, _, _, arch in MICROARCHITECTURES:
        assert arch.source in UARCH_SOURCES and arch.fp32_flop_per_cycle in (16, 32, 64)


def test_arm_neoverse_by_implementer_and_part():
    text = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\nFeatures\t: fp asimd sve2\n\n"
    arch = identify_microarch(parse_cpuinfo(text))
    assert arch is not None and "V2" in arch.name and arch.fp32_flop_per_cycle == 32


def test_unknown_microarchitecture_falls_back_to_flags_and_says_so():
    spec = cpu_spec(cpuinfo_text=cpuinfo("GenuineIntel", 6, 0x01, "avx2 fma"), max_freq_text="", cpus={0, 1})
    assert spec.details["fp32_flop_per_cycle_per_core"].value == 32
    assert "not in floorcalc's table" in spec.details["fp32_flop_per_cycle_per_core"].source


def fake_sysfs(root, cpus=2, l3_shared=True):
    for c in range(cpus):
        for idx, (level, kind, size, shared) in enumerate([(1, "Data", "32K", str(c)), (1, "Instruction", "32K", str(c)),
                                                          (2, "Unified", "1024K", str(c)),
                                                          (3, "Unified", "32768K", "0-1" if l3_shared else str(c))]):
            d = root / f"cpu{c}" / "cache" / f"index{idx}"
            d.mkdir(parents=True)
            for k, v in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
                (d / k).write_text(f"{v}\n")
    return root


def test_sysfs_levels_count_private_caches_per_core_and_shared_ones_once(tmp_path):
    levels = cache_levels_sysfs({0, 1}, str(fake_sysfs(tmp_path)))
    assert levels["l1"][0] == 64 * 1024 and levels["l2"][0] == 2 * 2**20 and levels["l3"][0] == 32 * 2**20
    assert "2 x 32 KiB" in levels["l1"][1]
    assert cache_levels_sysfs({0}, str(tmp_path))["l2"][0] == 2**20  # one usable CPU: one L2


def ceilings(l2=150e9, l3=100e9, dram=20e9, fp32=None):
    figures = {"l2": {"bytes_per_s": l2, "capacity_bytes": 2 * 2**20, "source": "test l2"},
               "l3": {"bytes_per_s": l3, "capacity_bytes": 32 * 2**20, "source": "test l3"},
               "dram": {"bytes_per_s": dram, "source": "test dram"}}
    if fp32:
        figures["fp32"] = {"flop_per_s_per_core": fp32, "source": "test fp32"}
    return figures


def test_cpu_spec_with_measured_ceilings_has_all_levels(tmp_path):
    spec = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1},
                    cache_root=str(fake_sysfs(tmp_path)), ceilings={"figures": ceilings()})
    names = {lv.name: lv for lv in spec.cache_levels}
    assert set(names) == {"l1", "l2", "l3"}
    assert names["l1"].bytes_per_s.basis == "derived"  # L1: from the microarchitecture's load/store width
    assert names["l1"].bytes_per_s.value == pytest.approx(2 * 96 * 2596.15e6)
    assert names["l2"].bytes_per_s.value == 150e9 and names["l2"].capacity_bytes.value == 2 * 2**20
    assert spec.mem_bytes_per_s.value == 20e9 and spec.mem_bytes_per_s.basis == "measured"


def test_a_measured_fp32_rate_above_the_derived_peak_raises_the_clock(tmp_path):
    # GIVEN a VM whose cpuinfo shows 2596 MHz while a core ran 110 GFLOP/s (3.44 GHz x 32)
    spec = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1},
                    ceilings={"figures": ceilings(fp32=110e9)})
    assert spec.peak_flop_per_s["vector.float32"].value == pytest.approx(2 * 110e9)
    assert "inferred" in spec.details["clock_mhz"].source
    # a lower measured rate leaves the derived clock alone
    low = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1},
                   ceilings={"figures": ceilings(fp32=50e9)})
    assert low.details["clock_mhz"].value == pytest.approx(2596.15)


def test_ceilings_cache_round_trip_keeps_the_higher_figure(tmp_path):
    path = tmp_path / "c.json"
    store_ceilings(ceilings(l2=150e9, dram=30e9), path)
    store_ceilings(ceilings(l2=100e9, dram=35e9), path)  # a slower L2 run (a busy machine), a faster DRAM one
    got = load_cached_ceilings(path)["figures"]
    assert got["l2"]["bytes_per_s"] == 150e9 and got["dram"]["bytes_per_s"] == 35e9


def test_ceilings_cache_is_replaced_whole_or_left_as_it_was(tmp_path, monkeypatch):
    # issue 13: the cache went through a temporary file of its own, left behind when the rename
    # failed; now floorcalc.util.output's atomic writer (force: the cache is meant to be replaced)
    path = tmp_path / "c.json"
    store_ceilings(ceilings(dram=30e9), path)
    before = path.read_bytes()
    real_replace = os.replace

    def full_disk(src, dst, *a, **k):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OutputError, match="cannot write CPU ceilings cache .*no space left") as e:
        store_ceilings(ceilings(dram=40e9), path)
    assert e.value.exit_code == 8
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["c.json"]
    monkeypatch.setattr(os, "replace", real_replace)
    store_ceilings(ceilings(dram=40e9), path)                   # over the old one: replaced, as meant
    assert load_cached_ceilings(path)["figures"]["dram"]["bytes_per_s"] == 40e9
    assert [p.name for p in tmp_path.iterdir()] == ["c.json"] and path.stat().st_mode & 0o777 != 0o600


def test_a_ceilings_cache_folder_that_cannot_be_made_is_an_output_error(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match=r"cannot write CPU ceilings cache folder .*file: it exists"):
        store_ceilings(ceilings(), tmp_path / "file" / "c.json")


def test_ceilings_cache_of_another_machine_or_damaged_is_ignored(tmp_path):
    path = tmp_path / "c.json"
    store_ceilings(ceilings(), path)
    doc = json.loads(path.read_text())
    doc["fingerprint"] = "someone-else"
    path.write_text(json.dumps(doc))
    assert load_cached_ceilings(path) is None
    path.write_text("{not json")
    assert load_cached_ceilings(path) is None
    store_ceilings(ceilings(), path)
    doc = json.loads(path.read_text())
    doc["figures"]["l2"]["bytes_per_s"] = float("inf")
    path.write_text(json.dumps(doc))
    assert load_cached_ceilings(path) is None


def test_fake_cpuinfo_never_reads_the_real_cache(tmp_path):
    store_ceilings(ceilings(dram=77e9))  # this machine's cache (FLOORCALC_CACHE_DIR of the test)
    spec = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1})
    assert spec.mem_bytes_per_s.value != 77e9 and not spec.cache_levels
    live = cpu_spec()
    assert live.mem_bytes_per_s.value == 77e9


def test_the_ceilings_cache_file_is_named_where_the_spec_came_from(tmp_path, monkeypatch):
    import json

    from floorcalc.device import cpu

    # GIVEN a ceilings cache file this machine wrote (its fingerprint), with a DRAM figure
    monkeypatch.setenv("FLOORCALC_CACHE_DIR", str(tmp_path))
    doc = {"fingerprint": cpu.machine_fingerprint(), "written": "2026-12-01T00:00:00",
           "figures": {"dram": {"bytes_per_s": 5.0e10, "source": "test"}}}
    (tmp_path / "cpu-ceilings.json").write_text(json.dumps(doc))
    spec = cpu.cpu_spec()
    # THEN the spec says it read that file, beside /proc/cpuinfo
    assert str(tmp_path / "cpu-ceilings.json") in spec.origin
    assert spec.mem_bytes_per_s.value == 5.0e10


# issue 23 (g): CPU peaks that hold

XEON_AMX_FLAGS = "sse2 avx fma avx2 avx512f avx512bw avx512vl avx512_bf16 avx512_fp16 amx_bf16 amx_fp16 amx_tile"


def test_a_xeon_the_table_takes_for_a_client_chip_is_read_from_its_measured_rates():
    # GIVEN a 2-core Xeon with AMX whose cpuinfo model the table lists as a client part (Alder
    # Lake, 32 FP32 FLOP/cycle), with one core measured at 213 GFLOP/s FP32 and 1.09 TFLOP/s BF16
    rates = {"fp32": {"flop_per_s_per_core": 213e9, "source": "test fp32"},
             "bf16": {"flop_per_s_per_core": 1.09e12, "source": "test bf16"}}
    spec = cpu_spec(cpuinfo_text=cpuinfo("GenuineIntel", 6, 0x97, XEON_AMX_FLAGS, mhz=2100.0), max_freq_text="",
                    cpus={0, 1}, ceilings={"figures": {**ceilings(), **rates}})
    # THEN the table's 32 FLOP/cycle would need a 6.66 GHz clock: the flags' 64 are taken, at 3.33 GHz
    assert spec.details["fp32_flop_per_cycle_per_core"].value == 64
    assert "would need 6,656 MHz" in spec.details["fp32_flop_per_cycle_per_core"].source
    assert spec.details["clock_mhz"].value == pytest.approx(213e9 / 64 / 1e6)
    # AND the BF16 matrix peak is the measured 2 x 1.09 TFLOP/s, not AMX's 2 x 1024 x 3.33 GHz (6.8 TFLOP/s)
    bf16 = spec.peak_flop_per_s["tensor.bfloat16"]
    assert bf16.value == pytest.approx(2 * 1.09e12) and bf16.basis == "measured"
    assert "test bf16" in bf16.source and "the derivation gave 6.82 TFLOP/s" in bf16.source
    # AND no figure of the spec is above what the machine measured for its dtype
    assert spec.peak_flop_per_s["vector.bfloat16"].value <= bf16.value
    assert spec.peak_flop_per_s["tensor.float16"].value == pytest.approx(2 * 1.09e12)   # the same AMX unit
    assert spec.peak_flop_per_s["tensor.float32"].value == pytest.approx(2 * 213e9)
    assert spec.peak_flop_per_s["tensor.float64"].value == pytest.approx(213e9)


def test_zen4_bf16_peak_is_the_measured_rate_and_a_derivation_above_a_measurement_is_not_used():
    # GIVEN this project's Zen 4 (2 cores, cpuinfo 2596 MHz), FP32 measured 113 GFLOP/s per core
    # (the clock lifted to 3.53 GHz) and BF16 212.6 (floorcalc calibrate, 2026-12-01)
    rates = {"fp32": {"flop_per_s_per_core": 113.08e9, "source": "test fp32"},
             "bf16": {"flop_per_s_per_core": 212.6e9, "source": "test bf16"}}
    spec = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1},
                    ceilings={"figures": {**ceilings(), **rates}})
    # THEN the table's Zen 4 stands (32 FLOP/cycle, 3.53 GHz is a clock that part reaches)
    assert spec.details["fp32_flop_per_cycle_per_core"].value == 32
    # AND BF16 is 2 x 212.6 GFLOP/s measured, below the derived 2 x 64 x 3.53 GHz = 452
    assert spec.peak_flop_per_s["tensor.bfloat16"].value == pytest.approx(425.2e9)
    assert spec.peak_flop_per_s["vector.bfloat16"].value == pytest.approx(425.2e9)
    # AND a part measured below its derivation (a host whose cpufreq clock it never reached) is
    # floored at what it did: 2 x 50 GFLOP/s, not 2 x 32 x 2596 MHz
    low = cpu_spec(cpuinfo_text=cpuinfo("AuthenticAMD", 25, 17, ZEN4_FLAGS), max_freq_text="", cpus={0, 1},
                   ceilings={"figures": ceilings(fp32=50e9)})
    assert low.peak_flop_per_s["tensor.float32"].value == pytest.approx(100e9)
    assert low.peak_flop_per_s["vector.float32"].value == pytest.approx(100e9)
    assert low.peak_flop_per_s["tensor.float32"].basis == "measured"
    # AND without a BF16 measurement the derivation stands, said so
    assert low.peak_flop_per_s["tensor.bfloat16"].basis == "derived"


def test_a_version_1_cache_is_read_and_its_missing_bf16_rate_measured_once(monkeypatch, tmp_path):
    from floorcalc.capture import calibrate
    from floorcalc.device import cpu

    # GIVEN only a version 1 cache (no BF16 rate), as floorcalc wrote before
    store_ceilings(ceilings(fp32=100e9), tmp_path / "cache" / cpu.CACHE_NAME_V1)
    v1 = (tmp_path / "cache" / cpu.CACHE_NAME_V1).read_bytes()
    calls = []

    def fake_rate(reps, threads, today, dtype_key="fp32", quick=False):
        calls.append(dtype_key)
        return {"flop_per_s_per_core": 190e9, "reached_by": "fake", "source": "fake bf16"}

    monkeypatch.setattr(calibrate, "_cpu_flop_rate", fake_rate)
    # WHEN a report asks for the ceilings twice
    first = calibrate.cpu_ceilings()
    second = calibrate.cpu_ceilings()
    # THEN the BF16 rate was measured once, kept in the version 2 file beside the old figures
    assert calls == ["bf16"]
    assert first["figures"]["bf16"]["flop_per_s_per_core"] == 190e9 == second["figures"]["bf16"]["flop_per_s_per_core"]
    assert second["figures"]["dram"]["bytes_per_s"] == 20e9
    assert (tmp_path / "cache" / cpu.CACHE_NAME).is_file()
    # AND the version 1 file, which an older floorcalc reads, is left as it was
    assert (tmp_path / "cache" / cpu.CACHE_NAME_V1).read_bytes() == v1


def test_the_cpu_rate_sweep_runs_each_dtype_in_that_dtype():
    import torch

    from floorcalc.capture.calibrate import _cpu_flop_work

    for key, dt in (("fp32", torch.float32), ("bf16", torch.bfloat16)):
        work = _cpu_flop_work(torch, key, quick=True)
        labels = [label for label, _, _ in work]
        assert "matmul 512^3" in labels and "linear 128x512x1408" in labels and "conv2d 64x56x56 3x3" in labels
        label, fn, flop = work[labels.index("linear 128x512x1408")]
        out = fn()
        assert out.dtype == dt and tuple(out.shape) == (128, 1408) and flop == 2 * 128 * 512 * 1408
