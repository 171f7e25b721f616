"""Options and output handling shared by the report-producing subcommands (the analysis itself
is floorcalc.analysis; files are written by floorcalc.output)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from floorcalc.errors import OutputError, UsageError
from floorcalc.output import write_atomic
from floorcalc.records import Report, Trace

FORMATS = ("table", "json")
_EXT_FORMAT = {".json": "json", ".txt": "table"}
#: the formats of report and analyze (add_output_arguments), and the -o extensions that pick them
REPORT_FORMATS = ("table", "json", "csv", "md", "latex")
_REPORT_EXT_FORMAT = {".json": "json", ".txt": "table", ".csv": "csv", ".md": "md", ".tex": "latex"}


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=REPORT_FORMATS, default=None,
                   help="output format (default: table, or inferred from -o's extension: "
                        ".json .csv .md .tex .txt)")
    p.add_argument("-o", "--output", type=Path, default=None,
                   help="write the report to this file (csv: the ops; beside it FILE.kernels.csv and "
                        "FILE.summary.csv)")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--top", type=int, default=None,
                   help="op rows shown in the table and md (default 25) and latex (default 15, to fit a page)")
    p.add_argument("--spec", type=str, default=None,
                   help="device spec YAML file (or packaged key such as h200) overriding detection")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.png|svg|pdf",
                   help="also draw the roofline plot to this file (needs matplotlib)")
    p.add_argument("--annotate-trace", type=Path, default=None, metavar="FILE.json.gz",
                   help="also write the trace with each kernel's floor, bound and efficiency in its args "
                        "and the GPU idle gaps on a 'floorcalc' track (for Perfetto, chrome://tracing)")
    p.set_defaults(formats=REPORT_FORMATS)
    add_formula_arguments(p)


def add_formula_arguments(p: argparse.ArgumentParser) -> None:
    """``--formulas FILE.py`` (repeatable): op formulas of the user's own (docs/counting.md)."""
    p.add_argument("--formulas", type=Path, action="append", default=[], metavar="FILE.py",
                   help="also count the ops this file registers formulas for (@floorcalc.counting.formula; "
                        "repeatable; see docs/counting.md)")


def load_formulas(args: argparse.Namespace) -> None:
    """Register the formulas of each ``--formulas`` file, before any work; a bad file is a
    :class:`~floorcalc.errors.FormulaError` (exit code 10)."""
    paths = getattr(args, "formulas", None) or []
    if paths:
        from floorcalc.counting.plugins import load_files

        load_files(paths)


def output_format(args: argparse.Namespace) -> str:
    if args.top is not None and args.top < 1:
        raise UsageError(f"--top must be at least 1 (got {args.top})")
    formats = getattr(args, "formats", FORMATS)
    if args.format:
        return args.format
    if args.output is not None:
        ext = _REPORT_EXT_FORMAT if formats == REPORT_FORMATS else _EXT_FORMAT
        fmt = ext.get(args.output.suffix.lower())
        if fmt is None:
            raise UsageError(f"cannot infer a format from {args.output.name!r}; pass --format {{{','.join(formats)}}}")
        return fmt
    return "table"


def output_paths(args: argparse.Namespace) -> List[Path]:
    """Every file this command will write: -o (and, for csv, its siblings), --plot,
    --annotate-trace. Raises :class:`UsageError` for a --plot or --annotate-trace name that says
    no format floorcalc writes."""
    out: List[Path] = []
    if args.output is not None:
        if getattr(args, "formats", FORMATS) == REPORT_FORMATS and output_format(args) == "csv":
            from floorcalc.render.csvfmt import sibling_paths

            out += list(sibling_paths(args.output).values())
        else:
            out.append(args.output)
    plot = getattr(args, "plot", None)
    if plot is not None:
        from floorcalc.render.plot import PLOT_FORMATS

        if plot.suffix.lower() not in PLOT_FORMATS:
            raise UsageError(f"--plot {plot.name!r}: name a .png, .svg or .pdf file")
        import importlib.util

        if importlib.util.find_spec("matplotlib") is None:  # say so before any work, not after it
            raise UsageError("--plot needs matplotlib: pip install matplotlib (or 'floorcalc[plot]')")
        out.append(plot)
    ann = getattr(args, "annotate_trace", None)
    if ann is not None:
        if not (ann.name.endswith(".json") or ann.name.endswith(".json.gz")):
            raise UsageError(f"--annotate-trace {ann.name!r}: name a .json.gz (or .json) file")
        out.append(ann)
    return out


