"""Write the hand-built serving-engine traces of this folder (README.md says what each shows).

    python3 tests/data/serving/make.py      # rewrites the *.trace.json.gz files here

Their layouts follow what the public traces of TraceLens (vLLM, SGLang, xDiT on MI300X; a Qwen
chat run on an H100) show; no content of theirs is copied. Times are microseconds.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent

MI300X = {"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9,
          "computeMinor": 4, "warpSize": 64, "numSms": 304}
H100 = {"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045231616, "computeMajor": 9,
        "computeMinor": 0, "warpSize": 32, "numSms": 132}
TYPES = {"bfloat16": "c10::BFloat16", "float32": "float", "int32": "int", "int64": "long int", "uint8": "unsigned char"}


def tensor(*shape: int, dtype: str = "bfloat16") -> Dict[str, Any]:
    return {"shape": list(shape), "dtype": dtype}


def args(*items: Any) -> Dict[str, Any]:
    """Kineto op args: tensors (``tensor(...)``), int lists (tuples), None, or scalars (str)."""
    dims: List[Any] = []
    types: List[str] = []
    concrete: List[str] = []
    for it in items:
        if isinstance(it, dict):
            dims.append(it["shape"]), types.append(TYPES[it["dtype"]]), concrete.append("")
        elif isinstance(it, tuple):
            dims.append([]), types.append("ScalarList"), concrete.append(str(list(it)))
        elif it is None:
            dims.append([]), types.append(""), concrete.append("")
        else:
            dims.append([]), types.append("Scalar"), concrete.append(str(it))
    return {"Input Dims": dims, "Input type": types, "Concrete Inputs": concrete}


class Trace:
    """Events of one process (host pid 7, device pid 0, stream 3)."""

    def __init__(self, device: Dict[str, Any], corr: int = 1000, ext: int = 5000) -> None:
        self.events: List[Dict[str, Any]] = []
        self.device = device
        self.corr, self.ext = corr, ext

    def op(self, name: str, ts: float, dur: float, a: Optional[Dict[str, Any]] = None) -> int:
        self.ext += 1
        self.events.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 7, "tid": 7, "ts": ts, "dur": dur,
                            "args": {"External id": self.ext, **(a or {})}})
        return self.ext

    def annotation(self, name: str, ts: float, dur: float) -> None:
        self.events.append({"ph": "X", "cat": "user_annotation", "name": name, "pid": 7, "tid": 7, "ts": ts,
                            "dur": dur, "args": {}})

    def call(self, name: str, ts: float, dur: float = 2.0, ext: Optional[int] = None) -> int:
        self.corr += 1
        a: Dict[str, Any] = {"correlation": self.corr}
        if ext is not None:
            a["External id"] = ext
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 7, "tid": 7, "ts": ts, "dur": dur,
                            "args": a})
        return self.corr

    def device_event(self, name: str, ts: float, dur: float, corr: int, kind: str = "kernel",
                     nbytes: Optional[int] = None) -> None:
        cat = {"kernel": "kernel", "memset": "gpu_memset", "memcpy": "gpu_memcpy"}[kind]
        a: Dict[str, Any] = {"device": 0, "stream": 3, "correlation": corr}
        if nbytes is not None:
            a["bytes"] = nbytes
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 3, "ts": ts, "dur": dur, "args": a})

    def write(self, name: str) -> Path:
        doc = {"schemaVersion": 1, "deviceProperties": [self.device], "traceEvents": self.events}
        path = HERE / name
        path.write_bytes(gzip.compress(json.dumps(doc).encode(), mtime=0))
        return path


def graph_pair(name: str, graphs: Sequence[Sequence[Any]], replay: Sequence[int], *, extra_tail: bool = False,
               compiled: bool = False) -> None:
    """A capture trace holding one stream capture per graph (each a list of (op name, args,
    kernel name, kind)), and a trace replaying the graphs numbered in ``replay`` in that order.
    ``extra_tail``: each capture launches one more kernel after its last replayed one;
    ``compiled``: the launches happen inside a ``Torch-Compiled Region`` (an xDiT Flux run)."""
    cap = Trace(MI300X, corr=100, ext=100)
    t = 0.0
    cap.annotation("ProfilerStep#9", 0.0, 10_000.0)
    # a warm-up launch that ran before the capture: not part of any graph
    e = cap.op("aten::fill_", 1.0, 5.0, args(tensor(8, dtype="int64"), "0"))
    cap.device_event("fill_kernel", 10.0, 2.0, cap.call("hipLaunchKernel", 2.0, ext=e))
    t = 50.0
    for g, nodes in enumerate(graphs):
        cap.call("hipStreamBeginCapture", t, 3.0)
        region = cap.op("Torch-Compiled Region: 0/0", t + 5, 40.0 * (len(nodes) + 2)) if compiled else None
        del region
        t += 10.0
        for op_name, a, _kernel, kind in list(nodes) + ([("aten::addmm", args(tensor(256, 64), tensor(256, 64),
                                                                               tensor(64, 64), "1", "1"),
                                                        "tail_gemm", "kernel")] if extra_tail else []):
            e = cap.op(op_name, t, 30.0, a)
            if kind == "memset+kernel":
                cap.call("hipMemsetAsync", t + 2, 1.0, ext=e)
            cap.call("hipExtModuleLaunchKernel" if "gemm" in op_name or "mm" in op_name else "hipLaunchKernel",
                     t + 5, 2.0, ext=e)
            t += 40.0
        t += 40.0
        cap.call("hipStreamEndCapture", t, 3.0)
        t += 100.0
    cap.write(f"{name}.capture.trace.json.gz")

    run = Trace(MI300X, corr=9000, ext=9000)
    run.annotation("execute_32_decode", 0.0, 5000.0)
    t = 10.0
    for g in replay:
        region = run.op("Torch-Compiled Region: 0/0", t, 20.0) if compiled else None
        del region
        c = run.call("hipGraphLaunch", t + 5, 10.0)
        k = t + 20.0
        for _op, _a, kernel, kind in graphs[g]:
            run.device_event(kernel, k, 12.0, c)
            k += 15.0
        t = k + 30.0
    # an eager copy after the replays, launched by its own op
    e = run.op("aten::copy_", t, 10.0, args(tensor(32, dtype="int64"), tensor(32, dtype="int64"), "False"))
    run.device_event("Memcpy DtoH (Device -> Host)", t + 20, 3.0, run.call("hipMemcpyAsync", t + 2, ext=e), "memcpy",
                     256)
    run.write(f"{name}.trace.json.gz")


def decode_nodes() -> List[Any]:
    """One decoder layer of SGLang's Qwen3 decode graph (batch 32), as its capture records it."""
    return [
        ("sgl_kernel::rmsnorm", args(tensor(32, 4096), tensor(32, 4096), tensor(4096), "1e-06", "False"),
         "rmsnorm_kernel", "kernel"),
        ("aiter::gemm_a16w16", args(tensor(32, 4096), tensor(6144, 4096), None, 15, None, None, None),
         "Cijk_Alik_Bljk_BBS_BH_MT64x16x128", "kernel"),
        # the paged-attention wrapper: its arguments hold the whole KV pool and a padded page table
        ("sglang_profiler::attention_paged_attention_ragged_1",
         args(tensor(32, 32, 128), tensor(10905190400, dtype="uint8"), tensor(32, 32, 128),
              tensor(835874, 1, 8, 128), tensor(835874, 1, 8, 128), tensor(33, dtype="int32"),
              tensor(20971520, dtype="int32"), tensor(4096, dtype="int32")),
         "paged_attention_ll4mi_QKV_mfma16_kernel", "kernel"),
        ("aiter::gemm_a16w16", args(tensor(32, 4096), tensor(4096, 4096), None, 15, None, None, None),
         "Cijk_Alik_Bljk_BBS_BH_MT64x16x256", "kernel"),
    ]


