"""The JSON Schema of every document floorcalc writes, generated from its record type
(floorcalc.records.documents) by floorcalc.util.codec.schema; committed under docs/schema/ and
checked equal to what this module makes (tests/unit/test_schemas.py).

    python -m floorcalc.render.schemas docs/schema           # write docs/schema/<name>.schema.json
    python -m floorcalc.render.schemas docs/schema --check   # exit 1 when a committed one differs
    python -m floorcalc.render.schemas docs/schema --docs docs/json-schema.md   # and its field lists

:data:`DOCUMENTS` names each document and its record: ``report`` (``floorcalc analyze``/``report
--format json``), ``run`` (``analyze`` of several ranks), ``modes`` (``report --modes``), ``count``, ``diff``, ``capture`` (the capture metadata in a trace floorcalc recorded).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import typing
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional

from floorcalc.records.documents import (REPORT_SCHEMA_VERSION, CaptureMetadata, CountDocument, DiffDocument,
                                         ModesDocument, ReportDocument, RunDocument)
from floorcalc.util.codec import document_fields, field_docs, schema

#: document name -> (its record type, its title, a description for readers)
DOCUMENTS: Mapping[str, Any] = {
    "report": (ReportDocument, f"floorcalc report, schema_version {REPORT_SCHEMA_VERSION}",
               "The JSON that `floorcalc analyze` and `floorcalc report` write for one trace (docs/json-schema.md). "
               "Generated from floorcalc.records.documents.ReportDocument by `python -m floorcalc.render.schemas "
               "docs/schema`: do not edit. Times are microseconds, rates per second, bytes bytes; null means not "
               "known (a figure that is not finite is null)."),
    "run": (RunDocument, "floorcalc run of several ranks, schema_version 1",
            "The JSON that `floorcalc analyze` writes for several traces of one distributed run (docs/json-schema.md, "
            "Runs). Times are microseconds per pass; on the reference rank's clock where they are times of day. null "
            "means not known. Each rank's own report is under `reports`, in the layout of report.schema.json. "
            "Generated from floorcalc.records.documents.RunDocument by `python -m floorcalc.render.schemas "
            "docs/schema`: do not edit."),
    "modes": (ModesDocument, "floorcalc report --modes, schema_version 1",
              "The JSON that `floorcalc report MODEL.py --modes ...` writes: each mode's report (report.schema.json's "
              "layout, its summary with host_overhead_share), by mode. Generated from "
              "floorcalc.records.documents.ModesDocument by `python -m floorcalc.render.schemas docs/schema`: do not "
              "edit."),
    "count": (CountDocument, "floorcalc count, schema floorcalc.count version 1",
              "The JSON that `floorcalc count MODEL.py --format json` writes (docs/counting.md). Generated from "
              "floorcalc.records.documents.CountDocument by `python -m floorcalc.render.schemas docs/schema`: do not "
              "edit."),
    "diff": (DiffDocument, "floorcalc diff, kind floorcalc.diff, schema_version 1",
             "The JSON that `floorcalc diff A.json B.json --format json` writes (docs/json-schema.md). Generated from "
             "floorcalc.records.documents.DiffDocument by `python -m floorcalc.render.schemas docs/schema`: do not "
             "edit."),
    "capture": (CaptureMetadata, "floorcalc capture metadata (a trace's 'floorcalc' key)",
                "What floorcalc's capture records in a trace, under its top-level `floorcalc` key "
                "(floorcalc.trace.capture_info). Generated from floorcalc.records.documents.CaptureMetadata by "
                "`python -m floorcalc.render.schemas docs/schema`: do not edit."),
}


def document_schemas() -> Dict[str, Dict[str, Any]]:
    """Each document's schema, by name (file ``<name>.schema.json``)."""
    return {name: schema(cls, title=title, description=desc, schema_id=f"https://floorcalc.invalid/schema/{name}.schema.json")
            for name, (cls, title, desc) in DOCUMENTS.items()}


