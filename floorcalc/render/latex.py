"""LaTeX rendering of a Report: one booktabs table for a paper.

The table lists the longest op groups (floorcalc.classify.grouping; op, module, instances, measured
time, floor, efficiency, bound; the ops themselves with ``--group-by none``), then
MFU and MBU, and closes with a note that says what a reader needs to weigh the figures: the
device, every ceiling used with its basis and source, torch and CUDA versions, warm-up and
profiled passes, and the command (docs/citing.md). The report's warnings are typeset in that
note; every note and warning follows the table as a ``% note:`` / ``% warning:`` comment, for
the author to weigh. Needs ``\\usepackage{booktabs}`` and nothing else. Figures are per pass.
"""

from __future__ import annotations

from typing import List, Optional

from floorcalc.records import Report, Spread
from floorcalc.render.base import Renderer
from floorcalc.render.figures import (GROUPING_TEXT, bound_label, ceilings_used, figure_value, grouped, groups_of,
                                      mbu_definition, mfu_definition, provenance, wall_basis)

_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
}


def escape(text: str) -> str:
    """``text`` as LaTeX text: every special character escaped, whitespace flattened."""
    return "".join(_ESCAPES.get(ch, ch) for ch in " ".join(str(text).split()))


def comment(text: str) -> str:
    """``text`` on one line, for a LaTeX comment (everything after ``%`` is ignored)."""
    return " ".join(str(text).split())


def _num(x: Optional[float]) -> str:
    if x is None:
        return "--"
    s = f"{x:,.1f}" if x >= 10 else f"{x:.2f}"
    return s.replace(",", "{,}")


def _pct(x: Optional[float]) -> str:
    return "--" if x is None else f"{100 * x:.1f}\\,\\%"


