"""Every JSON document floorcalc writes, on every committed trace (tests/data/**, docs/examples),
validates against its schema generated from its record type (docs/schema/, floorcalc.render.schemas)
and reads back equal: the report (``analyze TRACE``), the capture metadata in the trace, the run
of several ranks (``analyze FOLDER``)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import jsonschema
import pytest

import golden
from floorcalc.cli import main
from floorcalc.records.documents import ReportDocument, RunDocument
from floorcalc.render import jsonfmt, jsonread, run as run_json
from floorcalc.render.schemas import document_schemas
from floorcalc.trace.capture_info import KEY, capture_metadata, read_capture_info
from floorcalc.util.codec import decode, encode

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted(golden.DATA.rglob("*.trace.json.gz")) + sorted((ROOT / "docs" / "examples").glob("*.trace.json.gz"))
RUNS = sorted({golden.RUN_SPECS[n][0] for n in golden.RUNS})
SCHEMAS = document_schemas()


def _validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(SCHEMAS[name])


def _errors(name: str, doc: object) -> list:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(name).iter_errors(doc)][:5]


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_document_of_a_committed_trace_validates_and_reads_back(trace: Path, tmp_path: Path) -> None:
    # the capture metadata the trace holds (none for a trace floorcalc did not capture)
    meta = json.loads(gzip.decompress(trace.read_bytes())).get(KEY)
    if meta:
        meta = json.loads(meta) if isinstance(meta, str) else meta
        assert not _errors("capture", meta), _errors("capture", meta)
        again = json.loads(json.dumps(capture_metadata(read_capture_info(meta))))
        assert not _errors("capture", again) and read_capture_info(again) == read_capture_info(meta)
    # the report
    out = tmp_path / "r.json"
    assert main(["analyze", str(trace), "-o", str(out)]) == 0
    text = out.read_text()
    doc = json.loads(text)
    assert doc["schema_version"] == 2 and not _errors("report", doc), _errors("report", doc)
    assert encode(decode(ReportDocument, doc)) == doc
    assert jsonfmt.dumps(jsonread.loads(text)) == text


@pytest.mark.parametrize("folder", RUNS)
def test_every_committed_run_validates_and_reads_back(folder: str, tmp_path: Path) -> None:
    out = tmp_path / "run.json"
    assert main(["analyze", str(golden.DISTRIBUTED / folder), "--workers", "1", "-o", str(out)]) == 0
    text = out.read_text()
    doc = json.loads(text)
    assert not _errors("run", doc), _errors("run", doc)
    back = run_json.loads(text, name=str(out))
    assert isinstance(back, RunDocument) and encode(back) == doc
    for rep in doc["reports"].values():
        assert jsonfmt.dumps(jsonread.loads(json.dumps(rep, indent=1) + "\n")) == json.dumps(rep, indent=1) + "\n"


def test_a_run_read_back_names_a_bad_key(tmp_path: Path) -> None:
    from floorcalc.util.errors import ReportFileError

    out = tmp_path / "run.json"
    assert main(["analyze", str(golden.DISTRIBUTED / RUNS[0]), "--workers", "1", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    doc["ranks"][0]["passes"] = -1
    with pytest.raises(ReportFileError) as e:
        run_json.loads(json.dumps(doc), name="run.json")
    assert str(e.value).startswith("run run.json: ranks[0].passes: -1 is negative") and e.value.exit_code == 6


@pytest.mark.parametrize("extra", [[], ["--compare", "--depth", "0"]], ids=["count", "count-compare"])
def test_a_count_document_validates_and_reads_back(extra: list, tmp_path: Path) -> None:
    from floorcalc.render import count as count_json

    out = tmp_path / "c.json"
    assert main(["count", str(ROOT / "examples" / "mlp.py"), "-q", "-o", str(out), *extra]) == 0
    doc = json.loads(out.read_text())
    assert not _errors("count", doc), _errors("count", doc)
    assert encode(count_json.loads(out.read_text(), name="c.json")) == doc


def test_a_diff_document_validates_and_reads_back(tmp_path: Path) -> None:
    from floorcalc.render import diff as diff_json

    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "d.json"
    assert main(["analyze", str(golden.DATA / "h200_mlp_eager.trace.json.gz"), "-o", str(a)]) == 0
    assert main(["analyze", str(golden.DATA / "h200_mlp_compiled.trace.json.gz"), "-o", str(b)]) == 0
    assert main(["diff", str(a), str(b), "--format", "json", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["ops"] and not _errors("diff", doc), _errors("diff", doc)
    assert encode(diff_json.loads(out.read_text(), name="d.json")) == doc


def test_a_modes_document_validates_reads_back_and_is_what_it_was(tmp_path: Path) -> None:
    from floorcalc.analysis.driver import analyze_file
    from floorcalc.render import modes

    reports = [(m, analyze_file(golden.DATA / f"h200_mlp_{t}.trace.json.gz")[0])
               for m, t in (("eager", "eager"), ("compile", "compiled"), ("cuda-graphs", "graphs"))]
    text = modes.dumps(reports)
    doc = json.loads(text)
    assert not _errors("modes", doc), _errors("modes", doc)
    assert encode(modes.loads(text, name="m.json")) == doc
    # the layout it had before the codec: each mode's report, its summary with host_overhead_share last
    before = {"schema_version": 1, "modes": {}}
    for m, r in reports:
        d = jsonfmt.to_dict(r)
        d["summary"]["host_overhead_share"] = modes.host_overhead_share(r)
        before["modes"][m] = d
    assert text == json.dumps(before, indent=1) + "\n"
