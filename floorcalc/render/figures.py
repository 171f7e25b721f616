"""What every output format says beside its tables: pass figures with their definitions, and
the provenance a reader needs to quote them (device, ceilings and their sources, versions,
warm-up, passes, the command).

Shared by the csv, markdown, latex and plot renderers so that they word the definitions of MFU
and MBU the same way (docs/method.md, "Pass figures").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple, Union

from floorcalc.floor.roofline import collective_link
from floorcalc.records import DeviceSpec, Figure, Implausible, OpGroup, OpRow, Report, Spread
from floorcalc.util.numbers import rate

#: How the links are named beside their figures.
LINK_NAMES = {"nvlink": "NVLink", "pcie": "PCIe", "nic": "NIC"}


@dataclass(frozen=True)
class PassFigure:
    """One pass-level figure: ``key`` as in the JSON summary, ``value`` in ``unit`` (``us``,
    ``FLOP``, ``bytes``, ``ratio``), and how it was got (``definition``); ``missing``: what is
    shown when ``value`` is None."""

    key: str
    label: str
    value: Optional[float]
    unit: str
    definition: str
    #: the figure's spread over the timed sets (min, median, max), where it has one
    spread: Optional[Spread] = None
    missing: str = "-"


#: what the ``bound`` column means, said wherever it is shown (issue 27: lm_head reads "compute"
#: at 9.6% efficiency, which only docs/citing.md explained)
BOUND_MEANING = ("bound: the larger term of the op's floor (compute F/P, memory B/W at its level, overhead the launch "
                 "term L, communication a collective's link time), i.e. what would limit it at its floor; not what "
                 "limits it now: at low efficiency something else holds it (docs/citing.md)")

#: how the outputs show the figures that need floorcalc's own unprofiled runs, when the trace
#: came from elsewhere (a torch.profiler of the user's own, another tool)
NOT_MEASURED = "not measured"
#: how those figures are got
BARE_HOW = ("not measured in this trace: needs floorcalc's own unprofiled runs (floorcalc report MODEL.py, "
            "or floorcalc.report(model, inputs))")


def dominant_peak(report: Report) -> Tuple[Optional[str], Optional[Figure]]:
    """The peak MFU divides by (``Summary.mfu_peak_key``, chosen by floorcalc.classify.units.mfu_peak)
    and its figure in the report's device spec, with its basis and source."""
    key = report.summary.mfu_peak_key
    if key is None:
        return None, None
    return key, report.device.peak_flop_per_s.get(key)


def warning_line(w: Implausible) -> str:
    """One impossible figure as every text output words it: ``warning (CAUSE[, clipped]): DETAIL``."""
    return f"warning ({w.cause.replace('_', ' ')}{', clipped' if w.clipped else ''}): {w.detail}"


def wall_basis(report: Report) -> str:
    """The wall time MFU and MBU divide by (docs/method.md): the bare one when it was timed."""
    return "bare (unprofiled) wall time" if report.summary.bare_wall_us else "profiled wall time"


def mfu_definition(report: Report) -> str:
    key, fig = dominant_peak(report)
    peak = f"the {key} peak ({rate(fig.value, 'FLOP/s')}, {fig.basis})" if key and fig else "the dominant peak"
    return f"counted FLOP / {wall_basis(report)} / {peak}"


def mbu_definition(report: Report) -> str:
    if not report.device.has_ceilings:
        return "counted compulsory bytes / wall time / DRAM bandwidth (no spec: no bandwidth)"
    w = report.device.mem_bytes_per_s
    return (f"counted compulsory bytes (host-link copies excluded) / {wall_basis(report)} / DRAM bandwidth "
            f"({rate(w.value, 'B/s')}, {w.basis})")


def _no_spec() -> str:
    from floorcalc.device.spec import NO_SPEC_NOTE

    return NO_SPEC_NOTE


