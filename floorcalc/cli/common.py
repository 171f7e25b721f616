"""Options and output handling shared by the subcommands that write a document (the analysis
itself is floorcalc.analysis.driver; the formats are floorcalc.render.registry's; files are written by
floorcalc.util.output)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from floorcalc.util.errors import OutputError, UsageError
from floorcalc.classify.grouping import DEFAULT as DEFAULT_GROUP_BY
from floorcalc.util.output import check_new_file, given_name, shown, write_atomic
from floorcalc.records import GROUP_BYS
from floorcalc.records import Trace
from floorcalc.render import registry
from floorcalc.render.base import FileData, Renderer
from floorcalc.render.registry import Document, Format


def add_format_arguments(p: argparse.ArgumentParser, document: Document, *,
                         output_help: str = "write the output to this file") -> None:
    """``--format`` (the document's formats in floorcalc.render.registry), ``-o`` and
    ``--force``, shared by every command that writes a document."""
    p.add_argument("--format", choices=registry.names(document), default=None,
                   help=f"output format (default: table, or inferred from -o's extension: "
                        f"{registry.extensions_help(document)})")
    p.add_argument("-o", "--output", type=Path, default=None, help=output_help)
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.set_defaults(document=document)


def add_output_arguments(p: argparse.ArgumentParser) -> None:
    """The output options of ``report`` and ``analyze``."""
    add_format_arguments(p, "report", output_help="write the report to this file (csv: the ops; beside it "
                                                  "FILE.kernels.csv, FILE.groups.csv and FILE.summary.csv)")
    p.add_argument("--top", type=int, default=None,
                   help="rows (groups, see --group-by) shown in the table and md (default 25) and latex "
                        "(default 15, to fit a page)")
    p.add_argument("--group-by", choices=GROUP_BYS, default=DEFAULT_GROUP_BY,
                   help="group the op rows, in every format: layer (default: rows whose module paths differ "
                        "only in a layer index are one row, with the median, spread and outlier of the "
                        "instances), module (every op of a module, layer indices folded), op (op name and input "
                        "shapes, as key_averages(group_by_input_shape=True)), none")
    p.add_argument("--spec", type=str, default=None,
                   help="device spec YAML file (or packaged key such as h200) overriding detection")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.png|svg|pdf",
                   help="also draw the roofline plot to this file (needs matplotlib)")
    p.add_argument("--timeline", type=Path, default=None, metavar="FILE.png|svg",
                   help="also draw a picture of one pass to this file: host ops, each GPU stream's kernels "
                        "coloured by bound with their floors, idle time hatched by cause (needs matplotlib)")
    add_absolute_paths_argument(p)
    p.add_argument("--annotate-trace", type=Path, default=None, metavar="FILE.json.gz",
                   help="also write the trace with each kernel's floor, bound and efficiency in its args "
                        "and the GPU idle gaps on a 'floorcalc' track (for Perfetto, chrome://tracing)")
    add_formula_arguments(p)


def add_absolute_paths_argument(p: argparse.ArgumentParser) -> None:
    """``--absolute-paths``: keep this machine's paths in the outputs (floorcalc.util.sharing)."""
    p.add_argument("--absolute-paths", action="store_true",
                   help="write the trace, model, spec and command paths in the outputs as they are on this machine "
                        "(default: relative to the working folder, or the file name alone, so the output can be "
                        "shared)")


def shared(doc: Any, args: argparse.Namespace, document: Optional[Document] = None) -> Any:
    """``doc`` with its paths made shareable (floorcalc.util.sharing), relative to the folder the
    command started in, unless ``--absolute-paths``: a report, a run, ``--modes``' pairs."""
    if getattr(args, "absolute_paths", False):
        return doc
    from floorcalc.records import Report, RunReport
    from floorcalc.util.sharing import share_report, share_run

    base = getattr(args, "cwd", None) or Path.cwd()
    if isinstance(doc, Report):
        return share_report(doc, base)
    if isinstance(doc, RunReport):
        return share_run(doc, base)
    if (document or args.document) == "modes":
        return [(m, share_report(r, base)) for m, r in doc]
    return doc


def shown_path(path: Union[str, Path], args: argparse.Namespace) -> str:
    """A file of this machine as the CLI's messages on stderr name it, for the user to open (the
    ``floorcalc: wrote`` line, the stage lines, the files an interrupted command kept): a path
    the command line named as given there (floorcalc.util.output.given_name), another relative
    to the folder the command started in when it lies under it, else whole
    (floorcalc.util.sharing.local_path: not cut to its name, as the outputs' shared paths are);
    whole with ``--absolute-paths``."""
    if getattr(args, "absolute_paths", False):
        return str(path)
    from floorcalc.util.sharing import local_path

    return given_name(path) or local_path(str(path), getattr(args, "cwd", None) or Path.cwd())


def shown_text(text: str, args: argparse.Namespace) -> str:
    """A message for stderr (a stage line: "trace written: PATH") with every absolute path in it
    as :func:`shown_path` names a file: as ``floorcalc: wrote`` does."""
    if getattr(args, "absolute_paths", False):
        return text
    from floorcalc.util.sharing import local_text

    return local_text(text, getattr(args, "cwd", None) or Path.cwd(), given_name)


def add_formula_arguments(p: argparse.ArgumentParser) -> None:
    """``--formulas FILE.py`` (repeatable): op formulas of the user's own (docs/counting.md)."""
    p.add_argument("--formulas", type=Path, action="append", default=[], metavar="FILE.py",
                   help="also count the ops this file registers formulas for (@floorcalc.counting.formula; "
                        "repeatable; see docs/counting.md)")


def load_formulas(args: argparse.Namespace) -> None:
    """Register the formulas of each ``--formulas`` file, before any work; a bad file is a
    :class:`~floorcalc.util.errors.FormulaError` (exit code 10)."""
    paths = getattr(args, "formulas", None) or []
    if paths:
        from floorcalc.capture.guard import UserCode
        from floorcalc.counting.plugins import load_files
        from floorcalc.util.errors import FormulaError

        # the user's code: its prints go to stderr, its exits are errors (exit code 10)
        with UserCode("a --formulas file", FormulaError) as guard:
            guard.stage = "loading the --formulas files"
            load_files(paths)


def output_format(args: argparse.Namespace, document: Optional[Document] = None) -> Format:
    """The format chosen for ``document`` (default: the command's) by --format or -o's
    extension; :class:`UsageError` for a --top below 1 or an extension that names no format."""
    top = getattr(args, "top", None)
    if top is not None and top < 1:
        raise UsageError(f"--top must be at least 1 (got {top})")
    return registry.choose(document or args.document, args.format, args.output)


def output_renderer(args: argparse.Namespace, document: Optional[Document] = None) -> Renderer:
    """The chosen format's renderer, with the options given on the command line that it takes."""
    return registry.renderer(output_format(args, document), top=getattr(args, "top", None))


def _picture_option(option: str, path: Path, formats: Mapping[str, str], what: str) -> Path:
    """``path`` of a picture option (--plot, --timeline) once its suffix is one of ``formats``
    and matplotlib can be imported; checked before any work, not after it. Raises
    :class:`UsageError` otherwise."""
    if path.suffix.lower() not in formats:
        raise UsageError(f"{option} {path.name!r}: name {what}")
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise UsageError(f"{option} needs matplotlib: pip install matplotlib (or 'floorcalc[plot]')")
    return path


def output_paths(args: argparse.Namespace) -> List[Path]:
    """Every file this command will write: -o (and, for csv, its siblings), --plot, --timeline,
    --annotate-trace. Raises :class:`UsageError` for a --plot, --timeline or --annotate-trace
    name that says no format floorcalc writes."""
    return [path for path, _ in named_outputs(args)]


def named_outputs(args: argparse.Namespace) -> List[Tuple[Path, str]]:
    """:func:`output_paths` with the option that names each (``-o``, ``--plot``, ...)."""
    out: List[Tuple[Path, str]] = []
    if args.output is not None:
        out += [(p, "-o") for p in output_renderer(args).paths(args.output)]
    plot = getattr(args, "plot", None)
    if plot is not None:
        from floorcalc.render.plot import PLOT_FORMATS

        out.append((_picture_option("--plot", plot, PLOT_FORMATS, "a .png, .svg or .pdf file"), "--plot"))
    picture = getattr(args, "timeline", None)
    if picture is not None:
        from floorcalc.render.timeline_plot import TIMELINE_FORMATS

        out.append((_picture_option("--timeline", picture, TIMELINE_FORMATS, "a .png or .svg file"), "--timeline"))
    ann = getattr(args, "annotate_trace", None)
    if ann is not None:
        if not (ann.name.endswith(".json") or ann.name.endswith(".json.gz")):
            raise UsageError(f"--annotate-trace {ann.name!r}: name a .json.gz (or .json) file")
        out.append((ann, "--annotate-trace"))
    return out


def check_output(args: argparse.Namespace) -> None:
    """Fail before any work if an output cannot be written (floorcalc.util.output.check_new_file: its
    folder is missing or refuses files, its name is too long, it exists without --force...), two
    outputs are one file, or one is an input."""
    named = named_outputs(args)
    paths = [p for p, _ in named]
    seen: Dict[str, str] = {}
    inputs = [p for p in (getattr(args, "trace", None), getattr(args, "capture", None), getattr(args, "model", None),
                          getattr(args, "a", None), getattr(args, "b", None), getattr(args, "spec", None),
                          getattr(args, "report", None))
              if isinstance(p, (Path, str)) and p]
    inputs += list(getattr(args, "formulas", None) or [])
    input_paths = {_real(Path(p)) for p in inputs}
    trace_out = getattr(args, "trace_out", None)  # report's trace: an output too, checked where it is written
    for out, option in named + ([(trace_out, "--trace-out")] if isinstance(trace_out, Path) else []):
        resolved = _real(out)
        if resolved in seen:
            raise UsageError(f"{seen[resolved]} and {option} name one file, {shown(out)}; name two files")
        seen[resolved] = option
        if resolved in input_paths:
            raise UsageError(f"{option} {shown(out)} is also an input of this command; name another file")
    for out in paths:
        check_new_file(out, args.force)


def check_spec(args: argparse.Namespace, device: Optional[str] = None) -> None:
    """A ``--spec`` that cannot be read (SpecError, exit 7), or one for another kind of device
    than ``device`` (``cpu``/``cuda``: a GPU spec for a CPU run), fails now, before any pass or
    any trace is read, not after them."""
    if not getattr(args, "spec", None):
        return
    from floorcalc.device import load_spec
    from floorcalc.util.errors import SpecError

    spec = load_spec(args.spec)
    want = {"cpu": "cpu", "cuda": "gpu"}.get(device or "")
    if want and spec.kind != want:
        raise SpecError(f"spec {spec.key!r} describes a {spec.kind}, but this run is on the "
                        f"{'CPU' if device == 'cpu' else 'GPU'}")


def _real(p: Path) -> str:
    """``p`` with its symbolic links resolved as far as they go (a loop or a long name stops it)."""
    try:
        return os.path.realpath(p)
    except (OSError, ValueError, RuntimeError):
        return os.path.abspath(p)


#: the path options of every command: made absolute before any user code runs (a model may
#: change the working folder), so every file lands where the user asked
PATH_OPTIONS = ("output", "trace_out", "plot", "timeline", "annotate_trace")


def absolute_paths(args: argparse.Namespace) -> None:
    """Make the output paths of ``args`` (:data:`PATH_OPTIONS`) and a ``--spec`` that names an
    existing file absolute, in place; ``args.cwd`` is the working folder they are relative to
    (where a default trace name goes)."""
    from floorcalc.util.output import name_outputs
    from floorcalc.util.sharing import local_path

    args.cwd = Path.cwd()
    given: Dict[Path, str] = {}
    for name in PATH_OPTIONS:
        p = getattr(args, name, None)
        if isinstance(p, Path):
            setattr(args, name, p if p.is_absolute() else args.cwd / p)
            # as given; a whole path relative to the working folder under it, as 'floorcalc: wrote' has it
            given[getattr(args, name)] = local_path(str(p), args.cwd) if p.is_absolute() else str(p)
    # messages name them so (a refusal, a write error, 'floorcalc: wrote'); whole with --absolute-paths
    name_outputs({} if getattr(args, "absolute_paths", False) else given)
    spec = getattr(args, "spec", None)
    if isinstance(spec, str) and spec:
        try:
            is_file = Path(spec).is_file()
        except (OSError, ValueError):
            is_file = False
        if is_file:
            args.spec = os.path.abspath(spec)


#: what :func:`say_written` reports: per output asked for, what it is (``"json"``, ``"roofline,
#: png"``) and the files written for it (``-o run.csv`` writes four)
Written = List[Tuple[str, List[Path]]]


def say_written(written: Written, args: argparse.Namespace) -> None:
    """One line on stderr per output written (``floorcalc: wrote out.json (json, 12.35 kB)``),
    so that a command writing to ``-o`` does not end in silence; none with ``--quiet``. A path
    the command line named is shown as given there (as a refusal names it:
    floorcalc.util.output.given_name; a whole path relative to the working folder when it lies
    under it), another (a default trace name) relative to the working folder when it lies under
    it, else whole (it says where the file is: not shortened to its name as the outputs' paths
    are), and every path whole with ``--absolute-paths`` (:func:`shown_path`); the size is the
    files' on disk."""
    if getattr(args, "quiet", False):
        return
    from floorcalc.util.numbers import rate

    for what, paths in written:
        if not paths:
            continue
        size = 0
        for path in paths:
            try:
                size += path.stat().st_size
            except OSError:
                pass
        names = ", ".join(shown_path(path, args) for path in paths)
        print(f"floorcalc: wrote {names} ({what}, {rate(size, 'B')})", file=sys.stderr)


def emit(doc: Any, args: argparse.Namespace, trace: Optional[Trace] = None,
         document: Optional[Document] = None) -> None:
    """Render ``doc`` (the command's document, or ``document``) in the chosen format to -o or
    stdout, and for a report the --plot and --annotate-trace files; everything is rendered
    before anything is written, and each file is written whole, atomically. ``trace`` (the
    parsed trace the report came from) is needed for --annotate-trace. Each output written is
    named on stderr last (:func:`say_written`)."""
    renderer = output_renderer(args, document)
    doc = shared(doc, args, document)
    files: Dict[Path, FileData] = {}
    written: Written = []
    stdout: Optional[str] = None
    if args.output is not None:
        out = renderer.files(doc, args.output)
        files.update(out)
        written.append((output_format(args, document).name, list(out)))
    else:
        stdout = renderer.render_terminal(doc)
    is_report = (document or args.document) == "report"
    plot = getattr(args, "plot", None) if is_report else None
    if plot is not None and not doc.device.has_ceilings:
        # a roofline's roofs are the spec's peaks and bandwidth: with no spec there are none
        print(f"floorcalc: warning: --plot {plot} not drawn: a roofline needs a device spec (pass --spec FILE.yaml)",
              file=sys.stderr)
        plot = None
    if plot is not None:
        from floorcalc.render.plot import PLOT_FORMATS, RooflinePlot

        files[plot] = RooflinePlot().render(doc, PLOT_FORMATS[plot.suffix.lower()])
        written.append((f"roofline, {PLOT_FORMATS[plot.suffix.lower()]}", [plot]))
    picture = getattr(args, "timeline", None) if is_report else None
    if picture is not None:
        from floorcalc.render.timeline_plot import TIMELINE_FORMATS, TimelinePlot

        try:
            files[picture] = TimelinePlot().render(doc, TIMELINE_FORMATS[picture.suffix.lower()])
            written.append((f"timeline, {TIMELINE_FORMATS[picture.suffix.lower()]}", [picture]))
        except ValueError as e:  # a CPU run: no device timeline to draw
            print(f"floorcalc: warning: --timeline {shown(picture)} not drawn: {e}", file=sys.stderr)
    ann = getattr(args, "annotate_trace", None) if is_report else None
    if ann is not None:
        from floorcalc.render.annotate import TraceAnnotator, output_is_gzip

        if trace is None:
            raise UsageError("--annotate-trace needs the trace the report was made from")
        files[ann] = TraceAnnotator().annotate(trace, doc, gzipped=output_is_gzip(ann))
        written.append(("annotated trace", [ann]))
    for path, data in files.items():
        write_atomic(path, data, force=args.force)
    if stdout is not None:
        sys.stdout.write(stdout)
    warnings = getattr(doc, "warnings", ()) if is_report else ()
    if warnings and not (output_format(args, document).name == "table" and args.output is None):
        # the terminal table prints them; any other output has them in its document, and here too
        from floorcalc.render.figures import warning_line

        for w in warnings:
            print(f"floorcalc: {warning_line(w)}", file=sys.stderr)
    notes = getattr(doc, "notes", ()) if is_report else ()
    if notes and not (output_format(args, document).name == "table" and args.output is None):
        # the spec choice's warnings (floorcalc.device.choice): the terminal table prints them
        from floorcalc.device.choice import SPEC_WARNING

        for note in notes:
            if note.kind == "warning" and note.text.startswith(SPEC_WARNING):
                print(f"floorcalc: warning: {note.text}", file=sys.stderr)
    timeline = getattr(doc, "timeline", None) if is_report else None
    if timeline is not None and not (output_format(args, document).name == "table" and args.output is None):
        for note in timeline.notes:
            if note.startswith("warning:"):  # a window with no warm pass (floorcalc.timeline.cold)
                print(f"floorcalc: {note}", file=sys.stderr)
    say_written(written, args)


#: the one atomic writer (floorcalc.util.output), under the name cli/ modules use:
#: ``_write_atomic(path, data, force=args.force)``
_write_atomic = write_atomic
