"""The dtype the bundled examples run in: ``FLOORCALC_DTYPE`` (``float32``, ``bfloat16`` or
``float16``) when it is set, else bfloat16 on CUDA and float32 on the CPU.

    FLOORCALC_DTYPE=bfloat16 floorcalc report examples/vit.py --device cpu
"""

import os

import torch

ENV = "FLOORCALC_DTYPE"
CHOICES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


def dtype(device: str = "cpu") -> torch.dtype:
    """The dtype for ``device`` (read at call time, so tests can switch it); ValueError names
    the choices when ``FLOORCALC_DTYPE`` holds another value."""
    name = os.environ.get(ENV, "")
    if name:
        if name not in CHOICES:
            raise ValueError(f"{ENV}={name!r}: choose one of {', '.join(CHOICES)}")
        return CHOICES[name]
    return torch.bfloat16 if str(device).startswith("cuda") else torch.float32