def check_output(args: argparse.Namespace) -> None:
    """Fail before any work if an output cannot be written: its folder is missing, it is a
    folder, it exists without --force, two outputs are one file, or one is an input."""
    paths = output_paths(args)
    seen = {}
    inputs = [p for p in (getattr(args, "trace", None), getattr(args, "trace_out", None), getattr(args, "model", None),
                          getattr(args, "a", None), getattr(args, "b", None), getattr(args, "spec", None))
              if isinstance(p, (Path, str)) and p]
    inputs += list(getattr(args, "formulas", None) or [])
    input_paths = [Path(p) for p in inputs]
    for out in paths:
        if not out.parent.exists():
            raise OutputError(f"output folder does not exist: {out.parent}")
        if not out.parent.is_dir():
            raise OutputError(f"output folder {out.parent} is not a folder")
        if out.is_dir():
            raise OutputError(f"output {out} is a directory")
        if out.exists() and not out.is_file():
            raise OutputError(f"output {out} is not a regular file (a device or a pipe?); name a file")
        resolved = out.resolve()
        if resolved in seen:
            raise UsageError(f"two outputs are the same file: {out}")
        seen[resolved] = out
        if any(resolved == i.resolve() for i in input_paths):
            raise UsageError(f"output {out} is also an input of this command; name another file")
        if out.exists() and not args.force:
            raise OutputError(f"output {out} exists; pass --force to overwrite it")


def render(report: Report, args: argparse.Namespace) -> Tuple[Dict[Path, bytes], Optional[str]]:
    """The report in the chosen format: (files to write -> bytes, text for stdout or None)."""
    fmt = output_format(args)
    files: Dict[Path, bytes] = {}
    out: Optional[Path] = args.output
    if fmt == "csv":
        from floorcalc.render.csvfmt import CsvRenderer

        r = CsvRenderer()
        if out is None:
            return files, r.ops(report)
        return {p: t.encode() for p, t in r.files(report, out).items()}, None
    if fmt == "json":
        from floorcalc.render.jsonfmt import dumps

        text = dumps(report)
    elif fmt == "md":
        from floorcalc.render.markdown import MarkdownRenderer

        text = MarkdownRenderer(top=args.top or 25).render(report)
    elif fmt == "latex":
        from floorcalc.render.latex import LatexRenderer

        text = LatexRenderer(top=args.top or 15).render(report)
    else:
        from floorcalc.render.table import TableRenderer

        if out is None:
            return files, None  # printed straight to the terminal by emit
        import io

        from rich.console import Console

        buf = io.StringIO()
        TableRenderer(top=args.top or 25).render(report, Console(file=buf, width=160, force_terminal=False,
                                                          color_system=None))
        text = buf.getvalue()
    if out is None:
        return files, text
    files[out] = text.encode()
    return files, None


def emit(report: Report, args: argparse.Namespace, trace: Optional[Trace] = None) -> None:
    """Render ``report`` in the chosen format to -o or stdout, and the --plot and
    --annotate-trace files; everything is rendered before anything is written, and each file is
    written whole, atomically. ``trace`` (the parsed trace the report came from) is needed for
    --annotate-trace."""
    files, text = render(report, args)
    plot = getattr(args, "plot", None)
    if plot is not None:
        from floorcalc.render.plot import PLOT_FORMATS, RooflinePlot

        files[plot] = RooflinePlot().render(report, PLOT_FORMATS[plot.suffix.lower()])
    ann = getattr(args, "annotate_trace", None)
    if ann is not None:
        from floorcalc.render.annotate import TraceAnnotator, output_is_gzip

        if trace is None:
            raise UsageError("--annotate-trace needs the trace the report was made from")
        files[ann] = TraceAnnotator().annotate(trace, report, gzipped=output_is_gzip(ann))
    for path, data in files.items():
        write_atomic(path, data)
    if text is not None:
        sys.stdout.write(text)
    elif output_format(args) == "table" and args.output is None:
        from floorcalc.render.table import TableRenderer

        TableRenderer(top=args.top or 25).render(report)


#: the one atomic writer (floorcalc.output), under the name cli/ modules use
_write_atomic = write_atomic
