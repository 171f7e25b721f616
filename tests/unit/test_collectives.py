"""Collectives: read from the trace's args (the fields torch.profiler writes), counted by
nccl-tests' conventions, floored by their link, classified as communication-bound, and kept
apart from compute on the timeline (a GEMM a collective overlaps keeps its floor)."""

import dataclasses

import pytest

from builders import H200_LINKS, KinetoBuilder, h200_spec, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.counting.collectives import count_collective
from floorcalc.floor.roofline import collective_floor, collective_link
from floorcalc.records import CollectiveCall, Figure
from floorcalc.trace import parse
from floorcalc.trace.collectives import COMM_KEYS, canonical_dtype, is_comm_kernel, kind_of, parse_ranks, read_distributed_info

# the args of an NCCL kernel as torch 2.4's profiler writes them (field names and value forms
# as in HolisticTraceAnalysis' tests/data/nccl_parser_config trace; values our own)
REAL_ARGS = {"External id": 12945, "queued": 0, "device": 0, "context": 1, "stream": 40, "correlation": 60047,
             "registers per thread": 96, "shared memory": 87568, "grid": [8, 1, 1], "block": [544, 1, 1],
             "Collective name": "allreduce", "In msg nelems": 6637568, "Out msg nelems": 6637568, "Group size": 2,
             "dtype": "Float", "In split size": "[]", "Out split size": "[]", "Process Group Name": "0",
             "Process Group Description": "default_pg", "Process Group Ranks": "[0, 1]"}
DIST = {"backend": "nccl", "rank": 1, "world_size": 2, "pg_count": 1,
        "pg_config": [{"pg_name": "0", "pg_desc": "default_pg", "backend_config": "cuda:nccl", "pg_size": 2,
                       "ranks": [0, 1]}], "nccl_version": "2.17.1"}


def call(kind="all_reduce", n=2, elems=1 << 20, dtype="bfloat16", out=None, name=None):
    return CollectiveCall(kind=kind, name=name or kind, dtype=dtype, in_elements=elems,
                          out_elements=elems if out is None else out, group_size=n, group_name="0",
                          group_ranks=tuple(range(n)), seq=None, peer=None, event=None, op=None)


# ---------------------------------------------------------------------------------------------
# reading