def pass_figures(report: Report) -> List[PassFigure]:
    """The summary's figures in display order, each with its definition. Per pass."""
    s = report.summary
    counted = any(r.flop is not None for r in report.ops)
    gpu = report.target == "cuda"
    st = report.timeline.step_times if report.timeline is not None else None
    of = " (profiled pass)" if st is not None and st.basis == "unprofiled" else ""
    out = [
        # the profiled pass's, whatever else is: said in its label (the rule: a figure not of the
        # user's unprofiled pass says so; "wall, no profiler" is the bare one)
        PassFigure("wall_us", "wall time (profiled pass)", s.wall_us, "us",
                   "profiled window / passes (host start of pass 1 to end of the last work)"),
    ]
    if gpu:
        out += [
            PassFigure("gpu_busy_us", "GPU busy" + of, s.gpu_busy_us, "us", "union of kernel/memcpy/memset intervals"),
            PassFigure("idle_us", "GPU idle" + of, s.idle_us, "us", "wall - busy"),
        ]
        if of and report.timeline is not None:
            t = report.timeline
            out += [
                PassFigure("unprofiled_gpu_busy_us", "GPU busy (lean passes)", t.busy_us, "us",
                           "union of the lean passes' kernel/memcpy/memset intervals, per pass"),
                PassFigure("unprofiled_idle_us", "GPU idle (unprofiled step)", t.idle_us, "us",
                           "unprofiled step - lean busy"),
            ]
    out += [
        PassFigure("floor_us", "sum of floors", s.floor_us if counted and report.device.has_ceilings else None, "us",
                   "counted ops: max(F/P, B/W) + L per launch" if report.device.has_ceilings else _no_spec()),
        PassFigure("op_time_us", "op time", s.op_time_us, "us", "kernel time" if gpu else "CPU op time"),
        PassFigure("uncounted_us", "uncounted", s.uncounted_us, "us",
                   "time of ops with no count: no formula and no recorded shapes"),
        PassFigure("uncounted_share", "uncounted share", s.uncounted_share, "ratio", "uncounted / op time"),
        PassFigure("flop", "counted FLOP", s.flop if counted else None, "FLOP", "2 per multiply-add"),
        PassFigure("bytes", "counted bytes", s.bytes if counted else None, "bytes",
                   "inputs read once + outputs written once"),
        PassFigure("mfu", "MFU", s.mfu, "ratio", mfu_definition(report), s.mfu_spread),
        PassFigure("mbu", "MBU", s.mbu, "ratio", mbu_definition(report), s.mbu_spread),
        PassFigure("bare_wall_us", "wall, no profiler", s.bare_wall_us, "us",
                   "median per-pass time of the unprofiled sets: the user's step" if s.bare_wall_us is not None
                   else BARE_HOW, s.bare_wall_spread, NOT_MEASURED),
        PassFigure("profiler_distortion", "profiler distortion", s.profiler_distortion, "ratio",
                   "profiled wall / bare wall - 1" if s.bare_wall_us is not None else BARE_HOW,
                   missing="-" if s.bare_wall_us is not None else NOT_MEASURED),
    ]
    if st is not None and st.lean is not None:
        at = out.index(next(f for f in out if f.key == "profiler_distortion"))
        out.insert(at, PassFigure("lean_wall_us", "wall, lean passes", st.lean.median, "us",
                                  "median per-pass time of the lean sets (CUDA activity only), host-timed as the "
                                  "unprofiled ones", st.lean))
        out.insert(at + 1, PassFigure("lean_cost_us", "lean passes' own cost", st.lean_cost_us, "us",
                                      "lean wall - unprofiled wall: what the lean profiler added"))
    c = report.timeline.communication if report.timeline is not None else None
    if c is not None:
        out += [
            PassFigure("comm_us", "collectives", c.comm_us, "us", "union of the collectives' kernel intervals"),
            PassFigure("comm_hidden_us", "communication hidden", c.hidden_us, "us",
                       "collective time with a compute kernel or copy beside it"),
            PassFigure("comm_exposed_us", "communication exposed", c.exposed_us, "us",
                       "collective time with nothing beside it"),
            PassFigure("comm_floor_us", "collectives' floors", c.floor_us, "us",
                       "link bytes (nccl-tests bus bytes) / link bandwidth + collective latency"),
        ]
    if s.unattributed_us:
        out.insert(out.index(next(f for f in out if f.key == "uncounted_share")) + 1,
                   PassFigure("unattributed_us", "unattributed", s.unattributed_us, "us",
                              "device work with no launching op"))
    if s.bytes_only_us:
        out.insert(out.index(next(f for f in out if f.key == "uncounted_share")) + 1,
                   PassFigure("bytes_only_share", "bytes-only share", s.bytes_only_share, "ratio",
                              "of op time, counted from shapes alone (no formula: inputs read and outputs written "
                              "once, 0 FLOP); counted, not uncounted"))
    return out


