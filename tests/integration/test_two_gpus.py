"""One process driving two GPUs (issue 23 a), on a trace built as Kineto writes one of a pipeline
split across cuda:0 and cuda:1 (no second GPU was lent: tests/builders.py KinetoBuilder, two
devices' lanes pid 0 and 1, the peer copy as CUPTI's memcpy2 record): a lane per device with its
own busy, idle, decomposition and MFU; the pass's MFU against both devices' peaks; the peer copy
floored at NVLink, not at DRAM."""

import pytest

from builders import KinetoBuilder, tensor_args
from floorcalc.analysis.driver import build_report
from floorcalc.device import load_spec
from floorcalc.trace import parse

GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel"
COPY_BYTES = 64 << 20


def pipeline(passes: int = 2) -> KinetoBuilder:
    """Per 600 us pass: stage 1's 4096^3 bf16 GEMM on cuda:0 (200 us), the activations copied to
    cuda:1 (64 MiB in 168 us, 89% of NVLink's 450 GB/s), stage 2's GEMM on cuda:1 (200 us)."""
    b = KinetoBuilder(gpus=2)
    for p in range(passes):
        t = p * 600.0
        b.step(p, t, 600.0)
        mm0 = b.op("aten::mm", t + 1.0, 8.0, tensor_args([4096, 4096], [4096, 4096], dtype="bfloat16"))
        b.launch(t + 2.0, t + 10.0, 200.0, GEMM, ext=mm0, device=0)
        cp = b.op("aten::copy_", t + 12.0, 5.0, tensor_args([8192, 4096], [8192, 4096], dtype="bfloat16"))
        b.peer_copy(t + 13.0, t + 212.0, 168.0, COPY_BYTES, src=0, dst=1, ext=cp)
        mm1 = b.op("aten::mm", t + 20.0, 8.0, tensor_args([4096, 4096], [4096, 4096], dtype="bfloat16"))
        b.launch(t + 21.0, t + 385.0, 200.0, GEMM, ext=mm1, device=1)
    return b


@pytest.fixture(scope="module")
def rep():
    return build_report(parse(pipeline().to_dict()), load_spec("h200"))


def test_the_reader_keeps_each_device_and_the_copys_peer(rep):
    tr = parse(pipeline().to_dict())
    copies = [e for e in tr.gpu if e.kind == "memcpy"]
    assert {e.device for e in tr.gpu if e.kind == "kernel"} == {0, 1}
    assert all(e.device == 0 and e.peer_device == 1 for e in copies)


def test_a_lane_per_device_with_its_own_busy_idle_and_mfu(rep):
    spec = load_spec("h200")
    peak = spec.peak_flop_per_s["tensor.bfloat16"].value
    lanes = {lane.device: lane for lane in rep.timeline.devices}
    assert set(lanes) == {0, 1}
    # cuda:0 ran the GEMM and the copy (368 us), cuda:1 its GEMM (200 us); the pass's union 568 us
    assert lanes[0].busy_us == pytest.approx(368.0) and lanes[1].busy_us == pytest.approx(200.0)
    assert rep.summary.gpu_busy_us == pytest.approx(568.0)
    wall = rep.summary.wall_us
    assert lanes[0].idle_us == pytest.approx(wall - 368.0) and lanes[1].idle_us == pytest.approx(wall - 200.0)
    # each device's MFU against its own peak; the pass's against the sum of the two
    gemm = 2 * 4096 ** 3
    assert lanes[0].mfu == pytest.approx(gemm / (wall * 1e-6) / peak)
    assert lanes[1].mfu == pytest.approx(gemm / (wall * 1e-6) / peak)
    assert rep.summary.devices == 2
    assert rep.summary.mfu == pytest.approx(2 * gemm / (wall * 1e-6) / (2 * peak))
    assert lanes[0].peer_copy_bytes == COPY_BYTES and lanes[1].peer_copy_bytes == 0
    # AND each lane's decomposition adds up to the pass; cuda:1's wait for cuda:0 is other_device
    for lane in lanes.values():
        d = lane.decomposition
        assert d.residual_us == pytest.approx(0.0, abs=1e-6) and d.wall_us == pytest.approx(wall)
    # (cuda:1 idled through all 368 us of cuda:0's work, cuda:0 through cuda:1's 200 us GEMM)
    assert lanes[1].decomposition.idle_by_cause_us["other_device"] == pytest.approx(368.0)
    assert lanes[0].decomposition.idle_by_cause_us["other_device"] == pytest.approx(200.0)
    assert any("2 GPUs in one process" in n.text for n in rep.notes)
    assert any("x 2 devices (the sum of their peaks)" in n.text for n in rep.notes)


def test_the_peer_copy_is_floored_at_nvlink(rep):
    spec = load_spec("h200")
    nvlink = spec.interconnect["nvlink_bytes_per_s"].value
    (row,) = [r for r in rep.ops if r.name == "aten::copy_"]
    # 64 MiB once over 450 GB/s: 149 us, so the 168 us copy ran at 89% (at DRAM's 2 x bytes / 4.8 TB/s
    # it was floored at 28 us: 17%)
    assert row.level == "nvlink" and row.memory_us == pytest.approx(COPY_BYTES / nvlink * 1e6)
    assert row.efficiency == pytest.approx((COPY_BYTES / nvlink * 1e6 + spec.launch_latency_us.value) / 168.0, rel=1e-3)
    copy = rep.timeline.copies[0]
    assert copy.link in ("nvlink", "pcie") and copy.floor_us == pytest.approx(COPY_BYTES / nvlink * 1e6
                                                                            + spec.launch_latency_us.value)


def test_one_device_has_no_lanes_and_the_single_peak():
    b = KinetoBuilder()
    b.step(0, 0.0, 300.0)
    mm = b.op("aten::mm", 1.0, 8.0, tensor_args([4096, 4096], [4096, 4096], dtype="bfloat16"))
    b.launch(2.0, 10.0, 200.0, GEMM, ext=mm)
    rep = build_report(parse(b.to_dict()), load_spec("h200"))
    assert rep.timeline.devices == () and rep.summary.devices == 1
    assert rep.timeline.decomposition.idle_by_cause_us["other_device"] == 0.0
