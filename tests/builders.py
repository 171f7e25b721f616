"""Hand-built Kineto traces and records for tests (no torch, no GPU).

``KinetoBuilder`` writes the event shapes torch.profiler writes, so the real parser reads them;
``tensor_meta`` and ``count_op`` build op calls and count them, as the counting tests do
(``from builders import count_op as c, tensor_meta as T``); ``toy_spec`` is a device with round
figures.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

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

    def __init__(self, gpu_name: Optional[str] = "NVIDIA H200") -> None:
        self.events: List[Dict[str, Any]] = []
        self.ext = 0
        self.corr = 0
        self.gpu_name = gpu_name
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
               runtime: str = "cudaLaunchKernel") -> int:
        """A runtime call at ``ts`` (1 us long) and the device event it issues."""
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": runtime, "pid": 1, "tid": tid, "ts": ts,
                            "dur": 1.0, "args": {"correlation": self.corr, "External id": ext}})
        cat = {"kernel": "kernel", "memcpy": "gpu_memcpy", "memset": "gpu_memset"}[kind]
        args: Dict[str, Any] = {"device": 0, "stream": stream, "correlation": self.corr, "External id": ext}
        if nbytes is not None:
            args["bytes"] = nbytes
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": kernel_ts,
                            "dur": kernel_dur, "args": args})
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

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"schemaVersion": 1, "traceEvents": list(self.events), **self.meta}
        d["deviceProperties"] = ([{"id": 0, "name": self.gpu_name, "totalGlobalMem": 150754820096,
                                   "computeMajor": 9, "computeMinor": 0, "numSms": 132}] if self.gpu_name else [])
        return d

    def write(self, path: Path) -> Path:
        raw = json.dumps(self.to_dict()).encode()
        path.write_bytes(gzip.compress(raw) if path.suffix == ".gz" else raw)
        return path


def toy_spec(peak: float = 1e12, bw: float = 1e9, latency_us: float = 2.0, kind: str = "gpu") -> DeviceSpec:
    """A device with round numbers: every tensor/vector peak ``peak`` FLOP/s, ``bw`` B/s."""
    fig = lambda v: Figure(v, "assumed", "test")  # noqa: E731
    keys = ["tensor.bfloat16", "tensor.float16", "tensor.tfloat32", "vector.float32", "vector.float64"]
    return DeviceSpec(key="toy", name="Toy GPU", kind=kind, peak_flop_per_s={k: fig(peak) for k in keys},
                      mem_bytes_per_s=fig(bw), launch_latency_us=fig(latency_us), origin=("test",))
