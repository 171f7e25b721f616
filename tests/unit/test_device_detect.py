"""GPU detection through a faked pynvml, trace deviceProperties, and specs derived from clocks."""

from __future__ import annotations

import sys
import types

import pytest

from floorcalc.device import DetectedGpu, derive_spec, detect_gpu, load_spec, spec_from_trace_devices
from floorcalc.device.detect import arch_rates
from floorcalc.util.errors import SpecError
from floorcalc.records import GpuProperties


@pytest.fixture(autouse=True)
def isolated_config(tmp_path, monkeypatch):
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(tmp_path / "config"))


class NVMLError(Exception):
    pass


def fake_pynvml(*, init_fails=False, devices=None, missing=(), failing=()):
    """A stand-in for the pynvml module: ``devices`` maps index -> properties."""
    devices = devices if devices is not None else {0: H200_NVML}
    calls = {"init": 0, "shutdown": 0}
    mod = types.ModuleType("pynvml")
    mod.NVMLError = NVMLError
    mod.NVML_CLOCK_SM = 1
    mod.NVML_CLOCK_MEM = 2

    def init():
        calls["init"] += 1
        if init_fails:
            raise NVMLError("NVML Shared Library Not Found")

    def shutdown():
        calls["shutdown"] += 1

    def handle(i):
        if i not in devices:
            raise NVMLError("Invalid Argument")
        return devices[i]

    def prop(name, fn):
        def call(*args):
            if name in failing:
                raise NVMLError("Not Supported")
            return fn(*args)
        if name not in missing:
            setattr(mod, name, call)

    mod.nvmlInit = init
    mod.nvmlShutdown = shutdown
    mod.nvmlDeviceGetHandleByIndex = handle
    prop("nvmlDeviceGetName", lambda h: h["name"])
    prop("nvmlDeviceGetMaxClockInfo", lambda h, clock: h["sm_clock"] if clock == 1 else h["mem_clock"])
    prop("nvmlDeviceGetMemoryBusWidth", lambda h: h["bus"])
    prop("nvmlDeviceGetMaxPcieLinkGeneration", lambda h: h["pcie_gen"])
    prop("nvmlDeviceGetMaxPcieLinkWidth", lambda h: h["pcie_width"])
    prop("nvmlDeviceGetMemoryInfo", lambda h: types.SimpleNamespace(total=h["memory"], free=0, used=0))
    prop("nvmlDeviceGetCudaComputeCapability", lambda h: h["cc"])
    prop("nvmlDeviceGetNumGpuCores", lambda h: h["cores"])
    prop("nvmlSystemGetDriverVersion", lambda: "560.35.03")
    mod.calls = calls
    return mod


#: What NVML reports on an H200 SXM (name as bytes, as older pynvml versions return it).
H200_NVML = {
    "name": b"NVIDIA H200", "sm_clock": 1980, "mem_clock": 3201, "bus": 6144, "pcie_gen": 5,
    "pcie_width": 16, "memory": 150754820096, "cc": (9, 0), "cores": 16896,
}


def install(monkeypatch, module):
    monkeypatch.setitem(sys.modules, "pynvml", module)
    return module


# --------------------------------------------------------------------------------------------
# detect_gpu


def test_detect_gpu_reads_every_property(monkeypatch):
    nvml = install(monkeypatch, fake_pynvml())

    gpu = detect_gpu()

    assert gpu == DetectedGpu(
        index=0, name="NVIDIA H200", sm_clock_max_mhz=1980, mem_clock_max_mhz=3201,
        memory_bus_width_bits=6144, pcie_gen_max=5, pcie_width_max=16, total_memory_bytes=150754820096,
        compute_capability="9.0", cuda_cores=16896, driver_version="560.35.03",
    )
    assert nvml.calls == {"init": 1, "shutdown": 1}


