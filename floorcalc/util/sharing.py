"""Paths in a report that can be shared: the trace, the model file, the spec files and every
absolute path in the command lines and notes, written relative to the working folder when they
lie under it, and as the file name alone when they do not (a paper's LaTeX note, a Markdown
report pasted in an issue, a JSON report sent to a colleague carry no path of this machine's).
``--absolute-paths`` (``absolute_paths=True`` in the Python API) keeps them as they were.

A message on this machine's stderr (a stage line, ``floorcalc: wrote``, the files an interrupted
command kept) names a file for the user to open, not to share: :func:`local_path` and
:func:`local_text` write it relative to the working folder when it lies under it, else whole.

:func:`share_report` and :func:`share_run` are pure functions of a record: they rewrite only
the text fields that hold paths (``capture.trace``, ``capture.model_file``, ``capture.command``
and ``capture_command``, ``device.origin`` (a spec file outside the working folder by its last
two parts, ``devices/h200.yaml``), the notes; a run's rank paths and command), and each path
only where it appears whole (a token of a command line, an absolute path in a note).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
from pathlib import Path
from typing import Callable, Iterable, Mapping, Optional, Tuple

from floorcalc.records import DeviceSpec, Note, RankReports, Report, RunReport

__all__ = ["shared_command", "shared_path", "shared_text", "share_report", "share_run", "local_path", "local_text"]

#: an absolute path inside a longer text (a note, a command line): "/" then no blank and no quote
_ABSOLUTE = re.compile(r"(?<![\w.:/-])(/[^\s'\"`,;()]+)")


def shared_path(path: str, base: Path) -> str:
    """``path`` relative to ``base`` when it lies under it, else its file name; a relative
    path, "" and a path-less word (``/proc/cpuinfo`` is kept: it names a file of every Linux
    machine, not of this one) are left as they are."""
    if not path or not os.path.isabs(path) or path.startswith(("/proc/", "/sys/", "/dev/")):
        return path
    try:
        rel = os.path.relpath(path, base)
    except ValueError:  # another drive (Windows)
        return os.path.basename(path) or path
    if not rel.startswith(os.pardir + os.sep) and rel != os.pardir:
        return rel
    return os.path.basename(path.rstrip(os.sep)) or path


def local_path(path: str, base: Path) -> str:
    """``path`` as a message names a file of this machine for the user to open: relative to
    ``base`` when it lies under it, else as it is (never cut to its name, as :func:`shared_path`
    cuts it)."""
    if not os.path.isabs(path):
        return path
    try:
        rel = os.path.relpath(path, base)
    except ValueError:  # another drive (Windows)
        return path
    return path if rel == os.pardir or rel.startswith(os.pardir + os.sep) else rel


def local_text(text: str, base: Path, named: Optional[Callable[[str], Optional[str]]] = None) -> str:
    """``text`` (a message on stderr) with every absolute path in it as ``named`` names it (the
    CLI: an output as its command line gave it, floorcalc.util.output.given_name), else as
    :func:`local_path` shows it; a folder's trailing separator kept (``traces written: run/``)."""
    def one(m: "re.Match[str]") -> str:
        path = m.group(1)
        tail = os.sep if len(path) > 1 and path.endswith(os.sep) else ""
        path = path[: len(path) - len(tail)]
        return ((named(path) if named is not None else None) or local_path(path, base)) + tail

    return _ABSOLUTE.sub(one, text) if "/" in text else text


def _text(text: str, base: Path) -> str:
    """Every absolute path in ``text`` made shared (:func:`shared_path`)."""
    return _ABSOLUTE.sub(lambda m: shared_path(m.group(1), base), text) if "/" in text else text


def shared_command(command: str, base: Path) -> str:
    """A command line (floorcalc's, or a Python call) with every absolute path in it made shared
    (:func:`shared_path`), as the reports record theirs."""
    return _command(command, base)


def shared_text(text: str, base: Path) -> str:
    """``text`` (a message, a stage line on stderr) with every absolute path in it made shared
    (:func:`shared_path`)."""
    return _text(text, base)


def _command(command: str, base: Path) -> str:
    """A command line with each token that is an absolute path made shared; one that cannot be
    split (unbalanced quotes), and one that is not floorcalc's command line (a Python call,
    ``floorcalc.analyze('/abs/t.json.gz')``, another tool's command) is treated as text."""
    if not command.startswith("floorcalc "):
        return _text(command, base)
    try:
        tokens = shlex.split(command)
    except ValueError:
        return _text(command, base)
    if not any(os.path.isabs(t) or "=/" in t for t in tokens):
        return command
    out = []
    for t in tokens:
        if "=/" in t and not os.path.isabs(t):  # --spec=/abs/file.yaml
            key, _, value = t.partition("=")
            out.append(f"{key}={shared_path(value, base)}")
        else:
            out.append(shared_path(t, base))
    return shlex.join(out)


def _origin(path: str, base: Path) -> str:
    """A spec file's path: relative to ``base`` under it, else its last two parts
    (``devices/h200.yaml``, ``floorcalc/cpu-ceilings.json``), as the reports name it."""
    shared = shared_path(path, base)
    if shared != os.path.basename(path) or not os.path.isabs(path):
        return shared
    parts = Path(path).parts
    return "/".join(parts[-2:]) if len(parts) > 2 else shared


def _device(d: Optional[DeviceSpec], base: Path) -> Optional[DeviceSpec]:
    if d is None or not any(os.path.isabs(o) for o in d.origin):
        return d
    return dataclasses.replace(d, origin=tuple(_origin(o, base) for o in d.origin))


def _notes(notes: Iterable[Note], base: Path) -> Tuple[Note, ...]:
    return tuple(dataclasses.replace(n, text=_text(n.text, base)) for n in notes)


def share_report(report: Report, base: Path, device: bool = True) -> Report:
    """``report`` with its paths written as the module notes say, relative to ``base``;
    ``device`` False leaves the device spec as it is (a DeviceSpec the caller gave, used as it is)."""
    c = report.capture
    capture = dataclasses.replace(
        c, trace=shared_path(c.trace, base), model_file=shared_path(c.model_file, base) if c.model_file else c.model_file,
        command=_command(c.command, base), capture_command=_command(c.capture_command, base))
    spec = _device(report.device, base) if device else report.device
    assert spec is not None
    return dataclasses.replace(report, capture=capture, device=spec,
                               reference=_device(report.reference, base) if device else report.reference,
                               notes=_notes(report.notes, base))


def share_run(run: RunReport, base: Path) -> RunReport:
    """A run (and each rank's report) with its paths written as the module notes say. Reports
    kept as the pieces of the run's JSON (:class:`~floorcalc.records.RankReports`) whose paths
    were made relative to ``base`` where they were made stay as they are; others are read back
    and shared here."""
    ranks = tuple(dataclasses.replace(r, path=shared_path(r.path, base)) for r in run.ranks)
    reports: Mapping[int, Report] = run.reports
    if not (isinstance(reports, RankReports) and reports.paths_base == str(base)):
        reports = {k: share_report(v, base) for k, v in run.reports.items()}
    return dataclasses.replace(run, ranks=ranks, reports=reports, command=_command(run.command, base),
                               device=_device(run.device, base), notes=tuple(_text(n, base) for n in run.notes))
