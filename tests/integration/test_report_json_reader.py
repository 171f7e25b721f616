"""The report JSON read back (floorcalc.render.jsonread): the same document again, byte for
byte, for every committed trace; the same tables, CSV, Markdown and LaTeX; one-line errors for
files that are not what floorcalc writes."""

import json
from pathlib import Path

import pytest

import golden
from floorcalc.cli import main
from floorcalc.util.errors import ReportFileError
from floorcalc.render import jsonfmt, jsonread

ROOT = Path(__file__).resolve().parents[2]
CALIBRATED = ROOT / "docs" / "examples" / "h200-calibrated.yaml"
TRACES = [golden.DATA / f"{n}.trace.json.gz" for n in golden.FIXTURES] + sorted((golden.DATA / "plain").glob("*.trace.json.gz"))


def _analyze(trace, tmp_path, *extra):
    out = tmp_path / "r.json"
    assert main(["analyze", str(trace), "-o", str(out), *extra]) == 0
    return out.read_text()


@pytest.mark.parametrize("trace", TRACES, ids=lambda p: p.name.split(".")[0])
def test_every_committed_trace_round_trips(trace, tmp_path):
    # GIVEN the JSON report of a committed trace
    text = _analyze(trace, tmp_path)
    # WHEN it is read back and written again
    again = jsonfmt.dumps(jsonread.loads(text))
    # THEN it is the same document, character for character
    assert again == text


def test_a_calibrated_report_keeps_its_reference_device(tmp_path):
    text = _analyze(golden.DATA / "h200_gpt2.trace.json.gz", tmp_path, "--spec", str(CALIBRATED))
    rep = jsonread.loads(text)
    assert rep.reference is not None and rep.reference.key == "h200" and rep.device.key == "h200-calibrated"
    assert rep.device.peak_flop_per_s["tensor.bfloat16"].basis == "measured"
    assert jsonfmt.dumps(rep) == text


def test_a_live_cpu_report_round_trips(tmp_path):
    # GIVEN a report made by the run that captured it (its capture section has every field)
    out = tmp_path / "r.json"
    assert main(["report", str(ROOT / "examples" / "mlp.py"), "--device", "cpu", "-q", "--warmup", "1", "--iters", "1",
                 "--trace-out", str(tmp_path / "t.trace.json.gz"), "-o", str(out)]) == 0
    text = out.read_text()
    rep = jsonread.load(out)
    # THEN it reads back as a live capture, and writes back the same
    assert rep.capture.live and rep.capture.device == "cpu" and rep.target == "cpu"
    assert jsonfmt.dumps(rep) == text


@pytest.mark.parametrize("name", ["h200_gpt2", "h200_llama_decode_graphs", "h200_k13_pageable_copy"])
def test_every_format_renders_the_same_from_the_read_back_report(name, tmp_path):
    from floorcalc.analysis.driver import analyze_file
    from floorcalc.render import registry

    rep, _ = analyze_file(golden.DATA / f"{name}.trace.json.gz", spec=CALIBRATED)
    back = jsonread.loads(jsonfmt.dumps(rep))
    for fmt in registry.formats("report"):
        r = registry.renderer(fmt)
        if fmt.name == "html":
            # the page's timeline picture is drawn from the work units, which stay with the trace:
            # the read-back report's page says so in its place; everything else is the same
            from floorcalc.render.html import HtmlRenderer

            r = HtmlRenderer(figures=False)
        assert r.render(back) == r.render(rep), fmt.name
        assert r.files(back, tmp_path / f"x{fmt.extensions[0]}") == r.files(rep, tmp_path / f"x{fmt.extensions[0]}")


def test_what_the_json_lacks_is_rebuilt_or_empty(tmp_path):
    from floorcalc.analysis.driver import analyze_file

    rep, _ = analyze_file(golden.DATA / "h200_gpt2.trace.json.gz")
    back = jsonread.loads(jsonfmt.dumps(rep))
    # the peak MFU divides by: rebuilt by the analysis's own rule from the ops and the device
    assert (back.summary.mfu_peak_key, back.summary.mfu_peak_flop_per_s) == \
        (rep.summary.mfu_peak_key, rep.summary.mfu_peak_flop_per_s) != (None, None)
    assert back.device.origin == rep.device.origin
    assert back.units == () and back.window is None and rep.units  # the work units stay with the trace
    assert back.ops == rep.ops and back.kernels == rep.kernels and back.timeline == rep.timeline


def _edited(tmp_path, edit):
    d = json.loads(_analyze(golden.DATA / "h200_tiny_ops.trace.json.gz", tmp_path))
    edit(d)
    p = tmp_path / "edited.json"
    p.write_text(json.dumps(d))
    return p


def _set(path, value):
    def edit(d):
        *keys, last = path
        for k in keys:
            d = d[k]
        d[last] = value
    return edit


@pytest.mark.parametrize("edit, needle", [
    (_set(["ops", 1, "duration_us"], "fast"), "ops[1].duration_us: 'fast', not a number"),
    (_set(["ops", 0, "bound"], "lazy"), "ops[0].bound: 'lazy' is not one of compute, memory, overhead, communication, uncounted"),
    (_set(["kernels"], {}), "kernels: {}, not a list"),
    (lambda d: d["device"]["figures"].pop("mem_bytes_per_s"), "device.figures: no 'mem_bytes_per_s'"),
    (lambda d: d["summary"].pop("wall_us"), "summary: no 'wall_us'"),
    (_set(["timeline", "gaps", "longest", 0, "by_cause_us"], [1, 2]), "timeline.gaps.longest[0].by_cause_us: [1, 2], not an object"),
    (_set(["capture", "warmup"], "three"), "capture.warmup: 'three', not an integer"),
])
def test_a_damaged_report_is_one_line_naming_the_key(tmp_path, capsys, edit, needle):
    # GIVEN a report edited by hand (what analyzing it printed left out)
    bad = _edited(tmp_path, edit)
    capsys.readouterr()
    # WHEN it is read back, directly or by diff
    with pytest.raises(ReportFileError) as e:
        jsonread.load(bad, "A")
    assert needle in str(e.value) and str(e.value).startswith(f"report A ({bad}): ")
    assert main(["diff", str(bad), str(bad)]) == 6
    # THEN the CLI says so on one line, exit code 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("floorcalc: error: report A") and needle in err[0], err


def test_the_api_reads_a_report_back(tmp_path):
    import floorcalc

    text = _analyze(golden.DATA / "h200_two_streams.trace.json.gz", tmp_path)
    rep = floorcalc.load_report(tmp_path / "r.json")
    assert rep.trace is None and rep.to_json() == text
    with pytest.raises(ReportFileError, match="not found"):
        floorcalc.load_report(tmp_path / "missing.json")
