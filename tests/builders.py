"""Hand-built Kineto traces and records for tests (no torch, no GPU).

``KinetoBuilder`` writes the event shapes torch.profiler writes, so the real parser reads them;
``tensor_meta`` and ``count_op`` build op calls and count them, as the counting tests do
(``from builders import count_op as c, tensor_meta as T``); ``toy_spec`` is a device with round
figures. ``KinetoBuilder.collective`` writes a collective as torch.profiler does (``c10d::`` op,
``record_param_comms`` with the collective args, the NCCL kernel with the same args),
``KinetoBuilder.distributed`` the top-level ``distributedInfo``; ``tp_pass`` builds the ranks of
a tensor-parallel MLP pass, one of them late.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from floorcalc.counting import count
from floorcalc.records import Count, DeviceSpec, Figure, OpCall, TensorMeta

def tensor_meta(*shape: int, dtype: str = "float32") -> TensorMeta:
    """A tensor argument of ``shape`` and ``dtype``: ``tensor_meta(4, 8)`` is a [4, 8] float32."""
    return TensorMeta(tuple(shape), dtype)


def count_op(name: str, *args: Any) -> Count:
    """The count of ``aten::<name>`` called with ``args``; fails the test when no formula covers it."""
    result = count(OpCall(f"aten::{name}", tuple(args)))
    assert result is not None, f"aten::{name} is uncounted"
    return result


TYPE_NAMES = {"float32": "float", "bfloat16": "c10::BFloat16", "float16": "c10::Half", "int64": "long int"}


def tensor_args(*shapes: Sequence[int], dtype: str = "float32", scalars: Sequence[str] = ()) -> Dict[str, Any]:
    """Kineto args for an op called with tensors of ``shapes`` then Scalars given as strings."""
    dims: List[Any] = [list(s) for s in shapes] + [[] for _ in scalars]
    types = [TYPE_NAMES[dtype]] * len(shapes) + ["Scalar"] * len(scalars)
    concrete = [""] * len(shapes) + list(scalars)
    return {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete}


class KinetoBuilder:
    """Accumulates trace events; times in microseconds."""

    def __init__(self, gpu_name: Optional[str] = "NVIDIA H200", gpus: int = 1) -> None:
        self.events: List[Dict[str, Any]] = []
        self.ext = 0
        self.corr = 0
        self.gpu_name = gpu_name
        self.gpus = gpus
        self.meta: Dict[str, Any] = {}

    def op(self, name: str, ts: float, dur: float, args: Optional[Dict[str, Any]] = None, tid: int = 1) -> int:
        self.ext += 1
        a = {"External id": self.ext, **(args or {})}
        self.events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur, "args": a})
        return self.ext

    def step(self, n: int, ts: float, dur: float) -> None:
        self.events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{n}", "pid": 1, "tid": 1,
                            "ts": ts, "dur": dur, "args": {}})

    def module(self, path: str, ts: float, dur: float) -> None:
        self.events.append({"ph": "X", "cat": "user_annotation", "name": f"module: {path}", "pid": 1, "tid": 1,
                            "ts": ts, "dur": dur, "args": {}})

    def launch(self, ts: float, kernel_ts: float, kernel_dur: float, name: str = "kernel", *, ext: Optional[int] = None,
               kind: str = "kernel", nbytes: Optional[int] = None, stream: int = 7, tid: int = 1,
               runtime: str = "cudaLaunchKernel", device: int = 0) -> int:
        """A runtime call at ``ts`` (1 us long) and the device event it issues on ``device``
        (Kineto's lane: pid = the device index)."""
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": runtime, "pid": 1, "tid": tid, "ts": ts,
                            "dur": 1.0, "args": {"correlation": self.corr, "External id": ext}})
        cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}[kind]
        args: Dict[str, Any] = {"device": device, "stream": stream, "correlation": self.corr, "External id": ext}
        if nbytes is not None:
            args["bytes"] = nbytes
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": device, "tid": stream, "ts": kernel_ts,
                            "dur": kernel_dur, "args": args})
        return self.corr

    def peer_copy(self, ts: float, copy_ts: float, copy_dur: float, nbytes: int, *, src: int, dst: int,
                  ext: Optional[int] = None, stream: int = 7, tid: int = 1) -> int:
        """A copy from GPU ``src`` to GPU ``dst`` as Kineto writes CUPTI's peer-to-peer (memcpy2)
        record (libkineto/src/CuptiActivity.cpp): named ``Memcpy PtoP (Device -> Device)``, args
        ``fromDevice``/``inDevice``/``toDevice`` (no ``device``), on the lane (pid) of the device it
        ran on (``inDevice``, here ``src``), issued by a ``cudaMemcpyAsync``."""
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": tid,
                            "ts": ts, "dur": 1.0, "args": {"correlation": self.corr, "External id": ext}})
        self.events.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy PtoP (Device -> Device)", "pid": src,
                            "tid": stream, "ts": copy_ts, "dur": copy_dur,
                            "args": {"fromDevice": src, "inDevice": src, "toDevice": dst, "fromContext": 1,
                                     "inContext": 1, "toContext": 2, "stream": stream, "correlation": self.corr,
                                     "External id": ext, "bytes": nbytes,
                                     "memory bandwidth (GB/s)": nbytes / (copy_dur * 1e3)}})
        return self.corr

    def runtime(self, name: str, ts: float, dur: float, tid: int = 1) -> None:
        """A host runtime call that issues no device work (``cudaMalloc``, ``cuModuleLoadData``...)."""
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": tid, "ts": ts,
                            "dur": dur, "args": {"correlation": self.corr}})

    def orphan_kernel(self, ts: float, dur: float, name: str = "orphan") -> None:
        self.corr += 1
        self.events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
                            "args": {"device": 0, "stream": 7, "correlation": self.corr}})

    def collective(self, ts: float, kernel_ts: float, kernel_dur: float, *, name: str = "allreduce",
                   nelems: int = 1 << 20, out_nelems: Optional[int] = None, dtype: str = "BFloat16",
                   group: str = "0", ranks: Sequence[int] = (0, 1), seq: Optional[int] = None,
                   peer: Optional[int] = None, stream: int = 20, op: str = "c10d::allreduce_",
                   kernel: Optional[str] = None, kernel_args: bool = True, host_dur: float = 20.0,
                   tid: int = 1) -> Dict[str, Any]:
        """A collective as torch.profiler records it: the ``op`` (``c10d::allreduce_``) on the host
        from ``ts``, the ``record_param_comms`` op inside it with the collective args, the launch,
        and the NCCL kernel on ``stream`` (with the same args unless ``kernel_args`` is False, as
        before torch 2.3). ``peer``: a send's ``Dst Rank`` or a recv's ``Src Rank``. Returns the
        args."""
        args: Dict[str, Any] = {
            "Collective name": name, "dtype": dtype, "In msg nelems": nelems,
            "Out msg nelems": nelems if out_nelems is None else out_nelems, "Group size": len(ranks),
            "Process Group Name": group, "Process Group Description": "default_pg" if group == "0" else f"pg{group}",
            "Process Group Ranks": str(list(ranks)), "In split size": "[]", "Out split size": "[]",
        }
        if seq is not None:
            args["Seq"] = seq
        if peer is not None:
            args["Dst Rank" if name == "send" else "Src Rank"] = peer
        self.op(op, ts, host_dur, tid=tid)
        rpc = self.op("record_param_comms", ts + 1.0, host_dur - 2.0, dict(args), tid=tid)
        stem = {"allreduce": "AllReduce_Sum_bf16_RING_LL", "_allgather_base": "AllGather_RING_LL",
                "_reduce_scatter_base": "ReduceScatter_Sum_bf16_RING_LL", "broadcast": "Broadcast_RING_LL",
                }.get(name, "SendRecv")
        self.launch(ts + 2.0, kernel_ts, kernel_dur, kernel or f"ncclDevKernel_{stem}(ncclDevKernelArgsStorage<4096ul>)",
                    ext=rpc, stream=stream, tid=tid)
        if kernel_args:
            self.events[-1]["args"].update(args)
        return args

    def distributed(self, rank: int, world_size: int, groups: Sequence[Tuple[str, Sequence[int]]] = ()) -> None:
        """The top-level ``distributedInfo`` (``groups``: (name, ranks); default: one group of all)."""
        groups = groups or [("0", range(world_size))]
        self.meta["distributedInfo"] = {
            "backend": "nccl", "rank": rank, "world_size": world_size, "pg_count": len(groups),
            "pg_config": [{"pg_name": n, "pg_desc": "default_pg" if n == "0" else f"pg{n}", "backend_config": "cuda:nccl",
                           "pg_size": len(list(r)), "ranks": list(r)} for n, r in groups],
            "nccl_version": "2.21.5"}

    def shifted(self, us: float) -> "KinetoBuilder":
        """A copy whose clock runs ``us`` microseconds ahead (every event's ``ts`` moved)."""
        b = copy.deepcopy(self)
        for ev in b.events:
            if "ts" in ev:
                ev["ts"] = ev["ts"] + us
        return b

    def to_dict(self) -> Dict[str, Any]:
        # distributedInfo before the events, where Kineto writes it
        head = {"distributedInfo": self.meta["distributedInfo"]} if "distributedInfo" in self.meta else {}
        d: Dict[str, Any] = {"schemaVersion": 1, **head, "traceEvents": list(self.events),
                             **{k: v for k, v in self.meta.items() if k not in head}}
        d["deviceProperties"] = ([{"id": g, "name": self.gpu_name, "totalGlobalMem": 150754820096,
                                   "computeMajor": 9, "computeMinor": 0, "numSms": 132} for g in range(self.gpus)]
                                 if self.gpu_name else [])
        return d

    def write(self, path: Path) -> Path:
        raw = json.dumps(self.to_dict()).encode()
        path.write_bytes(gzip.compress(raw) if path.suffix == ".gz" else raw)
        return path


