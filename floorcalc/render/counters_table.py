"""The counters section of a report (``Report.counters``): why each kernel misses its floor.

Two tables, the same cells in every format (the terminal's rich tables here; Markdown and HTML
take :func:`group_cells` and :func:`kernel_cells`): the op rows' counters per group of the
report's grouping (excess = extra traffic + rest + unmeasured), and the kernels of the pass
with the most excess, each with its traffic ratio, achieved shares and verdict. Renderers read
the record only; nothing is recounted here.
"""

from __future__ import annotations

from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from rich import box
from rich.console import Console

from floorcalc.records import Counters, KernelCounterRow
from floorcalc.render.figures import format_us
from floorcalc.render.terminal import PlainTable, plain
from floorcalc.util.names import middle as _middle

#: kernels shown, the most excess first (the JSON holds them all)
KERNELS_SHOWN = 15

GROUP_HEADER = ("op", "module", "n", "measured us", "floor us", "excess us", "extra traffic us", "rest us",
                "unmeasured us", "DRAM / counted", "L2 / counted", "verdict")
KERNEL_HEADER = ("#", "kernel", "op", "module", "level", "measured us", "floor us", "excess us", "extra traffic us",
                 "rest us", "DRAM / counted", "L2 / counted", "DRAM BW", "FLOP/s", "verdict", "why")


def ratio(x: Optional[float]) -> str:
    """A traffic ratio, ``1.03x``; ``-`` for none."""
    return "-" if x is None else f"{x:.2f}x"


def share(x: Optional[float]) -> str:
    """A share of a peak, ``41%``; ``-`` for none."""
    return "-" if x is None else f"{100 * x:.0f}%"


def section_title(c: Counters) -> str:
    """The section's heading, with the join and the cache mode in a few words."""
    cache = {"flush": "caches flushed before each kernel", "keep": "caches kept between kernels",
             "unknown": "caches flushed before each kernel (ncu's default; the CSV does not say)"}[c.profile.cache]
    return (f"why kernels miss their floor: Nsight Compute counters, per pass ({c.join.matched} of "
            f"{c.join.trace_kernels} kernels joined; {cache})")


def group_cells(c: Counters) -> List[Tuple[str, ...]]:
    """One row of :data:`GROUP_HEADER` cells per group (the report's grouping; its op rows when
    there is none), the most excess first."""
    rows = sorted(c.groups, key=lambda g: -g.excess_us) if c.groups else None
    out: List[Tuple[str, ...]] = []
    if rows is not None:
        for g in rows:
            out.append((g.name, g.module or "(top)", f"x{g.members}", format_us(g.duration_us), format_us(g.floor_us),
                        format_us(g.excess_us), format_us(g.traffic_us), format_us(g.rest_us),
                        format_us(g.unmeasured_us), ratio(g.dram_ratio), ratio(g.l2_ratio), g.verdict))
        return out
    for o in sorted(c.ops, key=lambda o: -o.excess_us):
        out.append((o.name, o.module or "(top)", "x1", format_us(o.duration_us), format_us(o.floor_us),
                    format_us(o.excess_us), format_us(o.traffic_us), format_us(o.rest_us),
                    format_us(o.unmeasured_us), ratio(o.dram_ratio), ratio(o.l2_ratio), o.verdict))
    return out


def top_kernels(c: Counters, top: int = KERNELS_SHOWN) -> Sequence[KernelCounterRow]:
    """The ``top`` kernels with the most excess, in that order."""
    return sorted(c.kernels, key=lambda k: -k.excess_us)[:top]


def kernel_cells(c: Counters, top: int = KERNELS_SHOWN) -> List[Tuple[str, ...]]:
    """One row of :data:`KERNEL_HEADER` cells for each of :func:`top_kernels`."""
    return [(str(k.position), k.name, k.op, k.module or "(top)", k.level, format_us(k.duration_us),
             format_us(k.floor_us), format_us(k.excess_us), format_us(k.traffic_us), format_us(k.rest_us),
             ratio(k.dram_ratio), ratio(k.l2_ratio), share(k.dram_bw_share), share(k.flop_share), k.verdict, k.why)
            for k in top_kernels(c, top)]