class LatexRenderer(Renderer):
    """Render a report as a LaTeX ``table`` with booktabs rules.

    ``top``: op rows (the rest summed in one line); ``caption`` (None: one naming the device and
    the model) and ``label`` of the float; ``modules``: whether to show the module column.
    """

    def __init__(self, top: int = 15, caption: Optional[str] = None, label: str = "tab:floorcalc",
                 modules: bool = True) -> None:
        self.top = top
        self.caption = caption
        self.label = label
        self.modules = modules

    def render(self, report: Report) -> str:
        s = report.summary
        d = report.device
        many = grouped(report)
        groups = groups_of(report)
        cols = (6 if self.modules else 5) + many
        model = report.capture.model_file
        what = f"op groups ({escape(GROUPING_TEXT[report.grouping.by])})" if many and report.grouping else "ops"
        caption = self.caption or (f"Measured time against the hardware floor on the {escape(d.name)}"
                                   + (f", {escape(str(model))}" if model else "")
                                   + f"; per pass, the {min(self.top, len(groups))} longest {what}.")
        out: List[str] = [
            f"% floorcalc {report.tool_version}; needs \\usepackage{{booktabs}}",
            "\\begin{table}[htbp]",
            "\\centering",
            "\\small",
            f"\\caption{{{caption}}}",
            f"\\label{{{self.label}}}",
            "\\begin{tabular}{@{}l" + ("l" if self.modules else "") + ("r" if many else "") + "rrrl@{}}",
            "\\toprule",
            "Op & " + ("Module & " if self.modules else "") + ("$n$ & " if many else "")
            + "Time ($\\mu$s) & Floor ($\\mu$s) & Efficiency & Bound \\\\",
            "\\midrule",
        ]
        for g in groups[: self.top]:
            eff = _pct(g.efficiency) + ("$^{\\dagger}$" if g.floor_violation else "")
            module = [f"\\texttt{{{escape(g.module)}}}" if g.module else "(top)"] if self.modules else []
            n = [str(g.instances)] if many else []
            out.append(" & ".join([f"\\texttt{{{escape(g.name)}}}", *module, *n, _num(g.duration_us),
                                   _num(g.floor_us), eff, escape(bound_label(g))]) + " \\\\")
        rest = groups[self.top:]
        if rest:
            out.append(" & ".join([f"{len(rest)} more {'groups' if many else 'ops'}", *([""] if self.modules else []),
                                   *([""] if many else []), _num(sum(g.duration_us for g in rest)),
                                   _num(sum(g.floor_us or 0 for g in rest)), "", ""]) + " \\\\")
        out.append("\\midrule")
        floor = s.floor_us if any(r.flop is not None for r in report.ops) else None
        out.append(" & ".join(["All ops", *([""] if self.modules else []), *([""] if many else []),
                               _num(s.op_time_us), _num(floor),
                               _pct(floor / s.op_time_us) if floor and s.op_time_us else "--", ""]) + " \\\\")
        wall = s.bare_wall_us or s.wall_us

        def rng(sp: Optional[Spread]) -> str:
            return f" [{_pct(sp.low)}--{_pct(sp.high)}]" if sp is not None and sp.samples > 1 else ""

        sets = f"; [min--max] over {escape(s.mfu_spread.over)}" if s.mfu_spread is not None else ""
        wr = (f" [{_num(s.bare_wall_spread.low)}--{_num(s.bare_wall_spread.high)}]"
              if s.bare_wall_spread is not None and s.bare_wall_us else "")
        out.append(f"\\multicolumn{{{cols}}}{{@{{}}l}}{{MFU {_pct(s.mfu)}{rng(s.mfu_spread)}, MBU {_pct(s.mbu)}"
                   f"{rng(s.mbu_spread)}; over the {escape(wall_basis(report))}, {_num(wall)}{wr}~$\\mu$s per pass"
                   f"{sets}}} \\\\")
        out += ["\\bottomrule", "\\end{tabular}", "", "\\smallskip", "\\begin{minipage}{\\linewidth}\\footnotesize\\raggedright"]
        out.append(self._note(report))
        out += ["\\end{minipage}", "\\end{table}"]
        out += [f"% {n.kind}: {comment(n.text)}" for n in report.notes]
        return "\n".join(out) + "\n"

    def _note(self, report: Report) -> str:
        prov = provenance(report)
        parts = [
            "\\textit{Note:} floor $= \\max(F/P,\\,B/W) + L$ per kernel launch; efficiency $=$ floor / measured; "
            "bound: the larger term of the floor, what would limit the op at its floor (not what limits it now).",
            f"MFU $=$ {escape(mfu_definition(report))}.",
            f"MBU $=$ {escape(mbu_definition(report))}.",
        ]
        if any(g.floor_violation for g in groups_of(report)[: self.top]):
            parts.append("$^{\\dagger}$Faster than its floor (efficiency above 100\\,\\%), shown unclipped.")
        parts.append(f"Device: {escape(prov['device'])}.")
        ceil = "; ".join(f"{escape(n)} $=$ {escape(figure_value(n, f))} ({escape(f.basis)}: {escape(f.source)})"
                         for n, f in ceilings_used(report))
        if report.device.has_ceilings:
            parts.append(f"Ceilings: {ceil}.")
        else:
            from floorcalc.device.spec import NO_SPEC_NOTE

            parts.append(f"Ceilings: none ({escape('; '.join(report.device.origin))}); {escape(NO_SPEC_NOTE)}.")
        if report.whatif is not None:  # the what-if section (floorcalc.whatif), one sentence
            w = report.whatif
            parts.append("What if (projected step, per pass): " + "; ".join(
                f"{escape(p.label)} {_num(p.step_us)}~$\\mu$s" if p.step_us is not None else
                f"{escape(p.label)} device {_num(p.device_us)}~$\\mu$s (step not known)"
                for p in (w.measured,) + w.projections) + ".")
        run = [f"floorcalc {escape(report.tool_version)}"]
        if "torch" in prov:
            run.append(f"torch {escape(prov['torch'])}")
        if "CUDA" in prov:
            run.append(f"CUDA {escape(prov['CUDA'])}")
        if "warm-up" in prov:
            run.append(f"{escape(prov['warm-up'])} of warm-up")
        n = report.summary.passes
        run.append(f"{n} profiled pass{'es' if n != 1 else ''}")
        parts.append(", ".join(run) + ".")
        if "command" in prov:
            parts.append(f"Command: \\texttt{{{escape(prov['command'])}}}.")
        parts += [f"\\textit{{Warning:}} {escape(n.text)}." for n in report.notes if n.kind == "warning"]
        return "\n".join(parts)
