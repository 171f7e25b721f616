"""An expert-parallel mixture-of-experts layer: the experts spread over the ranks, tokens sent
to their experts and back with all_to_all (GShard's dispatch and combine, Lepikhin et al. 2020).

Each rank holds ``experts / world`` SwiGLU experts and its own tokens (as when attention runs
data-parallel in front of the MoE layer). Per pass, on every rank:

1. Route: a replicated linear router over all experts, softmax, top-k (k = 2), the k weights
   renormalised (Mixtral's gate, Jiang et al. 2024).
2. Dispatch: the (token, slot) assignments sorted by expert, so each destination rank's rows are
   contiguous; the per-expert counts (a scatter_add) exchanged with an all_to_all of
   [world * local experts] counts; the split sizes read on the host (``.tolist()``: a sync, as in real dispatchers); the
   token rows exchanged with all_to_all_single [assignments, d_model].
3. Compute: the received chunks (one per source rank and local expert) regrouped by local
   expert with split and cat (as Megatron-LM's token dispatcher does), each local expert run on
   its rows, the results put back in arrival order the same way.
4. Combine: the rows returned with the reverse all_to_all_single, scaled by their gate weights
   and summed into their tokens (index_add_).

Configs (_parallel.size: ``realistic`` on CUDA, ``small`` elsewhere, or FLOORCALC_EXAMPLE_SIZE):

* ``realistic``: Mixtral-8x7B's MoE shapes (d_model 4096, 8 experts of MLP 14336, top-2),
  2048 tokens per rank, bfloat16: each all_to_all_single moves 4096 rows of 8 KiB (32 MiB) per
  rank when the routing is even; experts split over 1, 2, 4 or 8 ranks.
* ``small``: d_model 64, 8 experts of MLP 128, top-2, 64 tokens per rank, float32 (CPU).

One rank can be made late on purpose (FLOORCALC_EXAMPLE_LATE_RANK, _LATE_MS; see _parallel.py).

    floorcalc report examples/ep_moe.py --nproc-per-node 2
"""

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

import _parallel as par

CONFIGS = {
    "small": dict(d_model=64, ffn=128, experts=8, top_k=2, tokens=64),
    "realistic": dict(d_model=4096, ffn=14336, experts=8, top_k=2, tokens=2048),
}


class Expert(nn.Module):
    def __init__(self, d: int, ffn: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d, ffn, bias=False)  # gate
        self.w3 = nn.Linear(d, ffn, bias=False)  # up
        self.w2 = nn.Linear(ffn, d, bias=False)  # down

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class ExpertParallelMoE(nn.Module):
    def __init__(self, cfg: dict) -> None:
        super().__init__()
        self.world, self.rank = par.world(), par.rank()
        self.experts_total, self.top_k = cfg["experts"], cfg["top_k"]
        self.local = par.shard("experts", cfg["experts"])  # experts on this rank
        self.router = nn.Linear(cfg["d_model"], cfg["experts"], bias=False)
        self.experts = nn.ModuleList(Expert(cfg["d_model"], cfg["ffn"]) for _ in range(self.local))

    def _exchange(self, rows: torch.Tensor, out_splits: list, in_splits: list) -> torch.Tensor:
        if self.world == 1:
            return rows
        out = rows.new_empty((sum(out_splits), rows.shape[1]))
        dist.all_to_all_single(out, rows, output_split_sizes=out_splits, input_split_sizes=in_splits)
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        par.late_rank_pause(x)
        b, s, d = x.shape
        h = x.view(-1, d)                                                # [T, D]
        # 1. route
        probs = F.softmax(self.router(h), dim=-1)                        # [T, E]
        top_w, top_e = torch.topk(probs, self.top_k, dim=-1)             # [T, k]
        top_w = top_w / top_w.sum(dim=-1, keepdim=True)
        # 2. dispatch: assignments sorted by expert (hence by destination rank)
        flat_e = top_e.reshape(-1)                                       # [T*k]
        order = torch.argsort(flat_e, stable=True)
        token_of = torch.div(order, self.top_k, rounding_mode="floor")
        send = h.index_select(0, token_of)                               # [T*k, D]
        counts = torch.zeros(self.experts_total, dtype=torch.long, device=x.device).scatter_add_(
            0, flat_e, torch.ones_like(flat_e))                          # [E] rows per expert
        recv_counts = self._exchange(counts.view(-1, 1), [self.local] * self.world, [self.local] * self.world)
        in_splits = counts.view(self.world, self.local).sum(dim=1).tolist()   # host syncs, as in real dispatchers
        chunk_rows = recv_counts.view(self.world, self.local).tolist()   # [source rank][local expert]
        out_splits = [sum(row) for row in chunk_rows]
        got = self._exchange(send, out_splits, in_splits)                # [R, D], by source then expert
        # 3. compute: chunks regrouped by local expert (Megatron's sort_chunks_by_idxs), each
        # expert run on its rows, the chunks put back in arrival order
        chunks = got.split([n for row in chunk_rows for n in row])
        by_expert = [src * self.local + e for e in range(self.local) for src in range(self.world)]
        rows = torch.cat([chunks[i] for i in by_expert])
        done, start = [], 0
        for e in range(self.local):
            n = sum(chunk_rows[src][e] for src in range(self.world))
            done.append(self.experts[e](rows[start:start + n]) if n else rows[start:start])
            start += n
        done_chunks = torch.cat(done).split([chunks[i].shape[0] for i in by_expert])
        arrival = {i: pos for pos, i in enumerate(by_expert)}
        back = torch.cat([done_chunks[arrival[i]] for i in range(len(by_expert))])
        # 4. combine: rows home again, weighted and summed per token
        home = self._exchange(back, in_splits, out_splits)               # [T*k, D], in `order`
        gate = top_w.reshape(-1).gather(0, order)
        out = torch.zeros_like(h).index_add_(0, token_of, home * gate[:, None])
        return out.view(b, s, d)


def config(device: str) -> dict:
    return CONFIGS[par.size(device)]


def get_model(device: str = "cpu") -> nn.Module:
    torch.manual_seed(1000 + par.rank())  # each rank its own experts
    with torch.device(device):
        moe = ExpertParallelMoE(config(device))
    torch.manual_seed(0)                   # the router is the same on every rank
    with torch.no_grad(), torch.device(device):
        moe.router.weight.copy_(torch.randn_like(moe.router.weight) * moe.router.weight.shape[1] ** -0.5)
    return moe.to(par.dtype(device))


def get_inputs(device: str = "cpu"):
    cfg = config(device)
    g = torch.Generator().manual_seed(1 + par.rank())  # each rank its own tokens
    return (torch.randn(1, cfg["tokens"], cfg["d_model"], generator=g).to(par.dtype(device)),)
