"""FLOPs and bytes of the kernels torch.compile (Inductor) generated, from what Inductor wrote.

Inductor's debug output (``torch._inductor.config.trace.enabled``) holds, per compiled graph:

* ``fx_graph_readable.py``: the post-grad FX graph, one line per node, with each node's
  output dtype and shape (``relu: "bf16[64, 512]" = torch.ops.aten.relu.default(addmm)``);
* ``inductor_provenance_tracking_node_mappings.json``: ``cppCodeToPost`` maps every kernel
  launch of the generated code (``triton_poi_fused_relu_0:2``, ``extern_kernels.addmm:1``) to
  the FX nodes it computes;
* ``output_code.py``: each Triton kernel's ``inductor_meta``, whose ``kernel_num_gb`` is the
  bytes the kernel itself reads and writes (the inputs and outputs of the fusion, not the
  intermediates it keeps on chip), in GB, when ``benchmark_kernel`` is on.

Steps: parse the graph into :class:`~floorcalc.records.OpCall`s (shapes from the node
annotations); a kernel launch's FLOPs are the sum of its nodes' FLOPs by floorcalc's own
formulas; its bytes are ``kernel_num_gb`` (Triton) or the sum of its nodes' compulsory bytes
(extern kernels, one aten op each). Nothing here imports torch.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from floorcalc.counting import count
from floorcalc.records import OpCall, TensorMeta

_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64", "i64": "int64",
           "i32": "int32", "i16": "int16", "i8": "int8", "u8": "uint8", "b8": "bool",
           "f8e4m3fn": "float8_e4m3fn", "f8e5m2": "float8_e5m2"}
_NODE = re.compile(r'^\s*(\w+): "(\w+)\[([^\]]*)\](?:\[[^\]]*\])?(?:\w+:\d+)?" = torch\.ops\.(\w+)\.(\w+)(?:\.\w+)?\((.*)\)(?:;.*)?$')
_ARG = re.compile(r'(\w+): "(\w+)\[([^\]]*)\]')
#: a node whose output is a tuple has no annotation: a higher-order operator's
#: (``flex_attention = torch.ops.higher_order.flex_attention(q, k, v, sdpa_score0, (...), 0.125, {...}, (), ())``)
_TUPLE_NODE = re.compile(r'^\s*(\w+) = torch\.ops\.(\w+)\.(\w+)(?:\.\w+)?\((.*)\)(?:;.*)?$')
_META = re.compile(r"inductor_meta=\{[^\n]*?'kernel_name': '(\w+)'[^\n]*?'kernel_num_gb': ([0-9.e+-]+)")


@dataclass(frozen=True)
class KernelCount:
    """One generated kernel launch: its FX nodes, FLOPs, bytes, and how they were got."""

    handle: str          # "triton_poi_fused_relu_0:2"
    kernel: str          # "triton_poi_fused_relu_0" (the name the profiler shows for Triton kernels)
    nodes: Tuple[str, ...]
    flop: int
    bytes: int
    unit: str
    dtype: str
    method: str


def _meta(annot_dtype: str, shape: str) -> TensorMeta:
    dims = tuple(int(x) for x in shape.split(",") if x.strip()) if shape.strip() else ()
    return TensorMeta(dims, _DTYPES.get(annot_dtype, "unknown"))


def parse_graph(text: str) -> Dict[str, Tuple[OpCall, TensorMeta]]:
    """FX node name -> (the aten call with its arguments' shapes, the node's output)."""
    shapes: Dict[str, TensorMeta] = {}
    head = text.split("\n", 3)[:3]
    for line in head:
        for name, dt, shape in _ARG.findall(line):
            shapes[name] = _meta(dt, shape)
    nodes: Dict[str, Tuple[OpCall, TensorMeta]] = {}
    for line in text.splitlines():
        m = _NODE.match(line)
        if m:
            name, dt, shape, ns, op, args = m.groups()
            out = _meta(dt, shape)
        else:
            t = _TUPLE_NODE.match(line)
            if not t:
                continue
            name, ns, op, args = t.groups()
            out = TensorMeta((), "unknown")   # a tuple: its items are the getitem nodes after it
        shapes[name] = out
        call_args = []
        for a in _split_args(args):
            if "=" in a and not a.startswith(("[", "(")):
                continue  # keyword arguments: the formulas read positional ones
            if a in shapes:
                call_args.append(shapes[a])
            else:
                try:
                    v = ast.literal_eval(a)
                    call_args.append(tuple(v) if isinstance(v, list) else v)  # type: ignore[arg-type]
                except (ValueError, SyntaxError):
                    call_args.append(None)  # type: ignore[arg-type]
        nodes[name] = (OpCall(f"{ns}::{op}", tuple(call_args)), out)
    return nodes


def _split_args(text: str) -> List[str]:
    out, depth, cur = [], 0, []  # type: ignore[var-annotated]
    for ch in text:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


#: the name prefixes of the kernels Inductor generates (Triton on GPUs, C++ on CPUs); every
#: other launch of its code is an extern kernel or a fallback to an aten op
_GENERATED = ("triton_", "cpp_")


def _generated(handle: str) -> bool:
    return handle.startswith(_GENERATED)


def _computed_by(handle: str, nodes: List[str], graph: Dict[str, Tuple[OpCall, TensorMeta]]) -> List[str]:
    """The nodes an extern or fallback launch itself computes: those whose aten op is the one it
    calls (a fallback's provenance also lists the nodes that made its inputs, which a generated
    kernel computed), or all of them when none is (``extern_kernels.addmm`` for an ``addmm`` node
    is the usual case; the handle's op name can differ from the node's in other versions)."""
    kernel = handle.rsplit(":", 1)[0]
    parts = kernel.split(".")
    op = parts[-2] if parts[-1] in ("default", "Tensor", "Scalar", "out") and len(parts) > 1 else parts[-1]
    own = [n for n in nodes if n in graph and graph[n][0].name.split("::")[-1] == op]
    return own or list(nodes)


def kernel_counts(folder: Path) -> List[KernelCount]:
    """The counted kernel launches of one compiled graph's debug folder, in launch order.

    Raises FileNotFoundError when the folder lacks the three files.
    """
    graph = parse_graph((folder / "fx_graph_readable.py").read_text())
    prov = json.loads((folder / "inductor_provenance_tracking_node_mappings.json").read_text())
    num_gb = {k: float(v) for k, v in _META.findall((folder / "output_code.py").read_text())}
    mapping = prov.get("cppCodeToPost", {})
    # nodes an extern kernel (``extern_kernels.mm``) or a fallback to an aten op
    # (``torch.ops.aten._scaled_dot_product_cudnn_attention.default``) computes are counted
    # there, as the aten op the trace shows, even when a generated kernel's provenance also names
    # them (it prepares their inputs or reads their output)
    extern_nodes = {n for h, ns in mapping.items() if not _generated(h) for n in _computed_by(h, ns, graph)}
    out = []
    for handle, nodes in sorted(mapping.items(), key=lambda kv: int(kv[0].rsplit(":", 1)[1])):
        kernel = handle.rsplit(":", 1)[0]
        flop, node_bytes, unit, dtype, missing = 0, 0, "vector", "float32", []
        for n in nodes:
            if n in extern_nodes and _generated(handle):
                continue
            if n not in graph:
                missing.append(n)
                continue
            c = count(graph[n][0])
            if c is None:
                missing.append(n)
                continue
            flop += c.flop
            node_bytes += c.bytes
            if c.unit == "tensor":
                unit = "tensor"
            dtype = c.dtype if c.flop else dtype if flop else c.dtype
        if kernel in num_gb:
            nbytes, how = int(round(num_gb[kernel] * 1e9)), "bytes: Inductor's kernel_num_gb (the fusion's inputs and outputs)"
        else:
            nbytes, how = node_bytes, "bytes: its aten op's compulsory bytes"
        method = f"Inductor kernel: FLOPs of FX nodes {', '.join(nodes)}; {how}"
        if missing:
            method += f"; no count for {', '.join(missing)}"
        out.append(KernelCount(handle, kernel, tuple(nodes), flop, nbytes, unit, dtype, method))
    return out


def counts_for_folders(folders: List[Path]) -> Dict[str, List[dict]]:
    """Triton kernel name -> its launches' counts (dicts, JSON-ready), over every compiled graph.

    Extern kernels (``extern_kernels.*``) and fallbacks to aten ops (``torch.ops.aten.*``) are
    left out: they run as ordinary aten ops, which the trace shows and floorcalc counts as usual.
    """
    table: Dict[str, List[dict]] = {}
    for f in folders:
        try:
            kcs = kernel_counts(f)
        except (FileNotFoundError, ValueError):
            continue
        for k in kcs:
            if not _generated(k.kernel):
                continue
            table.setdefault(k.kernel, []).append({"flop": k.flop, "bytes": k.bytes, "unit": k.unit, "dtype": k.dtype,
                                                   "method": k.method, "graph": f.name})
    return table


def find_graph_folders(debug_dir: Path) -> List[Path]:
    """Every compiled graph's folder under an Inductor debug dir (those holding output_code.py)."""
    return sorted(p.parent for p in Path(debug_dir).rglob("output_code.py"))
