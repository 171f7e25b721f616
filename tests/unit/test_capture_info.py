"""The capture record: written by capture as the trace's ``floorcalc`` metadata, read back once
by the trace reader, equal to what was written; bad metadata is said, never raised."""

import json

from builders import KinetoBuilder
from floorcalc.records import CaptureInfo, Figure, GeneratedKernel
from floorcalc.trace import parse
from floorcalc.trace.capture_info import capture_metadata, read_capture_info

FULL = CaptureInfo(
    recorded=True, capture_command="floorcalc report m.py", floorcalc_version="0.1.0", device="cuda",
    gpu_name="NVIDIA H200", model_file="m.py", warmup=3, iters=5, torch_version="2.11.0", cuda_version="13.0",
    allow_tf32=False, cudnn_allow_tf32=False, float32_matmul_precision="highest", sm_count=132,
    compute_capability="9.0", bare_wall_us=100.5, bare_wall_us_runs=(101.0, 100.5, 99.0),
    profiled_no_shapes_wall_us=120.0, launch_latency=Figure(0.8, "measured", "probe"),
    cpu_bandwidth=Figure(2e10, "measured", "stream"), cpu_name="Some CPU",
    cpu_peak_flop_per_s={"vector.float32": Figure(1e12, "derived", "cores x clock")}, cuda_graphs=False,
    compile=True, inductor_kernels={"triton_poi_0": (GeneratedKernel(10, 20, "float32", "vector", "fx", "g0"),)},
)


def test_what_capture_writes_reads_back_equal():
    meta = json.loads(json.dumps(capture_metadata(FULL)))  # as the profiler stores it
    assert read_capture_info(meta) == FULL
    assert read_capture_info(json.dumps(meta)) == FULL     # or as JSON text


def test_the_reader_puts_it_on_the_trace():
    b = KinetoBuilder()
    b.meta["floorcalc"] = capture_metadata(FULL)
    b.op("aten::relu", 0.0, 1.0)
    assert parse(b.to_dict()).capture == FULL
    plain = KinetoBuilder()
    plain.op("aten::relu", 0.0, 1.0)
    assert parse(plain.to_dict()).capture == CaptureInfo()  # not captured by floorcalc: nothing known


def test_bad_metadata_is_said_not_raised():
    info = read_capture_info({"warmup": "three", "device": "tpu", "iters": 2,
                              "inductor_kernels": {"k": [{"flop": 1}]}})
    assert info.recorded and info.iters == 2 and info.warmup is None and info.device is None
    assert not info.inductor_kernels
    assert len(info.problems) == 3 and any("warmup" in p for p in info.problems)
    assert read_capture_info("{not json").problems


def test_a_quick_capture_reads_back_equal_and_others_write_no_quick_keys():
    import dataclasses

    quick = dataclasses.replace(FULL, quick=True, timed_passes=3, bare_wall_us_runs=(100.5,),
                                profiled_no_shapes_wall_us=None, quick_not_measured=("the profiler's own cost",),
                                quick_without_spread=("the unprofiled step", "each op's time"))
    meta = json.loads(json.dumps(capture_metadata(quick)))
    assert meta["quick"] is True and meta["timed_passes"] == 3
    assert read_capture_info(meta) == quick
    # a capture that is not quick writes the metadata it always wrote
    assert not {"quick", "timed_passes", "quick_not_measured", "quick_without_spread"} & set(capture_metadata(FULL))
    bad = read_capture_info({"quick": True, "quick_not_measured": "one string"})
    assert bad.quick and bad.quick_not_measured == () and any("quick_not_measured" in p for p in bad.problems)


import pytest

from floorcalc.cli import main
from floorcalc.util.errors import DocumentError


@pytest.mark.parametrize("meta, key, words", [
    ({"launch_latency_us": -5, "launch_latency_source": "probe"}, "launch_latency_us", "negative"),
    ({"cpu_peak_flop_per_s": {"vector.float32": [0, "derived", "cores x clock"]}}, "cpu_peak_flop_per_s", "not positive"),
    ({"cpu_bandwidth_bytes_per_s": -1.0}, "cpu_bandwidth_bytes_per_s", "not positive"),
    ({"sm_count": 0}, "sm_count", "not positive"),
    ({"bare_wall_us_runs": [1.0, -2.0]}, "bare_wall_us_runs[1]", "negative"),
])
def test_a_figure_out_of_range_is_refused_naming_its_key(meta, key, words):
    with pytest.raises(DocumentError) as e:
        read_capture_info(meta)
    assert e.value.out_of_range and e.value.path.startswith(f"capture metadata: {key}") and words in str(e.value)


def test_a_trace_whose_metadata_has_a_negative_launch_latency_is_one_line_exit_6(tmp_path, capsys):
    b = KinetoBuilder()
    b.meta["floorcalc"] = {"device": "cuda", "launch_latency_us": -5, "launch_latency_source": "edited"}
    b.op("aten::relu", 0.0, 1.0)
    trace = b.write(tmp_path / "t.json")
    assert main(["analyze", str(trace), "-o", str(tmp_path / "r.json")]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "capture metadata: launch_latency_us: -5 is negative" in err[0], err
    assert not (tmp_path / "r.json").exists()


def test_what_capture_writes_validates_against_its_schema():
    import jsonschema

    from floorcalc.render.schemas import document_schemas

    meta = json.loads(json.dumps(capture_metadata(FULL)))
    jsonschema.validate(meta, document_schemas()["capture"])
    jsonschema.validate(json.loads(json.dumps(capture_metadata(CaptureInfo()))), document_schemas()["capture"])
