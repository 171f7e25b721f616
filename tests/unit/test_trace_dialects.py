"""Issue 17 item 7: traces of older Kineto releases, ROCm, MTIA and PrivateUse1 devices, and
string pids/tids are read, and the dialect is named in the notes (fixtures: tests/data/dialects)."""

import json

import pytest

import golden
from floorcalc.cli import main
from floorcalc.trace import load

D = golden.DATA / "dialects"


def test_older_kineto_categories_and_lower_case_external_id():
    tr = load(D / "old_kineto.json")
    assert any(n.startswith("older Kineto format") and "Kernel as kernel" in n and "Runtime as cuda_runtime" in n
               for n in tr.notes)
    assert [o.name for o in tr.ops] == ["aten::mm"] * 3 + ["aten::copy_"]
    # each kernel joined through its Runtime call to its Operator
    assert [(g.kind, tr.ops[g.op].name) for g in tr.gpu] == [("kernel", "aten::mm")] * 3 + [("memcpy", "aten::copy_")]
    assert tr.gpu[-1].bytes == 1048576
    # "Input dims" without types: shapes of unknown dtype
    assert tr.ops[0].call.args[0].shape == (64, 128)


def test_rocm_hip_calls():
    tr = load(D / "rocm_hip.json")
    assert any(n.startswith("ROCm trace") for n in tr.notes)
    assert [tr.runtime[g.launch].name for g in tr.gpu] == ["hipExtModuleLaunchKernel", "hipLaunchKernel",
                                                          "hipMemsetAsync", "hipMemcpyAsync"]
    assert [g.kind for g in tr.gpu] == ["kernel", "kernel", "memset", "memcpy"]
    assert all(g.op is not None for g in tr.gpu)


def test_mtia_device_events_are_read_for_the_timeline():
    tr = load(D / "mtia.json")
    assert any(n.startswith("MTIA trace") for n in tr.notes)
    assert [(g.kind, g.name, g.device, g.op) for g in tr.gpu] == [("memcpy", "dma_request", 17, None),
                                                                  ("kernel", "pe_exe", 17, None)]
    assert tr.gpu[0].bytes == 8192
    assert [s.name for s in tr.device_syncs] == ["event_wait"]
    assert {r.name for r in tr.runtime} >= {"synchronizeStream", "enqueueCommand memcpyHtoDAsync"}


def test_privateuse1_and_string_pids_and_tids():
    tr = load(D / "privateuse1_string_ids.json")
    assert any(n.startswith("PrivateUse1 device trace") for n in tr.notes)
    assert any(n.startswith("string pids/tids") and "'host'" in n for n in tr.notes)
    assert len({o.tid for o in tr.ops}) == 1 and tr.ops[0].tid < 0
    assert [tr.ops[g.op].name for g in tr.gpu] == ["aten::add", "aten::add"]
    assert [s.number for s in tr.steps] == [3]


@pytest.mark.parametrize("name", ["old_kineto", "rocm_hip", "mtia", "privateuse1_string_ids"])
def test_each_dialect_is_analysed(tmp_path, name):
    out = tmp_path / "out.json"
    assert main(["analyze", str(D / f"{name}.json"), "--spec", "h200", "-o", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["timeline"] is not None