def toy_spec(peak: float = 1e12, bw: float = 1e9, latency_us: float = 2.0, kind: str = "gpu",
             nvlink: Optional[float] = None, collective_latency_us: Optional[float] = None) -> DeviceSpec:
    """A device with round numbers: every tensor/vector peak ``peak`` FLOP/s, ``bw`` B/s;
    ``nvlink`` B/s per direction and a collective latency when given."""
    fig = lambda v: Figure(v, "assumed", "test")  # noqa: E731
    keys = ["tensor.bfloat16", "tensor.float16", "tensor.tfloat32", "vector.float32", "vector.float64"]
    ic = {}
    if nvlink is not None:
        ic["nvlink_bytes_per_s"] = fig(nvlink)
    if collective_latency_us is not None:
        ic["collective_latency_us"] = fig(collective_latency_us)
    return DeviceSpec(key="toy", name="Toy GPU", kind=kind, peak_flop_per_s={k: fig(peak) for k in keys},
                      mem_bytes_per_s=fig(bw), launch_latency_us=fig(latency_us), origin=("test",), interconnect=ic)


#: The H200's link figures as the device spec will give them (branch ``device``: NVLink 900 GB/s
#: both directions = 450 GB/s one way, https://www.nvidia.com/en-us/data-center/h200/; an
#: assumed 5 us collective latency), for tests that floor collectives on the packaged H200 spec.
H200_LINKS = {"nvlink_bytes_per_s": Figure(450e9, "datasheet", "NVLink 900 GB/s both directions (H200 datasheet)"),
              "collective_latency_us": Figure(5.0, "assumed", "test")}


