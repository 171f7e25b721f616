"""Names shortened for a sentence or a table cell: a device kernel's readable name, and a cut
that says it is one.

A CUDA kernel's demangled name carries its whole C++ signature: the template arguments (each
functor with the signature of the function that defines it and a chain of lambdas), the
namespaces and the parameter list, often several hundred characters for one elementwise kernel
of PyTorch. :func:`short_kernel_name` keeps what a reader recognises it by::

    void (anonymous namespace)::elementwise_kernel_with_index<int, at::native::arange_cuda_out(
        c10::Scalar const&, ...)::{lambda()#1}::operator()() const::{lambda()#4}::operator()()
        const::{lambda(long)#1}>(int, ...)
    -> elementwise_kernel_with_index<int, at::native::arange_cuda_out::lambda>   (80 characters)
    -> elementwise_kernel_with_index<int, arange_cuda_out::lambda>               (60)

in these steps, each taken only while the name is still longer than the width: the leading
``void`` and the parameter lists dropped (the kernel's own, and those of the functions its
template arguments name), a chain of lambdas written ``::lambda``; then namespaces; then
template argument lists written ``<…>``, the innermost first, level by level out to the
kernel's own (a list of one plain argument is kept: in ``Kernel2<cutlass_80_simt_sgemm_...>``
it is the name); and last a cut in the middle marked ``…`` (:func:`middle`). A name that fits
is kept as it is, and a name that is not C++ (a Triton or cuBLAS kernel, an op) is only cut in
the middle. Wherever a program reads the name (a warning's ``subject``, a row's ``name`` in the
JSON, the annotated trace) it stays whole: these are for text a person reads.
"""

from __future__ import annotations

import re

__all__ = ["short_kernel_name", "middle", "ELLIPSIS"]

#: the mark of a cut
ELLIPSIS = "…"

_LAMBDAS = re.compile(r"(?:::\{lambda\([^{}]*\)#\d+\}(?:::operator\(\)\(\)(?: const)?)?)+")
_ANON = "(anonymous namespace)::"
_CALL_OP = "operator()"
_HOLD = "\x00"  # stands for operator() while parameter lists are dropped
_LAMBDA = "\x01"  # stands for a chain of lambdas while namespaces are dropped
#: a note after the name: ``NAME (aten::mm)`` (the note holds no parentheses of its own)
_NOTE = re.compile(r"^(.*[^\s(]) (\([^()]*\))$", re.S)
#: the fewest characters left to the name for a note to be kept beside it
_NOTE_MIN = 16
_QUALIFIER = re.compile(r"(?<![\w:])(?:[A-Za-z_]\w*::)+(?=[A-Za-z_~])")


def middle(name: str, width: int) -> str:
    """``name`` cut in the middle to ``width`` characters, the cut marked ``…``; as it is when
    it fits."""
    if len(name) <= width:
        return name
    if width <= 1:
        return ELLIPSIS[:width]
    head = (width - 1) // 2
    tail = width - 1 - head
    return name[:head] + ELLIPSIS + (name[len(name) - tail:] if tail else "")


def _drop_parameters(s: str) -> str:
    """``s`` without its parenthesised groups (and the groups inside them), ``operator()``
    excepted."""
    s = s.replace(_CALL_OP, _HOLD)
    out, depth = [], 0
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out).replace(_HOLD, _CALL_OP)


def _depth(s: str) -> int:
    """How deep ``s``'s template argument lists nest (0: none)."""
    most = depth = 0
    for ch in s:
        if ch == "<":
            depth += 1
            most = max(most, depth)
        elif ch == ">" and depth:
            depth -= 1
    return most


def _collapse(s: str, keep_depth: int) -> str:
    """``s`` with every template argument list nested deeper than ``keep_depth`` written
    ``<…>`` (``keep_depth`` 0: every list), but a list of one plain argument
    (``Kernel2<cutlass_80_simt_sgemm_64x64_8x5_tn_align1>``: the name is in it)."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
            if depth == keep_depth + 1:
                start = i
                continue
        elif ch == ">" and depth:
            depth -= 1
            if depth == keep_depth:
                inner = s[start + 1:i]
                out.append(f"<{inner}>" if "," not in inner and "<" not in inner else f"<{ELLIPSIS}>")
                continue
        if depth <= keep_depth:
            out.append(ch)
    return "".join(out)


def short_kernel_name(name: str, width: int = 80) -> str:
    """A kernel's (or any device event's) name as a reader recognises it, at most ``width``
    characters (module notes): ``name`` itself when it fits. A note in parentheses after the
    name and a space (a table cell's ``KERNEL (aten::mm)``) is kept whole after the shortened
    name."""
    if len(name) <= width:
        return name
    note = _NOTE.match(name)
    if note is not None and width - len(note.group(2)) - 1 >= _NOTE_MIN:
        return f"{short_kernel_name(note.group(1), width - len(note.group(2)) - 1)} {note.group(2)}"
    s = name[5:] if name.startswith("void ") else name
    if "::" in s or "<" in s:   # a C++ name: its signature shortened step by step
        if len(s) > width:
            s = _drop_parameters(_LAMBDAS.sub(_LAMBDA, s.replace(_ANON, ""))).replace("> >", ">>").strip()
            if len(s) > width:
                s = _QUALIFIER.sub("", s)
            s = s.replace(_LAMBDA, "::lambda")
        keep = _depth(s)
        while len(s) > width and keep > 0:   # the innermost template arguments first
            keep -= 1
            s = _collapse(s, keep).replace("> >", ">>")
    return middle(s, width)