def render_counters(c: Counters, console: Console, top: int = KERNELS_SHOWN) -> None:
    """Print the counters section (module notes) on ``console``: the groups' table, the kernels'
    (names shortened in the middle; the JSON and the annotated trace keep them whole), and under
    it each shown kernel's counters in words."""
    numeric = {"n", "#", "measured us", "floor us", "excess us", "extra traffic us", "rest us", "unmeasured us",
               "DRAM / counted", "L2 / counted", "DRAM BW", "FLOP/s"}

    def column(t: PlainTable, h: str, cells: Sequence[str]) -> None:
        label = h.replace(" us", "\nus").replace(" / ", "\n/ ").replace("extra traffic", "extra\ntraffic")
        widest = max([len(x) for x in cells] + [len(x) for x in label.split("\n")])
        if h in numeric:  # numbers are never cut: each column as wide as its widest cell
            t.add_column(label, justify="right", no_wrap=True, min_width=widest)
        elif h in ("verdict", "level"):
            t.add_column(label, no_wrap=True, min_width=widest)
        else:
            t.add_column(label, no_wrap=True, overflow="ellipsis", min_width=min(widest, 16))

    t = PlainTable(box=box.SIMPLE_HEAD, title=section_title(c), title_justify="left", padding=(0, 1))
    grows = [(_middle(r[0], 22), _middle(r[1], 20), *r[2:]) for r in group_cells(c)]
    for j, h in enumerate(GROUP_HEADER):
        column(t, h, [r[j] for r in grows])
    for row in grows:
        t.add_row(plain(row[0]), plain(row[1]), *row[2:])
    console.print(t)
    k = PlainTable(box=box.SIMPLE_HEAD, title=f"kernels with the most excess (of {len(c.kernels)}; excess = extra "
                   "traffic + rest; ratios: bytes measured / compulsory bytes)", title_justify="left", padding=(0, 1))
    shown = [h for h in KERNEL_HEADER if h not in ("op", "module", "why")]
    rows = kernel_cells(c, top)
    krows = [[_middle(dict(zip(KERNEL_HEADER, r))[h], 26) for h in shown] for r in rows]
    for j, h in enumerate(shown):
        column(k, h, [r[j] for r in krows])
    for r in krows:
        k.add_row(*(plain(x) if h == "kernel" else x for h, x in zip(shown, r)))
    console.print(k)
    for row in rows:
        cells = dict(zip(KERNEL_HEADER, row))
        where = f"{cells['op']} {cells['module']}"
        console.print(plain(f"  #{cells['#']} {_middle(where, 60)}: {cells['why'] or cells['verdict']}", style="dim"))


def counters_markdown(c: Counters, *, cell: Callable[[str], str], code: Callable[[str], str],
                   table: Callable[[Sequence[str], str, Iterable[Sequence[str]]], List[str]],
                   top: int = KERNELS_SHOWN) -> List[str]:
    """The section as Markdown lines (floorcalc.render.markdown passes its cell, code and table
    helpers)."""
    title = section_title(c)
    out = [f"## {title[0].upper()}{title[1:]}", ""]
    out += table(GROUP_HEADER, "llrrrrrrrrrl",
                 [[code(r[0]), code(r[1]), *r[2:]] for r in group_cells(c)])
    out += ["", f"Kernels with the most excess, of {len(c.kernels)} (excess = extra traffic + rest; ratios: bytes "
                "measured / compulsory bytes):", ""]
    out += table(KERNEL_HEADER, "rllllrrrrrrrrrll",
                 [[r[0], code(_middle(r[1], 60)), code(r[2]), code(r[3]), *r[4:-1], cell(r[-1])]
                  for r in kernel_cells(c, top)])
    return out