def bound_label(r: Union[OpRow, OpGroup]) -> str:
    """An op row's (or group's) bound as the text outputs show it: ``memory (l2)`` for bytes
    floored at a level other than DRAM, and ``(bytes-only)`` after a count from shapes alone
    (floorcalc.classify.fallback)."""
    from floorcalc.classify.fallback import BYTES_ONLY

    label = r.bound + (f" ({r.level})" if r.bound in ("memory", "communication") and r.level not in ("", "dram")
                       else "")
    return label + (" (bytes-only)" if r.formula == BYTES_ONLY else "")


def format_us(x: Optional[float], signed: bool = False) -> str:
    """A time in microseconds as every time column of the text outputs shows it (the report's
    op table and pass summary, the timeline's tables, the cross-rank tables, the what-if table,
    diff): about four significant figures with thousands separators, ``14,335`` and ``9,368``
    (from 1,000 us: no decimals), ``213.1`` (from 10 us: one), ``4.37`` (two); ``-`` for none;
    ``signed``: with its sign (``+1,204``, ``-3.10``), for changes."""
    if x is None:
        return "-"
    sign = "+" if signed else ""
    if signed and x == 0:
        return "+0.0"          # no change, not a small one
    if abs(x) >= 1000:
        return f"{x:{sign},.0f}"
    return f"{x:{sign}.1f}" if abs(x) >= 10 else f"{x:{sign}.2f}"


def format_bytes(n: Optional[float]) -> str:
    """A number of bytes as every table of the text, Markdown and HTML outputs shows it (the
    copies, the timeline's memory and link bytes): SI prefixes, as the rest of floorcalc's text
    words sizes and rates (``floorcalc: wrote r.json (json, 23.28 kB)``, the copies' GB/s beside
    it: floorcalc.util.numbers.rate), three significant figures, ``67.1 MB``, ``512 B``; ``-``
    for none."""
    if n is None:
        return "-"
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= k:
            return f"{n / k:.3g} {unit}"
    return f"{n:.0f} B"


def format_figure(f: PassFigure) -> str:
    """A figure's value for people: ``9,777 us``, ``1.6%``, ``6.457e+10 FLOP``, ``-``; with its
    spread where it has one: ``2.5% [2.1-2.9]`` (:func:`range_text`)."""
    if f.value is None:
        return f.missing
    if f.unit == "ratio":
        out = f"{100 * f.value:.1f}%"
    elif f.unit == "us":
        out = f"{format_us(f.value)} us"
    else:
        return f"{f.value:.4g} {f.unit}"
    return out + (f" {range_text(f.spread, f.unit)}" if f.spread is not None and f.spread.samples > 1 else "")


def range_text(sp: Spread, unit: str = "us") -> str:
    """A spread as every text output shows it beside its median: ``[2,650-2,712]`` (us) or
    ``[2.1-2.9]`` (a ratio, in percent): the min and max over ``sp.over``."""
    if unit == "ratio":
        return f"[{100 * sp.low:.1f}-{100 * sp.high:.1f}]"
    return f"[{format_us(sp.low)}-{format_us(sp.high)}]"


def step_time_rows(report: Report) -> List[Tuple[str, str, str]]:
    """The step's wall time as measured each way (``Timeline.step_times``), as (label, value,
    how) rows for the text outputs: unprofiled (with its spread), lean and profiled (with what
    each added), and what the report's figures are of. Empty without a timeline's step times."""
    st = report.timeline.step_times if report.timeline is not None else None
    if st is None:
        return []
    rows: List[Tuple[str, str, str]] = []
    quick = report.capture.quick  # one set of each: no median, no min-max
    u = st.unprofiled
    if u is not None:
        rows.append(("step, unprofiled", f"{format_us(u.median)} us {range_text(u)}" if u.samples > 1
                     else f"{format_us(u.median)} us",
                     f"per pass over {u.over}, no min-max: the user's step" if quick or u.samples < 2 else
                     f"median [min-max] of {u.over}: the user's step"))

    def cost(x: Optional[float]) -> str:
        if x is None or u is None or not u.median:
            return ""
        return f" ({format_us(x, signed=True)} us, {x / u.median:+.0%})"

    if st.lean is not None:
        rows.append(("step, lean passes", f"{format_us(st.lean.median)} us{cost(st.lean_cost_us)}",
                     f"{'per pass over' if quick else 'median of'} {st.lean.over}, CUDA activity "
                     "only: the profiler's own cost"))
    rows.append(("step, profiled pass", f"{format_us(st.profiled_us)} us{cost(st.profiled_cost_us)}",
                 "this trace's window per pass (CPU ops, shapes, module ranges)"))
    what = ("the unprofiled step: device time from the lean passes, causes from the profiled pass"
            if st.basis == "unprofiled" else "the profiled pass")
    rows.append(("figures are of", what, st.join))
    return rows