def piecewise_nodes(layer: int, n: int) -> List[Any]:
    """``n`` launches of one piece of a vLLM piecewise graph (a layer's norm and GEMMs)."""
    out = [("_C::rms_norm", args(tensor(8192, 2880), tensor(8192, 2880), tensor(2880), "1e-05"),
            f"rms_norm_kernel_l{layer}", "kernel")]
    for k in range(n - 1):
        out.append(("vllm::rocm_unquantized_gemm", args(tensor(8192, 2880), tensor(640 + 64 * k, 2880), None),
                    f"Cijk_gemm_l{layer}_{k}", "kernel"))
    return out


def flux_nodes(n: int) -> List[Any]:
    """``n`` launches of a compiled Flux block: Inductor's Triton kernels (recorded as ops of
    their own name, their buffers as arguments) around library GEMMs, one of them split-K (a
    workspace memset captured before it, which leaves no event of its own when replayed)."""
    out: List[Any] = []
    for k in range(n):
        if k % 3 == 0:
            out.append((f"triton_poi_fused_add_mul_{k}", args(tensor(1, 4096, 3072), tensor(1, 4096, 3072), 12582912),
                        f"triton_poi_fused_add_mul_{k}", "kernel"))
        elif k % 3 == 1:
            out.append(("aten::mm", args(tensor(4096, 3072), tensor(3072, 3072), tensor(4096, 3072)),
                        "Cijk_Alik_Bljk_BBS_BH_MT256x128x64", "kernel"))
        else:
            out.append(("aten::addmm", args(tensor(3072), tensor(4096, 3072), tensor(3072, 3072), "1", "1"),
                        "Cijk_Alik_Bljk_BBS_BH_Bias_MT128x192x64", "memset+kernel"))
    return out


def pre_trace() -> None:
    """A Qwen chat step (H100): the profiler starts while the GPU still runs the previous step's
    kernels (launched before any host call the trace holds: lower correlation ids, no runtime
    call); the step opens with a cudaDeviceSynchronize that waits for them, then runs its own."""
    tr = Trace(H100, corr=5000, ext=18000)
    tr.annotation("ProfilerStep#6", 100.0, 2000.0)
    for k in range(20):   # the previous step's tail: correlation ids 4000.. (no host call here)
        tr.device_event("void at::native::elementwise_kernel<128, 4>", 50.0 + 40 * k, 30.0, 4000 + 2 * k)
        tr.device_event("Memset (Device)", 80.0 + 40 * k, 2.0, 4001 + 2 * k, "memset", 64)
    tr.call("cudaDeviceSynchronize", 110.0, 800.0)
    t = 950.0
    for _ in range(3):
        e = tr.op("aten::linear", t, 40.0, args(tensor(16, 2048, 1024), tensor(1024, 1024), tensor(1024)))
        tr.device_event("sm90_xmma_gemm_bf16bf16_bf16f32", t + 60, 200.0, tr.call("cudaLaunchKernel", t + 5, ext=e))
        t += 300.0
    tr.write("pre_trace.trace.json.gz")


def main(argv: Sequence[str] = ()) -> int:
    graph_pair("sglang_decode", [decode_nodes()], [0])
    # vLLM's piecewise graphs: three pieces, two of the same shape (layers 0 and 1), replayed in order
    graph_pair("vllm_piecewise", [piecewise_nodes(0, 3), piecewise_nodes(9, 4), piecewise_nodes(1, 3)], [0, 1, 2])
    graph_pair("xdit_compiled", [flux_nodes(120)], [0, 0], extra_tail=True, compiled=True)
    pre_trace()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