def schema_text(doc: Dict[str, Any]) -> str:
    """A schema as the committed file's text."""
    return json.dumps(doc, indent=1) + "\n"


#: the generated part of docs/json-schema.md lies between these lines
BEGIN = "<!-- the field lists below are generated: python -m floorcalc.render.schemas docs/schema --docs docs/json-schema.md -->"
END = "<!-- end of the generated field lists -->"


def _records(cls: type) -> List[type]:
    """``cls`` and every record type its document nests, each once, in the order first met."""
    seen: List[type] = []

    def walk(t: Any) -> None:
        if isinstance(t, type) and dataclasses.is_dataclass(t):
            if t in seen:
                return
            seen.append(t)
            for name in document_fields(t):
                walk(typing.get_type_hints(t)[name])
            return
        for a in typing.get_args(t):
            walk(a)

    walk(cls)
    return seen


def reference_markdown() -> str:
    """The field lists of every document, in Markdown: for each document, each record type it
    holds, a table of its keys, their types and their descriptions (floorcalc.util.codec.field_docs:
    the records' field comments and docstrings)."""
    lines = [BEGIN, "", "## Field reference (generated)", "",
             "Every key of every document, from the record types that write and read it "
             "(floorcalc.records.documents and the records they hold). Types: `number | null` is a figure that "
             "may be unknown; a record's name is an object of that record's keys; ranges (`>= 0`, `> 0`) are "
             "checked when a document is read.", ""]
    done: typing.Set[type] = set()
    for name, (cls, title, _desc) in DOCUMENTS.items():
        lines += [f"### {title} (`{name}.schema.json`)", ""]
        for rec in _records(cls):
            if rec in done:
                lines += [f"`{rec.__name__}`: as above.", ""]
                continue
            done.add(rec)
            doc = " ".join((rec.__doc__ or "").strip().split("\n\n")[0].split())
            lines += [f"#### `{rec.__name__}`", ""]
            if doc and not doc.startswith(f"{rec.__name__}("):
                lines += [doc, ""]
            lines += ["| key | type | meaning |", "| --- | --- | --- |"]
            ranges = {f.name: f.metadata for f in dataclasses.fields(rec)}
            for key, words, desc in field_docs(rec):
                meta: typing.Mapping[str, Any] = ranges.get(key, {})
                rng = "; >= 0" if meta.get("min") == 0 else "; > 0" if meta.get("gt") == 0 else ""
                cell = desc.replace("|", "\\|") or ""
                lines.append(f"| `{key}` | {words.replace('|', 'or')}{rng} | {cell} |")
            lines.append("")
    lines.append(END)
    return "\n".join(lines) + "\n"


def with_reference(text: str) -> str:
    """``text`` (docs/json-schema.md) with its generated part replaced (appended when absent)."""
    new = reference_markdown()
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        return head + new.rstrip("\n") + tail
    return text.rstrip("\n") + "\n\n" + new


def main(argv: Optional[List[str]] = None) -> int:
    """Write (or with ``--check`` compare) every document's schema in the folder given."""
    p = argparse.ArgumentParser(prog="python -m floorcalc.render.schemas", description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path)
    p.add_argument("--check", action="store_true", help="compare, write nothing; exit 1 when one differs")
    p.add_argument("--docs", type=Path, default=None, help="also the field lists of this Markdown file (docs/json-schema.md)")
    args = p.parse_args(argv)
    stale = []
    if args.docs is not None:
        text = args.docs.read_text()
        if args.check:
            if with_reference(text) != text:
                stale.append(str(args.docs))
        else:
            args.docs.write_text(with_reference(text))
            print(f"wrote {args.docs}")
    for name, doc in document_schemas().items():
        path = args.folder / f"{name}.schema.json"
        text = schema_text(doc)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
        else:
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print(f"out of date (run python -m floorcalc.render.schemas {args.folder}): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