def short_origin(spec: DeviceSpec) -> str:
    """The spec files read, shortened to their last two path parts (``devices/h200.yaml``)."""
    parts = []
    for o in spec.origin:
        p = Path(o)
        parts.append("/".join(p.parts[-2:]) if p.is_absolute() and len(p.parts) > 2 else o)
    return "; ".join(parts) or spec.key


def ceilings_used(report: Report) -> List[Tuple[str, Figure]]:
    """The ceilings the report's floors used: each peak key of a counted op, DRAM, L2 when an op
    was floored there, the host link when a copy was, and L."""
    d = report.device
    if not d.has_ceilings:
        return []
    keys = sorted({r.peak_key for r in report.ops if r.peak_key and r.peak_key != "none"},
                  key=lambda k: -(d.peak_flop_per_s[k].value if k in d.peak_flop_per_s else 0))
    out = [(f"P {k}", d.peak_flop_per_s[k]) for k in keys if k in d.peak_flop_per_s]
    out.append(("W DRAM", d.mem_bytes_per_s))
    levels = "/".join(r.level for r in report.ops)
    if d.l2_bytes_per_s is not None and "l2" in levels:
        out.append(("W L2", d.l2_bytes_per_s))
    if d.host_link_bytes_per_s is not None and "host_link" in levels:
        out.append(("W host link", d.host_link_bytes_per_s))
    comm = {r.level for r in report.ops if r.bound == "communication"}
    for link in sorted(comm):
        try:
            _name, key, fig = collective_link(d, "", None if link != "nic" else "nic")
        except KeyError:
            continue
        out.append((f"W {LINK_NAMES.get(link, link)}", fig))
    out += [(f"W {k.replace('_bus_bytes_per_s', '').replace('_', ' ')} bus", f) for k, f in d.interconnect.items()
            if comm and k.endswith("_bus_bytes_per_s")]
    out.append(("L", d.launch_latency_us))
    if comm:
        from floorcalc.device.links import collective_latency_us

        out.append(("L collective", collective_latency_us(d)))
    return out


def ceilings_line(report: Report) -> str:
    """The line under a text report that names each ceiling the floors used (:func:`ceilings_used`)
    with its own basis, as the notes do, then the spec's files and L with its provenance:
    ``ceilings: P vector.float32 = 439.9 GFLOP/s (derived), W DRAM = 67.15 GB/s (measured); spec
    from cpu-host; L = 0.26 us (measured: capture-time probe ...)``. A spec without ceilings:
    ``ceilings: none (why)``."""
    from floorcalc.device.spec import shown_origin

    d = report.device
    if not d.has_ceilings:
        return f"ceilings: none ({'; '.join(d.origin)})"
    used = ", ".join(f"{n} = {figure_value(n, f)} ({f.basis})" for n, f in ceilings_used(report) if n != "L")
    lat = d.launch_latency_us
    said = lat.source if lat.source.startswith(lat.basis) else f"{lat.basis}: {lat.source}"
    return (f"ceilings: {used}; spec from {shown_origin(d.origin) or d.key}; L = {lat.value:.3g} us ({said})")


def figure_value(name: str, fig: Figure) -> str:
    if name.startswith("P "):
        return rate(fig.value, "FLOP/s")
    if name.startswith("W "):
        return rate(fig.value, "B/s")
    return f"{fig.value:.3g} us"


def provenance(report: Report) -> Dict[str, str]:
    """What to quote beside a figure (docs/citing.md), as label -> text; absent items omitted."""
    c = report.capture
    d = report.device
    bases = sorted({f.basis for _, f in ceilings_used(report)})
    out = {
        "device": f"{d.name} (spec {d.key}: {short_origin(d)})",
        "ceilings": ("; ".join(f"{n} = {figure_value(n, f)} ({f.basis})" for n, f in ceilings_used(report))
                     if d.has_ceilings else f"none ({'; '.join(d.origin)})"),
        "ceiling basis": ", ".join(bases),
        "floorcalc": report.tool_version,
    }
    if c.torch_version:
        out["torch"] = c.torch_version
    if c.cuda_version:
        out["CUDA"] = c.cuda_version
    if c.warmup is not None:
        out["warm-up"] = f"{c.warmup} passes"
    out["passes"] = f"{report.summary.passes} profiled"
    if c.command:
        out["command"] = c.command
    return out