def h200_spec() -> DeviceSpec:
    """The packaged H200 spec, with :data:`H200_LINKS` where it has no interconnect figures."""
    import dataclasses

    from floorcalc.device import resolve_spec

    spec = resolve_spec("cuda", gpu_name="NVIDIA H200")
    return spec if spec.interconnect else dataclasses.replace(spec, interconnect=dict(H200_LINKS))


def tp_pass(world: int = 2, late_rank: Optional[int] = 1, late_us: float = 3000.0, tokens: int = 8192,
            hidden: int = 4096, gemm_us: float = 200.0, transfer_us: float = 241.0,
            kernel_args: bool = True) -> List[KinetoBuilder]:
    """One ProfilerStep of a tensor-parallel MLP on each of ``world`` ranks (issue 11's case):
    a column-parallel then a row-parallel bf16 matmul (``gemm_us`` each), then an all_reduce of
    the [tokens, hidden] output. Rank ``late_rank`` spends ``late_us`` more on the host (Python,
    no op) before its matmuls; every rank's all_reduce kernel starts when its matmuls end and
    all end together, ``transfer_us`` after the last one started. Times in microseconds."""
    t0 = [100.0 + (late_us if r == late_rank else 0.0) for r in range(world)]
    ready = [t + 20.0 + 2 * gemm_us for t in t0]
    end = max(ready) + transfer_us
    shard = hidden // world
    out = []
    for r in range(world):
        b = KinetoBuilder()
        b.distributed(r, world)
        b.step(0, 0.0, end + 100.0)
        t = t0[r]
        b.module("mlp", t - 5.0, 60.0)
        mm1 = b.op("aten::mm", t, 10.0, tensor_args([tokens, hidden], [hidden, shard], dtype="bfloat16"))
        b.launch(t + 2.0, t + 20.0, gemm_us, "sm90_xmma_gemm_bf16bf16_bf16f32", ext=mm1)
        mm2 = b.op("aten::mm", t + 15.0, 10.0, tensor_args([tokens, shard], [shard, hidden], dtype="bfloat16"))
        b.launch(t + 17.0, t + 20.0 + gemm_us, gemm_us, "sm90_xmma_gemm_bf16bf16_bf16f32", ext=mm2)
        b.collective(t + 30.0, ready[r], end - ready[r], nelems=tokens * hidden, ranks=range(world),
                     kernel_args=kernel_args)
        sync_ts = t + 60.0
        b.events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1,
                         "ts": sync_ts, "dur": end - sync_ts + 5.0, "args": {"correlation": 10_000 + r}})
        out.append(b)
    return out


