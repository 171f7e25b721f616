"""The output formats: each format's name, the ``-o`` extensions that pick it, and its renderer.

A command writes one kind of document, and ``--format NAME`` or the extension of ``-o FILE``
picks the format for it (table when neither says):

- ``report``: a :class:`~floorcalc.records.Report` (``floorcalc report``, ``floorcalc analyze``);
- ``diff``: a :class:`~floorcalc.compare.reports.Comparison` of two reports (``floorcalc diff``);
- ``count``: a :class:`~floorcalc.records.CountReport` (``floorcalc count``);
- ``modes``: the reports of one step run in several modes (``floorcalc report --modes``);
- ``run``: a :class:`~floorcalc.records.RunReport`, every rank of a distributed run read
  together (``floorcalc analyze`` of several traces or a folder).

**A new output format is one module and one line here**: write a
:class:`~floorcalc.render.base.Renderer` subclass (its options in its constructor) in a new
module under floorcalc/render/, and add a :class:`Format` line to :data:`FORMATS`. The CLI's
``--format`` choices, its help, the extension inference, the files refused without ``--force``
and docs/cli.md's format tables (checked by tests/unit/test_render_registry.py) all follow from
that line. The roofline plot (``--plot``) and the annotated trace (``--annotate-trace``) are
files written beside the report, not formats of it.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Literal, Optional, Tuple, Type, get_args

from floorcalc.util.errors import UsageError
from floorcalc.render.base import Renderer

#: what a command writes (module notes)
Document = Literal["report", "diff", "count", "modes", "run", "whatif"]
DOCUMENTS: Tuple[Document, ...] = get_args(Document)
#: the format used when neither --format nor -o's extension says
DEFAULT = "table"


@dataclass(frozen=True)
class Format:
    """One output format of one document: ``name`` (``--format NAME``), ``extensions`` (an
    ``-o`` file ending in one picks it; lower case, with the dot), ``renderer`` (the class, as
    ``"module:Class"``, imported only when the format is used) and ``what`` (one line for the
    docs)."""

    document: Document
    name: str
    extensions: Tuple[str, ...]
    renderer: str
    what: str

    def renderer_class(self) -> Type[Renderer]:
        """The renderer class, imported now; TypeError when the line names no Renderer."""
        module, _, name = self.renderer.partition(":")
        cls = getattr(importlib.import_module(module), name)
        if not (isinstance(cls, type) and issubclass(cls, Renderer)):
            raise TypeError(f"{self.renderer} is not a floorcalc.render.base.Renderer")
        return cls


#: every output format, one line each (module notes)
FORMATS: Tuple[Format, ...] = (
    Format("report", "table", (".txt",), "floorcalc.render.table:TableRenderer",
           "rich tables: ops, pass summary, timeline, ceilings"),
    Format("report", "json", (".json",), "floorcalc.render.jsonfmt:JsonRenderer",
           "every figure, docs/json-schema.md; `floorcalc diff` and `floorcalc.load_report` read it back"),
    Format("report", "csv", (".csv",), "floorcalc.render.csvfmt:CsvRenderer",
           "ops; with -o, FILE.kernels.csv, FILE.groups.csv and FILE.summary.csv beside it"),
    Format("report", "md", (".md",), "floorcalc.render.markdown:MarkdownRenderer",
           "GitHub-flavoured Markdown tables, for issues and notes"),
    Format("report", "latex", (".tex",), "floorcalc.render.latex:LatexRenderer",
           "a booktabs table for a paper, with the ceilings and versions in its note"),
    Format("report", "html", (".html", ".htm"), "floorcalc.render.html:HtmlRenderer",
           "one self-contained page: summary, decomposition, timeline picture, roofline, grouped ops, notes"),
    Format("diff", "table", (".txt",), "floorcalc.render.diff:DiffTableRenderer", "text tables: totals, ops ranked"),
    Format("diff", "json", (".json",), "floorcalc.render.diff:DiffJsonRenderer", "every op and total (kind floorcalc.diff)"),
    Format("diff", "md", (".md",), "floorcalc.render.diff:DiffMarkdownRenderer", "Markdown tables"),
    Format("count", "table", (".txt",), "floorcalc.render.count:CountTableRenderer",
           "rich tables: modules, totals, families, top ops"),
    Format("count", "json", (".json",), "floorcalc.render.count:CountJsonRenderer", "schema floorcalc.count (docs/counting.md)"),
    Format("modes", "table", (".txt",), "floorcalc.render.modes:ModesTableRenderer", "one row per mode"),
    Format("modes", "json", (".json",), "floorcalc.render.modes:ModesJsonRenderer", "each mode's full report"),
    Format("run", "table", (".txt",), "floorcalc.render.run:RunTableRenderer",
           "rich tables: ranks, collectives, longest waits and what the late rank did"),
    Format("run", "json", (".json",), "floorcalc.render.run:RunJsonRenderer",
           "the cross-rank figures and each rank's own report (docs/json-schema.md, Runs)"),
    Format("run", "csv", (".csv",), "floorcalc.render.run:RunCsvRenderer",
           "ranks; with -o, FILE.collectives.csv and FILE.instances.csv beside it"),
    Format("run", "md", (".md",), "floorcalc.render.run:RunMarkdownRenderer", "Markdown tables"),
    Format("run", "latex", (".tex",), "floorcalc.render.run:RunLatexRenderer", "the cross-rank table, booktabs"),
    Format("whatif", "table", (".txt",), "floorcalc.render.whatif:WhatIfTableRenderer",
           "the projections: step time, parts, what each rests on"),
    Format("whatif", "json", (".json",), "floorcalc.render.whatif:WhatIfJsonRenderer",
           "the report JSON with its whatif section"),
    Format("whatif", "md", (".md",), "floorcalc.render.whatif:WhatIfMarkdownRenderer", "the what-if section"),
)


def formats(document: Document) -> Tuple[Format, ...]:
    """The formats of ``document``, in :data:`FORMATS` order."""
    return tuple(f for f in FORMATS if f.document == document)


def names(document: Document) -> Tuple[str, ...]:
    """The ``--format`` choices of ``document``."""
    return tuple(f.name for f in formats(document))


def get(document: Document, name: str) -> Format:
    """The format ``name`` of ``document``; :class:`UsageError` when it has none of that name."""
    for f in formats(document):
        if f.name == name:
            return f
    raise UsageError(f"no {name!r} format for {document}; formats: {', '.join(names(document))}")


def for_extension(document: Document, path: Path) -> Optional[Format]:
    """The format of ``document`` an ``-o`` file named ``path`` picks, or None."""
    suffix = path.suffix.lower()
    return next((f for f in formats(document) if suffix in f.extensions), None)


def choose(document: Document, name: Optional[str], output: Optional[Path]) -> Format:
    """The format ``--format name`` (if given), else ``-o output``'s extension, else table picks.
    Raises :class:`UsageError` when ``output``'s extension names no format of ``document``."""
    if name:
        return get(document, name)
    if output is not None:
        f = for_extension(document, output)
        if f is None:
            raise UsageError(f"cannot infer a format from {output.name!r}; pass --format {{{','.join(names(document))}}}")
        return f
    return get(document, DEFAULT)


def extensions_help(document: Document) -> str:
    """``.json .csv .md .tex .txt``: the extensions -o infers a format from, the default's last."""
    ordered = sorted(formats(document), key=lambda f: f.name == DEFAULT)
    return " ".join(e for f in ordered for e in f.extensions)


def renderer(fmt: Format, **options: Any) -> Renderer:
    """An instance of ``fmt``'s renderer built with the ``options`` its constructor takes; the
    others, and those that are None (not given: the constructor's default holds), are left out."""
    cls = fmt.renderer_class()
    params = inspect.signature(cls).parameters
    takes_all = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    given: Dict[str, Any] = {k: v for k, v in options.items() if v is not None and (takes_all or k in params)}
    return cls(**given)