@pytest.mark.parametrize("name, kind", [
    ("allreduce", "all_reduce"), ("all_reduce", "all_reduce"), ("allreduce_coalesced", "all_reduce"),
    ("_allgather_base", "all_gather"), ("all_gather_into_tensor_coalesced", "all_gather"),
    ("_reduce_scatter_base", "reduce_scatter"), ("reduce_scatter_tensor_coalesced", "reduce_scatter"),
    ("alltoall_base", "all_to_all"), ("all_to_allv", "all_to_all"), ("broadcast", "broadcast"),
    ("reduce", "reduce"), ("send", "send"), ("recv", "recv"), ("barrier", "barrier"), ("gather", "other"),
    ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", "all_reduce"),
    ("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "reduce_scatter"),
    ("ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", "other"),
])
def test_collective_names_normalise(name, kind):
    assert kind_of(name) == kind


def test_dtype_ranks_and_kernel_names():
    assert [canonical_dtype(d) for d in ("Float", "BFloat16", "Half", "Long", "Byte", "weird", None)] == \
        ["float32", "bfloat16", "float16", "int64", "uint8", "unknown", "unknown"]
    assert parse_ranks("[0, 1, 2]") == ((0, 1, 2), True)
    assert parse_ranks("[0, 1, ..., 63]") == ((0, 1, 63), False)     # torch cuts long lists short
    assert parse_ranks("[]") == ((), False) and parse_ranks(7) == ((), False)
    assert parse_ranks([0, "1"]) == ((0, 1), True) and parse_ranks([True]) == ((), False)
    assert parse_ranks("0, 1") == ((), False)
    # a text every collective of a group repeats is parsed once: one tuple shared by all of them
    text = "[" + ", ".join(map(str, range(64))) + "]"
    first, again = parse_ranks(text), parse_ranks(" ".join([text]))
    assert first == (tuple(range(64)), True) and again[0] is first[0]
    assert is_comm_kernel("ncclDevKernel_AllGather_RING_LL(x)") and is_comm_kernel("ncclKernel_Broadcast_RING_LL")
    assert not is_comm_kernel("sm90_xmma_gemm_bf16bf16") and not is_comm_kernel("elementwise_kernel")


def test_distributed_info_read_and_refused_when_wrong():
    d, why = read_distributed_info(DIST)
    assert why == "" and (d.rank, d.world_size, d.backend, d.nccl_version) == (1, 2, "nccl", "2.17.1")
    assert d.groups[0].name == "0" and d.groups[0].ranks == (0, 1)
    assert read_distributed_info(None) == (None, "")
    for bad in ({"rank": 2, "world_size": 2}, {"rank": "x"}, [1], "{not json"):
        d, why = read_distributed_info(bad)
        assert d is None and why


def real_trace(kernel_args=True, op_args=True, kernel_name="ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)"):
    """One all_reduce written with the real format's fields (see REAL_ARGS)."""
    b = KinetoBuilder(gpu_name="NVIDIA A100-SXM4-80GB")
    b.meta["distributedInfo"] = DIST
    b.step(0, 0.0, 3000.0)
    args = {k: v for k, v in REAL_ARGS.items() if k in COMM_KEYS}
    b.op("c10d::allreduce_", 10.0, 200.0)
    rpc = b.op("record_param_comms", 11.0, 190.0, dict(args) if op_args else {})
    b.launch(30.0, 100.0, 2636.7, kernel_name, ext=rpc, stream=40)
    if kernel_args:
        b.events[-1]["args"].update(args)
    return parse(b.to_dict())


def test_real_format_gives_one_collective_with_its_group_and_sizes():
    t = real_trace()
    assert t.distributed.rank == 1 and t.distributed.world_size == 2
    (c,) = t.collectives
    assert (c.kind, c.dtype, c.in_elements, c.out_elements, c.group_size, c.group_name, c.group_ranks) == \
        ("all_reduce", "float32", 6637568, 6637568, 2, "0", (0, 1))
    assert t.gpu[c.event].name.startswith("ncclKernel_AllReduce") and t.ops[c.op].name == "record_param_comms"


def test_older_traces_take_args_from_record_param_comms_or_only_the_kernel_name():
    # torch 2.2: the args on record_param_comms only
    (c,) = real_trace(kernel_args=False).collectives
    assert (c.kind, c.in_elements, c.group_size) == ("all_reduce", 6637568, 2)
    # before 2.2: neither; the kernel name gives the operation, the default group its size
    (c,) = real_trace(kernel_args=False, op_args=False).collectives
    assert (c.kind, c.in_elements, c.group_size, c.dtype) == ("all_reduce", None, 2, "unknown")
    comm, why = count_collective(c)
    assert comm is None and "element counts" in why


def test_work_wait_is_no_collective_and_an_op_without_kernel_is_one():
    b = KinetoBuilder()
    b.distributed(0, 2)
    b.step(0, 0.0, 500.0)
    b.op("record_param_comms", 10.0, 5.0, {"Collective name": "wait", "Group size": 1, "dtype": "Byte",
                                           "In msg nelems": 0, "Out msg nelems": 0})
    b.op("record_param_comms", 20.0, 50.0, {"Collective name": "allreduce", "Group size": 2, "dtype": "Float",
                                            "In msg nelems": 4, "Out msg nelems": 4, "Process Group Name": "1",
                                            "Process Group Ranks": "[0, 1]"})
    (c,) = parse(b.to_dict()).collectives
    assert c.kind == "all_reduce" and c.event is None and c.op is not None


def test_send_and_recv_get_their_peer():
    b = KinetoBuilder()
    b.distributed(0, 4)
    b.step(0, 0.0, 500.0)
    b.collective(10.0, 50.0, 10.0, name="send", op="c10d::send", ranks=(0, 1, 2, 3), peer=2)
    b.collective(100.0, 150.0, 10.0, name="recv", op="c10d::recv_", ranks=(0, 3), group="5")
    send, recv = parse(b.to_dict()).collectives
    assert (send.kind, send.peer) == ("send", 2)
    assert (recv.kind, recv.peer) == ("recv", 3)       # the other member of a two-rank group


# ---------------------------------------------------------------------------------------------
# counting and flooring


@pytest.mark.parametrize("kind, n, elems, out, factor, size", [
    ("all_reduce", 2, 1024, None, 1.0, 2048),
    ("all_reduce", 8, 1024, None, 2 * 7 / 8, 2048),
    ("all_gather", 4, 256, 1024, 3 / 4, 2048),          # S: the gathered output
    ("reduce_scatter", 4, 1024, 256, 3 / 4, 2048),      # S: the input before scattering
    ("all_to_all", 8, 1024, None, 7 / 8, 2048),
    ("broadcast", 8, 1024, None, 1.0, 2048),
    ("reduce", 8, 1024, None, 1.0, 2048),
    ("send", 2, 1024, None, 1.0, 2048),
    ("recv", 2, 1024, None, 1.0, 2048),
    ("all_reduce", 1, 1024, None, 0.0, 2048),           # one rank moves nothing
])
def test_link_bytes_follow_nccl_tests(kind, n, elems, out, factor, size):
    comm, why = count_collective(call(kind, n, elems, out=out))
    assert why == ""
    assert comm.message_bytes == size and comm.factor == pytest.approx(factor)
    assert comm.link_bytes == pytest.approx(size * factor)


def test_uncountable_collectives_say_why():
    assert "dtype" in count_collective(call(dtype="unknown"))[1]
    assert "convention" in count_collective(call("other", name="gather"))[1]
    assert "size" in count_collective(dataclasses.replace(call(), group_size=None))[1]


def test_collective_floor_is_link_bytes_over_bandwidth_plus_latency():
    comm, _ = count_collective(call("all_reduce", 2, 32 << 20))          # 64 MiB bf16 over 2 ranks
    spec = toy_spec(nvlink=450e9, collective_latency_us=5.0)
    f = collective_floor(comm, spec, "nvlink")
    assert f.memory_us == pytest.approx((64 << 20) / 450e9 * 1e6)        # 149.1 us
    assert f.floor_us == pytest.approx(f.memory_us + 5.0)
    assert (f.bound, f.bandwidth_key, f.compute_us) == ("communication", "nvlink", 0.0)
    # a bus bandwidth calibrate measured for that operation comes first (ranks on one host)
    meas = dataclasses.replace(spec, interconnect={**spec.interconnect, "all_reduce_bus_bytes_per_s":
                                                   Figure(360e9, "measured", "calibrate")})
    assert collective_link(meas, "all_reduce") == ("nvlink", "interconnect.all_reduce_bus_bytes_per_s",
                                                   meas.interconnect["all_reduce_bus_bytes_per_s"])
    assert collective_link(meas, "all_reduce", "nvlink")[2].value == 450e9     # asked for the link itself
    # without a collective latency, 0: the floor stays a lower bound
    assert collective_floor(comm, toy_spec(nvlink=450e9), "nvlink").overhead_us == 0.0


def test_links_without_figures_leave_collectives_unfloored_and_pcie_falls_back_to_the_host_link():
    with pytest.raises(KeyError, match="no GPU-to-GPU link"):
        collective_link(toy_spec())
    assert collective_link(toy_spec(nvlink=1e9))[0] == "nvlink"
    spec = dataclasses.replace(toy_spec(), host_link_bytes_per_s=Figure(64e9, "datasheet", "x"))
    assert collective_link(spec)[:2] == ("pcie", "host_link_bytes_per_s")       # the same port as the host link
    assert collective_link(spec, "all_reduce", "pcie")[1] == "host_link_bytes_per_s"
    with pytest.raises(KeyError, match="NIC"):
        collective_link(toy_spec(nvlink=1e9), "all_reduce", "nic")


# ---------------------------------------------------------------------------------------------
# classify and timeline


def overlap_trace(comm_dur=250.0, gemm_dur=200.0):
    """Issue 11's overlap case: a 250 us all_reduce on its own stream over a 200 us GEMM."""
    b = KinetoBuilder()
    b.distributed(0, 2)
    b.step(0, 0.0, 400.0)
    mm = b.op("aten::mm", 10.0, 10.0, tensor_args([8192, 4096], [4096, 2048], dtype="bfloat16"))
    b.launch(12.0, 60.0, gemm_dur, "sm90_xmma_gemm_bf16bf16_bf16f32", ext=mm, stream=7)
    b.collective(20.0, 40.0, comm_dur, nelems=8192 * 2048, stream=20)
    return parse(b.to_dict())


def test_collectives_are_communication_bound_rows_on_their_link():
    rep = build_report(overlap_trace(), h200_spec())
    row = next(r for r in rep.ops if r.name == "c10d::allreduce_")
    assert (row.bound, row.level, row.flop) == ("communication", "nvlink", 0)
    assert row.bytes == 8192 * 2048 * 2                     # 2(n-1)/n x S, n = 2
    assert row.floor_us == pytest.approx(row.bytes / 450e9 * 1e6 + 5.0)
    k = next(k for k in rep.kernels if k.name.startswith("ncclDevKernel"))
    assert k.bound == "communication" and k.floor_us == pytest.approx(row.floor_us)
    # link bytes are no DRAM traffic
    mm = next(r for r in rep.ops if r.name == "aten::mm")
    assert rep.summary.bytes == pytest.approx(mm.bytes)


def test_a_spec_without_links_leaves_collectives_uncounted_with_the_reason():
    rep = build_report(overlap_trace(), toy_spec())
    row = next(r for r in rep.ops if r.name == "c10d::allreduce_")
    assert row.bound == "uncounted" and "link bandwidth" in row.note


def test_a_gemm_overlapped_by_a_collective_keeps_its_floor():
    # GIVEN a 250 us all_reduce [40, 290] over a 200 us GEMM [60, 260] on another stream
    rep = build_report(overlap_trace(), h200_spec())
    t = rep.timeline
    d = t.decomposition
    gemm_floor = next(r for r in rep.ops if r.name == "aten::mm").floor_us
    # THEN the GEMM owns its 200 us (floor + excess), and the floor is its own, not 0
    assert d.floor_us == pytest.approx(gemm_floor)
    assert d.floor_us + d.excess_us == pytest.approx(200.0)
    assert d.bound != "other" and d.other_parts_us["unfloored_kernels"] == 0.0
    # and the collective's other 50 us are exposed communication, 200 us hidden
    c = t.communication
    assert (c.comm_us, c.hidden_us, c.exposed_us) == pytest.approx((250.0, 200.0, 50.0))
    assert d.communication_us == pytest.approx(50.0)
    assert sum(getattr(d, p) for p in d.PARTS) == pytest.approx(d.wall_us)
    (ct,) = t.collectives
    assert [(round(a, 6), round(b, 6), part) for a, b, part in ct.exposed] == \
        [(0.0, 20.0, "communication"), (220.0, 250.0, "communication")]


def test_the_lead_in_names_what_the_rank_did_before_its_collective():
    b = KinetoBuilder()
    b.distributed(0, 2)
    b.step(0, 0.0, 2000.0)
    b.module("mlp", 400.0, 100.0)
    slow = b.op("aten::randn", 10.0, 300.0)                          # host busy in an op, device idle
    mm = b.op("aten::mm", 400.0, 10.0, tensor_args([64, 64], [64, 64]))
    b.launch(402.0, 420.0, 100.0, "gemm", ext=mm)
    b.collective(430.0, 520.0, 50.0, nelems=64 * 64)
    (ct,) = build_report(parse(b.to_dict()), h200_spec()).timeline.collectives
    kinds = [(s.kind, s.name) for s in ct.lead_in]
    assert kinds[-1] == ("kernel", "aten::mm") and ct.lead_in[-1].end_us == pytest.approx(0.0)
    assert ("python", "aten::randn") in kinds
    assert ct.lead_in[0].start_us == pytest.approx(-520.0)            # back to the window's start
    del slow


def test_a_collective_faster_than_its_link_is_flagged_as_a_link_figure_not_a_cache():
    # GIVEN an all_reduce of 64 MiB over two ranks that took 50 us: 1.3 TB/s, above 450 GB/s
    b = KinetoBuilder()
    b.distributed(0, 2)
    b.step(0, 0.0, 200.0)
    b.collective(10.0, 40.0, 50.0, nelems=32 << 20)
    rep = build_report(parse(b.to_dict()), h200_spec())
    (w,) = [w for w in rep.warnings if w.level == "op" and w.figure == "bytes_per_s"]
    assert w.cause == "wrong_spec" and "link" in w.detail and "cache" not in w.detail


def test_lead_in_spans_and_collective_calls_pickle_by_their_fields():
    # GIVEN the records a rank's collectives carry back from a worker of a run
    import dataclasses
    import pickle

    from floorcalc.records import ActivitySpan, CollectiveCall

    span, older = ActivitySpan(-3.5, -1.0, "kernel", "aten::mm"), ActivitySpan(-9.0, -3.5, "python", "", 0.25)
    call = CollectiveCall(kind="all_reduce", name="allreduce", dtype="bfloat16", in_elements=4, out_elements=4,
                          group_size=2, group_name="0", group_ranks=(0, 1), seq=3, peer=None, event=7, op=2)
    for rec in (span, older, call):
        # WHEN one is pickled and read back (as ProcessPoolExecutor and Dask do)
        back = pickle.loads(pickle.dumps(rec, protocol=pickle.HIGHEST_PROTOCOL))
        # THEN it is the same record: class, every field, equality, hash, still frozen
        assert type(back) is type(rec) and back == rec and hash(back) == hash(rec)
        assert dataclasses.astuple(back) == dataclasses.astuple(rec)
        with pytest.raises(dataclasses.FrozenInstanceError):
            back.kind = "other"  # type: ignore[misc]
    # AND the pickle says the class and the fields, not a state dict per record
    assert b"rebuild" in pickle.dumps(span)