# ---------------------------------------------------------------------------------------------
# grouped op rows (floorcalc.classify.grouping), worded the same in every format

#: what each grouping puts in one row
GROUPING_TEXT = {
    "layer": "one row per op and module, layer indices written *",
    "module": "one row per module (all its ops), layer indices written *",
    "op": "one row per op name and input shapes",
    "none": "one row per op and module",
}


def groups_title(report: Report) -> str:
    """``ops, per pass, grouped by layer (one row per op and module, layer indices written *),
    ranked by measured time``."""
    g = report.grouping
    if g is None or g.by == "none":
        return "ops, per pass, ranked by measured time"
    return f"ops, per pass, grouped by {g.by} ({GROUPING_TEXT[g.by]}), ranked by measured time"


def grouped(report: Report) -> bool:
    """Whether the report's rows are grouped (so the instance count and spread columns mean
    something)."""
    return report.grouping is not None and report.grouping.by != "none"


def groups_of(report: Report) -> Tuple[OpGroup, ...]:
    """The report's groups; for a report without a grouping, its op rows one a group."""
    if report.grouping is not None:
        return report.grouping.groups
    from floorcalc.classify.grouping import group_ops

    return group_ops(report.ops, "none").groups


def outlier_text(g: OpGroup) -> str:
    """``h.0.mlp.c_proj 9.10 us, 1.25x median`` ("" when the group has no outlier), the time
    written as every time column writes it (:func:`format_us`)."""
    if not g.outlier or g.outlier_us is None:
        return ""
    ratio = g.outlier_us / g.median_us if g.median_us > 0 else float("inf")
    return f"{g.outlier} {format_us(g.outlier_us)} us, {ratio:.2f}x median"


def spread_text(g: OpGroup, fmt: Callable[[float], str]) -> str:
    """``7.63-7.95``: the instances' smallest and largest measured time ("" for one instance)."""
    return "" if g.instances < 2 else f"{fmt(g.min_us)}-{fmt(g.max_us)}"


#: The column headings of :func:`group_rows`, with and without a grouping.
GROUP_COLUMNS = ("#", "op", "module", "n", "calls", "measured (us)", "median (us)", "min-max (us)",
                 "floor (us)", "efficiency", "bound", "outlier")
PLAIN_COLUMNS = ("#", "op", "module", "calls", "measured (us)", "floor (us)", "efficiency", "bound")


def group_rows(report: Report, top: int, us: Callable[[Optional[float]], str],
               pct: Callable[[Optional[float], bool], str], name: Callable[[str], str] = str,
               text: Callable[[str], str] = str) -> Tuple[Tuple[str, ...], List[List[str]]]:
    """``(headings, rows)`` of the report's op groups (:func:`groups_of`), the first ``top`` of
    them and one row summing the rest: the cells of the HTML and Markdown op tables, each
    renderer formatting times with ``us``, efficiencies with ``pct(value, violation)``, op and
    module names with ``name`` and the outlier's text with ``text``. With a grouping (:func:`grouped`) each row also gives
    its instances, their median and spread, and the outlier (:data:`GROUP_COLUMNS`); without,
    :data:`PLAIN_COLUMNS`."""
    many = grouped(report)
    groups = groups_of(report)
    time = lambda x: us(x)  # noqa: E731  (a float -> str view of ``us`` for spread_text)
    rows: List[List[str]] = []
    for i, g in enumerate(groups[:top], 1):
        row = [str(i), name(g.name), name(g.module) if g.module else "(top)"]
        if many:
            row.append(f"x{g.instances}")
        row += [f"{g.calls:g}", us(g.duration_us)]
        if many:
            row += [us(g.median_us), spread_text(g, time)]
        row += [us(g.floor_us), pct(g.efficiency, g.floor_violation), bound_label(g)]
        if many:
            row.append(text(outlier_text(g)))
        rows.append(row)
    rest = groups[top:]
    if rest:
        row = ["", f"{len(rest)} more {'groups' if many else 'ops'}", ""] + ([""] if many else [])
        row += ["", us(sum(g.duration_us for g in rest))] + (["", ""] if many else [])
        row += [us(sum(g.floor_us or 0 for g in rest)), "", ""] + ([""] if many else [])
        rows.append(row)
    return (GROUP_COLUMNS if many else PLAIN_COLUMNS), rows
