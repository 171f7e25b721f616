"""LaTeX rendering of a Report: one booktabs table for a paper.

The table lists the longest ops (op, module, measured time, floor, efficiency, bound), then
MFU and MBU, and closes with a note that says what a reader needs to weigh the figures: the
device, every ceiling used with its basis and source, torch and CUDA versions, warm-up and
profiled passes, and the command (docs/citing.md). Needs ``\\usepackage{booktabs}`` and
nothing else. Figures are per pass.
"""

from __future__ import annotations

from typing import List, Optional

from floorcalc.records import Report
from floorcalc.render.base import Renderer
from floorcalc.render.figures import (ceilings_used, figure_value, mbu_definition, mfu_definition, provenance,
                                      wall_basis)

_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
}


def escape(text: str) -> str:
    """``text`` as LaTeX text: every special character escaped, whitespace flattened."""
    return "".join(_ESCAPES.get(ch, ch) for ch in " ".join(str(text).split()))


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
        cols = 6 if self.modules else 5
        model = report.capture.model_file
        caption = self.caption or (f"Measured time against the hardware floor on the {escape(d.name)}"
                                   + (f", {escape(str(model))}" if model else "")
                                   + f"; per pass, the {min(self.top, len(report.ops))} longest ops.")
        out: List[str] = [
            f"% floorcalc {report.tool_version}; needs \\usepackage{{booktabs}}",
            "\\begin{table}[htbp]",
            "\\centering",
            "\\small",
            f"\\caption{{{caption}}}",
            f"\\label{{{self.label}}}",
            "\\begin{tabular}{@{}l" + ("l" if self.modules else "") + "rrrl@{}}",
            "\\toprule",
            "Op & " + ("Module & " if self.modules else "")
            + "Time ($\\mu$s) & Floor ($\\mu$s) & Efficiency & Bound \\\\",
            "\\midrule",
        ]
        for r in report.ops[: self.top]:
            eff = _pct(r.efficiency) + ("$^{\\dagger}$" if r.floor_violation else "")
            module = [f"\\texttt{{{escape(r.module)}}}" if r.module else "(top)"] if self.modules else []
            out.append(" & ".join([f"\\texttt{{{escape(r.name)}}}", *module, _num(r.duration_us), _num(r.floor_us),
                                   eff, escape(r.bound)]) + " \\\\")
        rest = report.ops[self.top:]
        if rest:
            out.append(" & ".join([f"{len(rest)} more ops", *([""] if self.modules else []),
                                   _num(sum(r.duration_us for r in rest)),
                                   _num(sum(r.floor_us or 0 for r in rest)), "", ""]) + " \\\\")
        out.append("\\midrule")
        floor = s.floor_us if any(r.flop is not None for r in report.ops) else None
        out.append(" & ".join(["All ops", *([""] if self.modules else []), _num(s.op_time_us), _num(floor),
                               _pct(floor / s.op_time_us) if floor and s.op_time_us else "--", ""]) + " \\\\")
        wall = s.bare_wall_us or s.wall_us
        out.append(f"\\multicolumn{{{cols}}}{{@{{}}l}}{{MFU {_pct(s.mfu)}, MBU {_pct(s.mbu)}; "
                   f"over the {escape(wall_basis(report))}, {_num(wall)}~$\\mu$s per pass}} \\\\")
        out += ["\\bottomrule", "\\end{tabular}", "", "\\smallskip", "\\begin{minipage}{\\linewidth}\\footnotesize\\raggedright"]
        out.append(self._note(report))
        out += ["\\end{minipage}", "\\end{table}"]
        return "\n".join(out) + "\n"

    def _note(self, report: Report) -> str:
        prov = provenance(report)
        parts = [
            "\\textit{Note:} floor $= \\max(F/P,\\,B/W) + L$ per kernel launch; efficiency $=$ floor / measured.",
            f"MFU $=$ {escape(mfu_definition(report))}.",
            f"MBU $=$ {escape(mbu_definition(report))}.",
        ]
        if any(r.floor_violation for r in report.ops[: self.top]):
            parts.append("$^{\\dagger}$Faster than its floor (efficiency above 100\\,\\%), shown unclipped.")
        for w in report.warnings:
            parts.append(f"\\textbf{{Warning}} ({escape(w.cause.replace('_', ' '))}): {escape(w.detail)}.")
        parts.append(f"Device: {escape(prov['device'])}.")
        ceil = "; ".join(f"{escape(n)} $=$ {escape(figure_value(n, f))} ({escape(f.basis)}: {escape(f.source)})"
                         for n, f in ceilings_used(report))
        parts.append(f"Ceilings: {ceil}.")
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
        return "\n".join(parts)