def test_detect_gpu_without_pynvml_is_none(monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError

    assert detect_gpu() is None


def test_detect_gpu_when_nvml_init_fails_is_none(monkeypatch):
    install(monkeypatch, fake_pynvml(init_fails=True))

    assert detect_gpu() is None


def test_detect_gpu_with_no_such_index_is_none_and_shuts_nvml_down(monkeypatch):
    nvml = install(monkeypatch, fake_pynvml())

    assert detect_gpu(3) is None
    assert nvml.calls["shutdown"] == 1


def test_detect_gpu_leaves_unsupported_properties_none(monkeypatch):
    install(monkeypatch, fake_pynvml(missing=("nvmlDeviceGetNumGpuCores",),
                                     failing=("nvmlDeviceGetMemoryBusWidth", "nvmlDeviceGetCudaComputeCapability")))

    gpu = detect_gpu()

    assert gpu.name == "NVIDIA H200"
    assert gpu.cuda_cores is None
    assert gpu.memory_bus_width_bits is None
    assert gpu.compute_capability is None
    assert gpu.sm_clock_max_mhz == 1980


def test_detected_name_matches_a_spec(monkeypatch):
    install(monkeypatch, fake_pynvml())

    from floorcalc.device import resolve_spec

    assert resolve_spec("cuda", gpu_name=detect_gpu().name).key == "h200"


# --------------------------------------------------------------------------------------------
# spec_from_trace_devices


def test_spec_from_trace_devices_matches_the_first_gpu():
    devices = (
        GpuProperties(0, "NVIDIA A100-SXM4-80GB", 85899345920, 108, "8.0"),
        GpuProperties(1, "NVIDIA H200", 150754820096, 132, "9.0"),
    )

    assert spec_from_trace_devices(devices).key == "a100-sxm-80gb"


def test_spec_from_trace_devices_none():
    assert spec_from_trace_devices(()) is None
    assert spec_from_trace_devices((GpuProperties(0, "NVIDIA Z9", None, None, None),)) is None


# --------------------------------------------------------------------------------------------
# derive_spec


H100_DETECTED = DetectedGpu(
    index=0, name="NVIDIA H100 80GB HBM3", sm_clock_max_mhz=1980, mem_clock_max_mhz=2619,
    memory_bus_width_bits=5120, pcie_gen_max=5, pcie_width_max=16, total_memory_bytes=85520809984,
    compute_capability="9.0", cuda_cores=16896,
)


def test_derive_spec_comes_close_to_the_datasheet():
    derived = derive_spec(H100_DETECTED)
    sheet = load_spec("h100-sxm")

    assert derived.key == "derived-nvidia-h100-80gb-hbm3"
    assert derived.details["sm_count"].value == 132
    # The whitepaper's tensor peaks use 1830 MHz; the derived ones use the 1980 MHz maximum.
    assert derived.peak_flop_per_s["tensor.bfloat16"].value == pytest.approx(132 * 4096 * 1980e6)
    assert derived.peak_flop_per_s["tensor.bfloat16"].value == pytest.approx(
        sheet.peak_flop_per_s["tensor.bfloat16"].value, rel=0.1)
    assert derived.peak_flop_per_s["vector.float32"].value == pytest.approx(sheet.peak_flop_per_s["vector.float32"].value, rel=0.01)
    assert derived.mem_bytes_per_s.value == pytest.approx(3.35e12, rel=0.01)
    assert derived.host_link_bytes_per_s.value == pytest.approx(63e9, rel=0.01)


def test_derived_figures_say_so_and_give_the_formula():
    derived = derive_spec(H100_DETECTED)

    for fig in derived.peak_flop_per_s.values():
        assert fig.basis == "derived"
        assert "132 SMs x" in fig.source and "1980 MHz" in fig.source and "Hopper" in fig.source
    assert derived.mem_bytes_per_s.basis == "derived"
    assert "2619 MHz" in derived.mem_bytes_per_s.source and "5120-bit" in derived.mem_bytes_per_s.source
    assert derived.launch_latency_us.basis == "assumed"


def test_derive_spec_for_gddr_memory():
    l4 = DetectedGpu(index=0, name="NVIDIA L4", sm_clock_max_mhz=2040, mem_clock_max_mhz=6251,
                     memory_bus_width_bits=192, compute_capability="8.9")

    derived = derive_spec(l4, sm_count=58)

    assert derived.mem_bytes_per_s.value == pytest.approx(300e9, rel=0.01)
    assert derived.peak_flop_per_s["tensor.float8"].value == pytest.approx(242.5e12, rel=0.02)
    assert derived.host_link_bytes_per_s is None


def test_derive_spec_needs_its_inputs():
    no_cc = DetectedGpu(index=0, name="X", sm_clock_max_mhz=1500, mem_clock_max_mhz=1000, memory_bus_width_bits=256)
    with pytest.raises(SpecError, match="compute capability is unknown"):
        derive_spec(no_cc, sm_count=10)
    with pytest.raises(SpecError, match="SM count is unknown"):
        derive_spec(no_cc, compute_capability="8.6")
    no_bus = DetectedGpu(index=0, name="X", sm_clock_max_mhz=1500, mem_clock_max_mhz=1000)
    with pytest.raises(SpecError, match="bus width"):
        derive_spec(no_bus, sm_count=10, compute_capability=(8, 6))
    with pytest.raises(SpecError, match="no architecture table for compute capability 3.5"):
        derive_spec(no_cc, sm_count=10, compute_capability="3.5")


def test_arch_rates_falls_back_within_a_major_version():
    assert arch_rates("8.7")[0] == (8, 6)
    assert arch_rates((10, 3))[0] == (10, 0)
    assert arch_rates("9.0")[1].name == "Hopper"
    with pytest.raises(SpecError):
        arch_rates("nine")
