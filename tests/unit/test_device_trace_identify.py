"""The GPU from a trace's deviceProperties (issue 17, item 5): board and OEM names, GCDs shown
under generic names, parts no spec matches (a derived spec with a warning), and None cleanly."""

import pytest

from builders import KinetoBuilder
from floorcalc.device import identify_trace_gpu, spec_from_trace_devices
from floorcalc.records import GpuProperties
from floorcalc.trace import parse


def gpu(name, mem_gb, sms, cc, warp, gfx=None):
    return GpuProperties(0, name, int(mem_gb * 1e9) if mem_gb else None, sms, cc, warp, gfx)


@pytest.mark.parametrize("props, key, how", [
    (gpu("NVIDIA A100-PG509-200", 42.3, 108, "8.0", 32), "a100-sxm-40gb", "name"),   # HTA's traces
    (gpu("NVIDIA H100 80GB HBM3", 85.0, 132, "9.0", 32), "h100-sxm", "name"),
    (gpu("NVIDIA H800", 85.0, 132, "9.0", 32), "h800", "name"),
    (gpu("NVIDIA GH200 480GB", 102.0, 132, "9.0", 32), "gh200", "name"),
    (gpu("NVIDIA L40S", 48.3, 142, "8.9", 32), "l40s", "name"),
    (gpu("NVIDIA H200", 150.1, 132, "9.0", 32), "h200", "name"),
    (gpu("AMD Instinct MI210", 68.7, 104, "9.0", 64, "gfx90a:sramecc+:xnack-"), "mi210", "name"),
    (gpu("AMD Instinct MI300X", 205.8, 304, "9.4", 64, "gfx942:sramecc+:xnack-"), "mi300x", "name"),
    (gpu("AMD Instinct MI355X", 309.2, 256, "9.5", 64, "gfx950"), "mi355x", "name"),
    # an MI250 GCD as HTA's traces show it: a generic name, warp 64, 104 CUs, 64 GB
    (gpu("AMD Radeon Graphics", 68.7, 104, "9.0", 64), "mi250-gcd", "properties"),
    # ROCm's shared name for both modules: the CU count decides
    (gpu("AMD Instinct MI250X/MI250", 68.7, 110, "9.0", 64, "gfx90a"), "mi250x-gcd", "name"),
    (gpu("AMD Instinct MI250X/MI250", 68.7, 104, "9.0", 64, "gfx90a"), "mi250-gcd", "properties"),
    # the name says H100; 114 SMs say the PCIe part
    (gpu("NVIDIA H100", 85.0, 114, "9.0", 32), "h100-pcie", "properties"),
])
def test_known_parts(props, key, how):
    m = identify_trace_gpu(props)
    assert m.spec is not None and m.spec.key == key and m.how == how
    if how == "properties":
        assert m.warning and key in m.warning


def test_a_part_no_spec_matches_gets_a_derived_spec_with_a_warning():
    m = identify_trace_gpu(gpu("NVIDIA H20", 101.0, 78, "9.0", 32))
    assert m.how == "derived" and m.spec.key == "derived-nvidia-h20"
    ref_sms = 114  # nearest Hopper spec by SM count: the H100 PCIe
    h100 = identify_trace_gpu(gpu("NVIDIA H100", 85.0, 114, "9.0", 32)).spec
    assert m.spec.peak_flop_per_s["tensor.bfloat16"].value == pytest.approx(
        h100.peak_flop_per_s["tensor.bfloat16"].value * 78 / ref_sms)
    assert m.spec.peak_flop_per_s["tensor.bfloat16"].basis == "derived"
    assert m.spec.mem_bytes_per_s.basis == "assumed"
    assert "NVIDIA H20" in m.warning and "--spec" in m.warning


def test_nothing_to_derive_from_is_none_cleanly():
    for props in (gpu("Mystery GPU", None, None, None, None), gpu("", None, None, None, None),
                  gpu("NVIDIA Z1", 10.0, 20, "99.0", 32)):
        m = identify_trace_gpu(props)
        assert m.spec is None and m.how == "none" and "--spec" in m.warning
    assert spec_from_trace_devices(()) is None


def test_the_trace_reader_keeps_warp_size_and_gfx_arch():
    b = KinetoBuilder()
    b.step(0, 0.0, 10.0)
    b.launch(2.0, 3.0, 2.0, ext=b.op("aten::relu", 1.0, 5.0))
    d = b.to_dict()
    d["deviceProperties"] = [{"id": 0, "name": "AMD Radeon Graphics", "totalGlobalMem": 68702699520,
                              "computeMajor": 9, "computeMinor": 0, "numSms": 104, "warpSize": 64,
                              "gcnArchName": "gfx90a:sramecc+:xnack-"}]
    trace = parse(d)
    p = trace.devices[0]
    assert p.warp_size == 64 and p.gcn_arch_name == "gfx90a:sramecc+:xnack-"
    assert spec_from_trace_devices(trace.devices).key == "mi250-gcd"


def test_packaged_headers_are_what_the_whole_file_gives():
    """match_by_name reads the packaged specs' key, name and nvml_names entries alone: for
    every shipped file they are the whole file's, and the match is match_spec's over every spec."""
    from floorcalc.device import spec as s

    paths = s._spec_files(s.packaged_dir())
    for path, whole in zip(paths, s._packaged_specs()):
        head = s._read_header(path)
        assert head is not None, path
        assert (head.key, head.name, head.nvml_names) == (whole.key, whole.name, whole.nvml_names)
    every = s.list_specs()
    names = [n for sp in every for n in (*sp.nvml_names, sp.name)] + [
        "NVIDIA H100", "nvidia h200", "NVIDIA H200 NVL 141GB", "AMD Instinct MI250X/MI250", "Tesla T4", "GPU", "X"]
    for name in names:
        want, got = s.match_spec(name, every), s.match_by_name(name)
        assert (want.key if want else None) == (got.key if got else None), name
        assert want == got, name


@pytest.mark.parametrize("text", [
    "key: a\nname: A\nnvml_names:\n- A\n",            # a block sequence at column 0
    "key: a\n\"name\": A\n",                           # a quoted key
    "---\nkey: a\nname: A\n",                          # a document marker
    "key: a\nname: A\nname: B\n",                      # a repeated entry
    "key: a\nnvml_names: [A]\n",                       # no name
    "key: a\nname: A\nnvml_names: [A, 3]\n",           # not a list of names
    "key: b\nname: A\n",                               # the key is not the file's stem
])
def test_a_header_laid_out_otherwise_is_read_whole(tmp_path, text):
    from floorcalc.device import spec as s

    path = tmp_path / "a.yaml"
    path.write_text(text)
    assert s._read_header(path) is None


def test_a_header_entry_may_run_over_lines(tmp_path):
    from floorcalc.device import spec as s

    path = tmp_path / "a.yaml"
    path.write_text("# c\nkey: a\nname: NVIDIA\n  A  # folded\nnvml_names:\n  - \"NVIDIA A\"\n  # c\n  - B\nkind: gpu\n")
    head = s._read_header(path)
    assert head is not None and (head.key, head.name, head.nvml_names) == ("a", "NVIDIA A", ("NVIDIA A", "B"))
