"""A pipeline-parallel prefill: the layers split into one stage per rank, activations passed on
with send/recv, the batch cut into micro-batches so the stages overlap (GPipe's schedule, Huang
et al. 2019, forward only).

Each rank holds ``layers_per_stage`` Llama-style decoder blocks (tp_llama_block.Block, whole:
no tensor parallelism). For each micro-batch, rank 0 runs its blocks on the input and sends the
activations [1, tokens, d_model] to rank 1; rank r > 0 receives them from rank r - 1 (dist.recv),
runs its blocks and sends them on, and the last rank keeps the output. While rank 1 works on
micro-batch m, rank 0 is already on m + 1. Two ranks make the two-stage pipeline the name says;
N ranks make N stages.

Configs (_parallel.size: ``realistic`` on CUDA, ``small`` elsewhere, or FLOORCALC_EXAMPLE_SIZE):

* ``realistic``: Llama-3-8B's layer shapes (tp_llama_block's), one block per stage, 2
  micro-batches of 2048 tokens, bfloat16: each send moves 16 MiB.
* ``small``: tp_llama_block's small block, one per stage, 2 micro-batches of 32 tokens,
  float32 (CPU with gloo).

Two micro-batches keep the trace small (a few hundred events per pass); more overlap the stages
better (the bubble is 1/(micro-batches + 1) of a pass): raise ``micro_batches`` for that.

One rank can be made late on purpose (FLOORCALC_EXAMPLE_LATE_RANK, _LATE_MS; see _parallel.py):
it pauses once per pass, at its start (before it receives or computes anything).

    floorcalc report examples/pp_two_stage.py --nproc-per-node 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn

import _parallel as par
import tp_llama_block

PIPELINE = {
    "small": dict(micro_batches=2, layers_per_stage=1),
    "realistic": dict(micro_batches=2, layers_per_stage=1),
}


class Stage(nn.Module):
    """This rank's blocks, fed by the previous rank (or the input) and feeding the next."""

    def __init__(self, cfg: dict, micro_batches: int, layers: int) -> None:
        super().__init__()
        self.rank, self.world = par.rank(), par.world()
        self.micro_batches = micro_batches
        self.layers = nn.ModuleList(tp_llama_block.Block(cfg) for _ in range(layers))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: [micro_batches, tokens, d_model] on rank 0; on later ranks only its shape and dtype are used
        par.late_rank_pause(x)
        first, last = self.rank == 0, self.rank == self.world - 1
        outs = []
        for m in range(self.micro_batches):
            h = x[m:m + 1]
            if not first:
                h = torch.empty_like(h)
                dist.recv(h, src=self.rank - 1)
            for layer in self.layers:
                h = layer(h)
            if last:
                outs.append(h)
            else:
                dist.send(h, dst=self.rank + 1)
        return torch.cat(outs) if outs else x[:0]


def config(device: str) -> tuple[dict, dict]:
    name = par.size(device)
    return tp_llama_block.CONFIGS[name], PIPELINE[name]


def get_model(device: str = "cpu") -> nn.Module:
    cfg, pipe = config(device)
    cfg = dict(cfg, tokens=cfg["tokens"] // pipe["micro_batches"])
    torch.manual_seed(par.rank())  # each stage its own layers
    with torch.device(device):
        stage = Stage(cfg, pipe["micro_batches"], pipe["layers_per_stage"])
    return stage.to(par.dtype(device))


def get_inputs(device: str = "cpu"):
    cfg, pipe = config(device)
    mb = pipe["micro_batches"]
    g = torch.Generator().manual_seed(1)
    return (torch.randn(mb, cfg["tokens"] // mb, cfg["d_model"], generator=g).to(par.dtype(device)),)