def collective_run(world: int, schedule: Sequence[Tuple[str, Sequence[int]]], *, late: Optional[Dict[int, float]] = None,
                   gemm_us: float = 100.0, transfer_us: float = 50.0, nelems: int = 1 << 20,
                   seq: bool = False, steps: int = 1) -> List[KinetoBuilder]:
    """Every rank of a run that, each step, runs one GEMM then the collectives of ``schedule`` in
    order ((process group name, its ranks); group ``"0"`` should hold every rank). A collective
    starts on each member when that member is ready and ends on all of them ``transfer_us``
    after the last one started, as NCCL's do. ``late``: rank -> host time (us) it spends before
    its GEMM each step. ``seq``: write torch's ``Seq`` per group. Times in microseconds."""
    late = late or {}
    groups = {name: list(ranks) for name, ranks in schedule}
    if "0" not in groups:
        groups["0"] = list(range(world))
    bs = []
    for r in range(world):
        b = KinetoBuilder()
        b.distributed(r, world, [(n, rk) for n, rk in groups.items()])
        bs.append(b)
    t = [10.0] * world
    counter: Dict[str, int] = {}
    for step in range(steps):
        start = max(t)
        t = [start] * world
        for r, b in enumerate(bs):
            t[r] += late.get(r, 0.0)
            mm = b.op("aten::mm", t[r], 5.0, tensor_args([1024, 1024], [1024, 1024], dtype="bfloat16"))
            b.launch(t[r] + 1.0, t[r] + 10.0, gemm_us, "sm90_xmma_gemm_bf16bf16", ext=mm)
            t[r] += 10.0 + gemm_us
        for name, ranks in schedule:
            k = counter.get(name, 0)
            counter[name] = k + 1
            end = max(t[r] for r in ranks) + transfer_us
            for r in ranks:
                bs[r].collective(t[r] - 5.0, t[r], end - t[r], nelems=nelems, group=name, ranks=ranks,
                                 seq=k if seq else None, stream=20 + int(name))
                t[r] = end + 5.0
        for r, b in enumerate(bs):
            b.step(step, start - 5.0, max(t) - start + 10.0)
    return bs


