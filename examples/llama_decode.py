"""One Llama decode step: a single new token against a static KV cache of FLOORCALC_LLAMA_CACHE
positions (default 512), with the model and configs of examples/llama.py (FLOORCALC_LLAMA_BATCH
sequences at once, default 1).

The cache holds random keys and values (what they are does not change the work); each step
writes the new token's key and value at position FLOORCALC_LLAMA_CACHE and attends over all
FLOORCALC_LLAMA_CACHE + 1 positions, so every pass does the same work.

    floorcalc report examples/llama_decode.py
    FLOORCALC_LLAMA=7b FLOORCALC_LLAMA_CACHE=4000 floorcalc count examples/llama_decode.py
"""

import os

import torch

import llama

_model = None
_token = None


def cache_len() -> int:
    return int(os.environ.get("FLOORCALC_LLAMA_CACHE", "512"))


def get_model(device: str = "cpu"):
    """The model floorcalc labels ops with; setup() and step() use this same instance."""
    global _model
    if _model is None:
        _model = llama.get_model(device)
    return _model


def setup(device: str = "cpu") -> None:
    global _token
    model = get_model(device).to(device).eval()
    if cache_len() + 1 > model.max_seq:
        raise ValueError(f"FLOORCALC_LLAMA_CACHE={cache_len()} does not fit max_seq {model.max_seq}")
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for layer in model.layers:
            for buf in (layer.attention.k_cache, layer.attention.v_cache):
                if buf.device.type != "meta":
                    buf.normal_(generator=g if buf.device.type == "cpu" else None)
    _token = torch.zeros((llama.batch(), 1), dtype=torch.long, device=device)


def step():
    return _model(_token, start_pos=cache_len())