def with_lean_passes(src: Path, dst: Path, *, sets: int = 3, shrink: float = 0.5, bare_scale: float = 0.95,
                     spread: float = 0.02) -> Dict[str, Any]:
    """Write ``dst``: the committed trace ``src`` with lean sets in its capture metadata, made
    from its own passes: each set is the window's passes again with every idle stretch ``shrink``
    times as long (device work as it was; launch calls and pass starts moved with the time
    around them), so the lean pass is faster than the rich one by a known amount; the bare sets
    ``bare_scale`` times the lean wall, ``spread`` apart. Returns the metadata written."""
    import numpy as np

    from floorcalc.capture.lean import capture_of
    from floorcalc.records import LeanSet
    from floorcalc.timeline.partition import merge
    from floorcalc.trace.window import window
    from floorcalc.trace import kineto
    from floorcalc.trace.capture_info import capture_metadata

    tr = kineto.load(src)
    win = window(tr)
    W0 = win.start_us
    ev = sorted((tr.gpu[i] for i in win.gpu_ids), key=lambda g: g.ts_us)
    bs, be = merge(np.array([g.ts_us - W0 for g in ev]), np.array([g.end_us - W0 for g in ev]))
    cum_busy = np.concatenate([[0.0], np.cumsum(be - bs)])

    def f(t: float) -> float:                       # rich window time -> lean set time
        k = int(np.searchsorted(bs, t, side="right"))
        busy = cum_busy[k - 1] + min(t, be[k - 1]) - bs[k - 1] if k else 0.0
        if k and t >= be[k - 1]:
            busy = cum_busy[k]
        return busy + (t - busy) * shrink

    names: Dict[str, int] = {}
    lean_sets = []
    length = f(win.wall_us)
    for _ in range(sets):
        rows = []
        for g in ev:
            call = g.graph_launch if g.graph_launch is not None else g.launch
            lt = f(tr.runtime[call].ts_us - W0) if call is not None else -1.0
            ld = tr.runtime[call].duration_us * shrink if call is not None else -1.0
            kind = {"kernel": 0, "memcpy": 1, "memset": 2}[g.kind]
            rows.append((f(g.ts_us - W0), g.device, g.stream, kind, names.setdefault(g.name, len(names)),
                         g.duration_us, g.bytes if g.bytes is not None else -1, lt, ld))
        cols = list(zip(*rows))
        lean_sets.append(LeanSet(
            wall_us=length / win.passes, length_us=length,
            pass_starts_us=tuple(f(s.ts_us - W0) for s in tr.steps), clock_check_us=0.0,
            ts_us=cols[0], device=cols[1], stream=cols[2], kind=cols[3], name=cols[4], duration_us=cols[5],
            bytes=cols[6], launch_us=cols[7], launch_duration_us=cols[8]))
    lean = capture_of(lean_sets, names)
    u = bare_scale * length / win.passes
    info = dataclasses_replace(tr.capture, lean=lean, bare_wall_us=u,
                               bare_wall_us_runs=(u * (1 - spread), u, u * (1 + spread)))
    raw = json.loads(gzip.decompress(Path(src).read_bytes()))
    meta = capture_metadata(info)
    raw["floorcalc"] = json.dumps(meta)
    Path(dst).write_bytes(gzip.compress(json.dumps(raw).encode()))
    return meta


def dataclasses_replace(obj: Any, **kw: Any) -> Any:
    import dataclasses

    return dataclasses.replace(obj, **kw)
