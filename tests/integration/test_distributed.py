"""Several ranks of one run read together: matching, clocks, waits, what the late rank did, the
outputs, bad input, and the map step in a process pool and on a Dask cluster.

The traces are hand-built (tests/builders.py) with the fields torch.profiler writes for
collectives and ``distributedInfo``; times in microseconds."""

import gzip
import json
from pathlib import Path

import pytest

from builders import KinetoBuilder, collective_run, h200_spec, tp_pass
from floorcalc.distributed import analyze_run
from floorcalc.cli import main
from floorcalc.util.errors import RunError

ROOT = Path(__file__).resolve().parents[2]


def write(bs, folder: Path, shifts=None, names="rank-{r}.json.gz"):
    folder.mkdir(parents=True, exist_ok=True)
    shifts = shifts or {}
    paths = []
    for r, b in enumerate(bs):
        p = folder / names.format(r=r)
        (b.shifted(shifts[r]) if r in shifts else b).write(p)
        paths.append(p)
    return paths


def run_of(bs, tmp_path, shifts=None, **kw):
    write(bs, tmp_path / "run", shifts)
    kw.setdefault("workers", 1)
    return analyze_run([tmp_path / "run"], spec=h200_spec(), **kw)


# ---------------------------------------------------------------------------------------------
# issue 11's case: rank 1 spends 3 ms on the host before its matmuls


def test_the_waiting_rank_is_told_it_waited_on_the_late_rank_and_what_that_rank_did(tmp_path):
    run = run_of(tp_pass(world=2, late_rank=1, late_us=3000.0), tmp_path)
    r0, r1 = run.ranks
    assert (r0.status, r1.status) == ("ok", "ok")
    # rank 0's all_reduce took 3,241 us: 3,000 waiting on rank 1, 241 transfer
    assert r0.comm_us == pytest.approx(3241.0)
    assert r0.peer_wait_us == pytest.approx(3000.0) and r0.transfer_us == pytest.approx(241.0)
    assert (r0.waited_on, r0.waited_on_us) == (1, pytest.approx(3000.0))
    assert r0.decomposition.bound == "peer_wait"
    assert r0.decomposition.communication_us == pytest.approx(241.0)
    # rank 1 waited on nobody; its own time went to the host
    assert r1.peer_wait_us == 0.0 and r1.waited_on is None and r1.decomposition.bound == "host"
    # what rank 1 was doing meanwhile: Python on the host, then its two matmuls
    (w,) = r0.waits
    doing = dict(w.activity)
    assert doing["host python (no op)"] == pytest.approx(2580.0)
    assert doing["GPU: aten::mm"] == pytest.approx(400.0)
    assert max(doing, key=doing.get).startswith("host python")
    # the instance: transfer = its length on the late rank, the floor from the link
    (i,) = run.instances
    assert (i.late_rank, i.skew_us, i.transfer_us) == (1, pytest.approx(3000.0), pytest.approx(241.0))
    assert i.floor_us == pytest.approx((64 << 20) / 450e9 * 1e6 + 5.0)     # 149.1 us over NVLink + 5 us
    assert i.floor_us <= i.transfer_us
    (row,) = run.collectives
    assert (row.kind, row.ranks, row.message_bytes, row.late_rank) == ("all_reduce", 2, 64 << 20, 1)
    # every rank's decomposition still adds up to its wall
    for r in run.ranks:
        d = r.decomposition
        assert sum(getattr(d, p) for p in d.PARTS) == pytest.approx(d.wall_us)


def test_clocks_are_aligned_on_collective_end_times(tmp_path):
    # GIVEN the same run with rank 1's clock 1.5 s ahead (ranks on two hosts)
    plain = run_of(tp_pass(), tmp_path / "a")
    shifted = run_of(tp_pass(), tmp_path / "b", shifts={1: 1.5e6})
    # THEN the waits and skews are the same, and the offset found is the shift
    assert shifted.ranks[1].clock_offset_us == pytest.approx(-1.5e6)
    assert plain.ranks[1].clock_offset_us == pytest.approx(0.0)
    for a, b in zip(plain.ranks, shifted.ranks):
        assert (a.peer_wait_us, a.transfer_us, a.waited_on) == (pytest.approx(b.peer_wait_us),
                                                                pytest.approx(b.transfer_us), b.waited_on)
    assert shifted.instances[0].skew_us == pytest.approx(plain.instances[0].skew_us)
    assert "clocks aligned on collective end times" in shifted.notes[0] and "-1,500,000.0" in shifted.clock


def test_eight_ranks_two_tensor_parallel_groups_and_a_world_collective(tmp_path):
    # GIVEN 8 ranks: groups "1" (ranks 0-3) and "2" (4-7) all_reduce, then all 8 do; rank 5 is late
    sched = [("1", [0, 1, 2, 3]), ("2", [4, 5, 6, 7]), ("0", list(range(8)))]
    bs = collective_run(8, sched, late={5: 800.0}, steps=3)
    shifts = {r: (r - 3) * 12345.0 for r in range(8)}                   # every host its own clock
    run = run_of(bs, tmp_path, shifts=shifts)
    by = {r.rank: r for r in run.ranks}
    # the offsets are recovered through the world collective
    for r in range(8):
        assert by[r].clock_offset_us == pytest.approx(-shifts[r] + shifts[0])
    # in group 2, ranks 4, 6, 7 wait on rank 5; group 1 waits on nobody in its own collective
    for r in (4, 6, 7):
        assert by[r].waits[0].peer == 5
        assert dict((w.peer, w.wait_us) for w in by[r].waits)[5] == pytest.approx(800.0)
    g1 = next(c for c in run.collectives if c.group == "1")
    assert g1.skew_us == pytest.approx(0.0) and g1.wait_us == pytest.approx(0.0)
    # ranks 0-3 wait in the world all_reduce for group 2, which was in its own all_reduce
    w0 = by[0].waits[0]
    assert w0.peer in (4, 5, 6, 7) and w0.wait_us == pytest.approx(800.0)
    assert any(a.startswith("GPU collective") for a, _ in w0.activity)
    assert run.instance_count == 3 * 3 and run.unmatched == 0
    assert all(r.status == "ok" for r in run.ranks)


def test_torch_seq_numbers_match_collectives(tmp_path):
    sched = [("0", [0, 1])]
    bs = collective_run(2, sched, late={0: 300.0}, steps=4, seq=True)
    run = run_of(bs, tmp_path)
    assert run.instance_count == 4 and {i.seq for i in run.instances} == {0, 1, 2, 3}
    assert run.ranks[1].waited_on == 0 and run.ranks[1].peer_wait_us == pytest.approx(4 * 300.0 / 4)


def test_a_window_that_starts_a_collective_later_is_matched_at_its_offset(tmp_path):
    # GIVEN 3 steps whose collectives differ in size; rank 1's trace lost the first collective
    bs = collective_run(2, [("0", [0, 1])], late={1: 200.0}, steps=3)
    sizes = [1 << 20, 1 << 21, 1 << 22]
    for b in bs:
        k = 0
        for ev in b.events:
            if ev["name"] == "record_param_comms" or ev.get("args", {}).get("Collective name"):
                ev["args"]["In msg nelems"] = ev["args"]["Out msg nelems"] = sizes[k // 2]
                k += 1
    # rank 1's profiler started a step later: its trace holds steps 1 and 2 only
    step1 = next(ev["ts"] for ev in bs[1].events if ev["name"] == "ProfilerStep#1")
    bs[1].events = [ev for ev in bs[1].events if ev["ts"] >= step1]
    run = run_of(bs, tmp_path)
    assert any("matched at that offset" in n for n in run.notes)
    assert {i.message_bytes for i in run.instances} == {2 << 21, 2 << 22}
    assert run.ranks[0].waited_on == 1


def test_pipeline_send_and_recv_are_matched(tmp_path):
    # GIVEN stage 0 (rank 0) computes 500 us then sends; stage 1 (rank 1) posts its recv at once
    bs = []
    for r in range(2):
        b = KinetoBuilder()
        b.distributed(r, 2)
        b.step(0, 0.0, 800.0)
        bs.append(b)
    mm = bs[0].op("aten::mm", 10.0, 5.0)
    bs[0].launch(11.0, 20.0, 500.0, "gemm", ext=mm)
    bs[0].collective(25.0, 520.0, 60.0, name="send", op="c10d::send", peer=1, nelems=1 << 20)
    bs[1].collective(12.0, 30.0, 550.0, name="recv", op="c10d::recv_", peer=0, nelems=1 << 20)
    run = run_of(bs, tmp_path)
    (i,) = run.instances
    assert (i.kind in ("send", "recv"), i.late_rank, i.ranks) == (True, 0, (0, 1))
    r1 = run.ranks[1]
    assert r1.waited_on == 0 and r1.peer_wait_us == pytest.approx(490.0)
    assert dict(r1.waits[0].activity)["GPU: aten::mm"] == pytest.approx(490.0)


# ---------------------------------------------------------------------------------------------
# bad input: a one-line error, or a labelled partial result with every readable rank


def test_a_truncated_rank_is_reported_partial_and_the_others_in_full(tmp_path):
    paths = write(tp_pass(world=3, late_rank=1), tmp_path / "run", names="rank-{r}.json")
    raw = paths[2].read_bytes()
    paths[2].write_bytes(raw[: int(len(raw) * 0.6)])
    run = analyze_run([tmp_path / "run"], spec=h200_spec(), workers=1)
    by = {r.rank: r for r in run.ranks}
    assert by[2].status in ("partial", "unreadable") and "rank 2" in run.partial
    assert by[0].status == by[1].status == "ok" and by[0].wall_us > 0


def test_a_missing_rank_gives_a_labelled_partial_result(tmp_path):
    paths = write(tp_pass(world=4, late_rank=1), tmp_path / "run")
    paths[3].unlink()
    run = analyze_run([tmp_path / "run"], spec=h200_spec(), workers=1)
    assert run.world_size == 4 and run.ranks[3].status == "missing" and "rank 3 missing" in run.partial
    assert [r.status for r in run.ranks[:3]] == ["ok"] * 3
    # without rank 3 no all_reduce has all its members: nobody's wait can be told
    assert run.instance_count == 0 and run.unmatched == 3


def test_two_traces_of_one_rank_are_refused(tmp_path):
    a = write(tp_pass(), tmp_path / "a")
    b = write(tp_pass(), tmp_path / "b")
    with pytest.raises(RunError, match="two traces claim rank 0"):
        analyze_run([a[0], b[0], a[1]], spec=h200_spec(), workers=1)


def test_traces_of_runs_of_different_sizes_are_refused(tmp_path):
    a = write(tp_pass(world=2), tmp_path / "a")
    b = write(tp_pass(world=4), tmp_path / "b")
    with pytest.raises(RunError, match="different world sizes"):
        analyze_run([a[0], b[1]], spec=h200_spec(), workers=1)


def test_traces_of_two_runs_are_refused_by_what_they_record_or_by_their_clocks(tmp_path):
    bs = tp_pass()
    bs[1].meta["distributedInfo"]["nccl_version"] = "2.18.3"
    with pytest.raises(RunError, match="not of one run: rank 0 .* NCCL"):
        run_of(bs, tmp_path / "a")
    with pytest.raises(RunError, match="two runs mixed"):
        run_of(tp_pass(), tmp_path / "b", shifts={1: 600e6})              # ten minutes apart


def test_traces_without_distributed_info_take_their_rank_from_the_file_name(tmp_path):
    bs = tp_pass()
    for b in bs:
        del b.meta["distributedInfo"]
    run = run_of(bs, tmp_path / "a")
    assert run.world_size == 2 and any("file names" in n for n in run.notes)
    assert run.ranks[0].waited_on == 1
    write(bs, tmp_path / "b", names="trace-{r}.json")
    with pytest.raises(RunError, match="no distributedInfo and its file name gives none"):
        analyze_run([tmp_path / "b"], spec=h200_spec(), workers=1)


def test_a_folder_of_reports_is_not_read_as_ranks_without_rank_names(tmp_path, capsys):
    # GIVEN a folder like docs/examples: floorcalc reports, other JSON, and one trace without rank info
    import shutil

    ex = ROOT / "docs" / "examples"
    folder = tmp_path / "examples"
    folder.mkdir()
    for name in ("gpt2.h200.json", "gpt2.h200.calibrated.json", "llama_decode.h200.modes.json", "whatif.proof.json"):
        shutil.copy(ex / name, folder / name)
    # WHEN only the JSON files are there THEN the folder is said to hold no trace (no rename advice)
    assert main(["analyze", str(folder)]) == 6
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "rank-N" not in err[0], err
    assert f"folder {folder} holds no Kineto trace, only 4 other JSON files (gpt2.h200.calibrated.json (a floorcalc " \
           "report); gpt2.h200.json (a floorcalc report); llama_decode.h200.modes.json (a floorcalc report); ...)" \
           in err[0], err
    # WHEN the trace is there too THEN the reports are no ranks; only the trace lacks a rank, and the
    # line says how to analyse it alone
    shutil.copy(ex / "gpt2.h200.trace.json.gz", folder / "gpt2.h200.trace.json.gz")
    assert main(["analyze", str(folder)]) == 12
    err = capsys.readouterr().err.strip().splitlines()
    trace = folder / "gpt2.h200.trace.json.gz"
    assert len(err) == 1 and err[0].startswith(f"floorcalc: error: no rank for {trace}: it has no distributedInfo"), err
    assert "and 4 more" not in err[0] and f"give the file itself: floorcalc analyze {trace}" in err[0], err
    assert "(4 other JSON files of the folder skipped: no trace)" in err[0], err
    # WHEN a report is given by name among traces THEN its own error says why, with no rename advice
    assert main(["analyze", str(folder / "gpt2.h200.json"), str(trace)]) == 12
    err = capsys.readouterr().err.strip()
    assert "is a floorcalc report, not a Kineto trace" in err and "cannot be a rank of the run" in err and "rank-N" not in err, err


def test_reports_beside_the_ranks_traces_are_skipped_with_a_note(tmp_path):
    paths = write(tp_pass(), tmp_path / "run")
    (tmp_path / "run" / "summary.json").write_text((ROOT / "docs" / "examples" / "gpt2.h200.json").read_text())
    run = analyze_run([tmp_path / "run"], spec=h200_spec(), workers=1)
    assert run.world_size == 2 and [r.status for r in run.ranks] == ["ok", "ok"] and len(paths) == 2
    assert "1 file of the folder skipped, no trace: summary.json (a floorcalc report)" in run.notes


def test_a_rank_outside_the_world_is_refused(tmp_path):
    bs = tp_pass()
    bs[1].meta["distributedInfo"]["rank"] = 5          # not a rank of a world of 2: not read
    write(bs, tmp_path / "run", names="r{r}.json")
    with pytest.raises(RunError):
        analyze_run([tmp_path / "run"], spec=h200_spec(), workers=1)


def test_cli_errors_are_one_line_with_their_exit_code(tmp_path, capsys):
    a = write(tp_pass(world=2), tmp_path / "a")
    b = write(tp_pass(world=4), tmp_path / "b")
    assert main(["analyze", str(a[0]), str(b[1])]) == 12
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("floorcalc: error:") and "Traceback" not in err
    assert main(["analyze", str(tmp_path / "nothing")]) == 6
    (tmp_path / "empty").mkdir()
    assert main(["analyze", str(tmp_path / "empty")]) == 6
    assert main(["analyze", str(a[0]), "--workers", "2"]) == 2            # --workers is for a run
    assert main(["analyze", str(tmp_path / "a"), "--workers", "0"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_cli_partial_run_warns_and_reports_the_readable_ranks(tmp_path, capsys):
    paths = write(tp_pass(world=3), tmp_path / "run")
    paths[1].write_bytes(b"{not a trace")
    assert main(["analyze", str(tmp_path / "run"), "--format", "json"]) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)
    assert [r["status"] for r in doc["ranks"]] == ["ok", "unreadable", "ok"]
    assert "not valid JSON" in doc["ranks"][1]["problem"] or doc["ranks"][1]["problem"]
    assert cap.err.startswith("floorcalc: warning: partial result: rank 1 unreadable")


# ---------------------------------------------------------------------------------------------
# outputs


@pytest.fixture
def run_folder(tmp_path):
    write(tp_pass(world=2), tmp_path / "run")
    return tmp_path / "run"


def test_json_validates_against_the_run_schema(run_folder, tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    out = tmp_path / "run.json"
    assert main(["analyze", str(run_folder), "-o", str(out), "--workers", "1"]) == 0
    doc = json.loads(out.read_text())
    schema = json.loads((ROOT / "docs" / "schema" / "run.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(doc, schema)
    report_schema = json.loads((ROOT / "docs" / "schema" / "report.schema.json").read_text())
    for rep in doc["reports"].values():
        jsonschema.validate(rep, report_schema)
    assert doc["ranks"][0]["waited_on"] == 1 and doc["ranks"][0]["peer_wait_us"] == pytest.approx(3000.0)
    assert doc["reports"]["0"]["timeline"]["communication"]["collectives"] == 1
    # AND the file holds orjson's bytes as they are: the text the run's JSON renders, in UTF-8
    from floorcalc.distributed import analyze_run
    from floorcalc.render.run import RunJsonRenderer

    run = analyze_run([run_folder], workers=1)
    written = RunJsonRenderer().files(run, out)[out]
    assert isinstance(written, bytes) and written == RunJsonRenderer().render(run).encode()


def test_each_ranks_report_is_written_by_its_worker_as_the_run_shares_it(run_folder, tmp_path, monkeypatch):
    # GIVEN a run analysed with its workers writing each rank's report relative to the working
    # folder (what the CLI asks), and the same run analysed with the reports' paths as they are
    from floorcalc.distributed import analyze_run
    from floorcalc.records import RankReports
    from floorcalc.render.run import RunJsonRenderer, dumps_bytes
    from floorcalc.util.sharing import share_run

    monkeypatch.chdir(tmp_path)
    by_workers = analyze_run([run_folder], workers=1, paths_base=tmp_path)
    as_they_are = analyze_run([run_folder], workers=1)
    assert isinstance(by_workers.reports, RankReports) and by_workers.reports.paths_base == str(tmp_path)
    # WHEN both are shared relative to that folder (the second's reports read back to be shared)
    a, b = share_run(by_workers, tmp_path), share_run(as_they_are, tmp_path)
    # THEN the pieces are kept as they came, and both write the same document, whole or streamed
    assert a.reports is by_workers.reports and not isinstance(b.reports, RankReports)
    assert dumps_bytes(a) == dumps_bytes(b) == b"".join(RunJsonRenderer().streams(a, tmp_path / "r.json")[tmp_path / "r.json"])
    assert "run/rank-0.json" in dumps_bytes(a).decode() and str(tmp_path) not in dumps_bytes(a).decode()
    # AND a rank's report read back from its piece is the one the run's JSON holds
    from floorcalc.render.jsonfmt import dumps as report_dumps

    assert report_dumps(a.reports[0]) == report_dumps(b.reports[0])
    assert a.reports[0].device == b.reports[0].device and a.reports[0].device.interconnect


def test_every_format_of_a_run(run_folder, tmp_path, capsys):
    assert main(["analyze", str(run_folder), "-o", str(tmp_path / "r.csv"), "--workers", "1"]) == 0
    ranks = (tmp_path / "r.csv").read_text().splitlines()
    assert ranks[0].startswith("rank,path,status") and len(ranks) == 3
    assert "decomposition.peer_wait_us" in ranks[0]
    assert (tmp_path / "r.collectives.csv").read_text().startswith("group,kind")
    assert (tmp_path / "r.instances.csv").exists()
    assert main(["analyze", str(run_folder), "--format", "md", "--workers", "1"]) == 0
    md = capsys.readouterr().out
    assert "| rank | status |" in md and "waiting on peers" in md and "host python" in md
    assert main(["analyze", str(run_folder), "--format", "latex", "--workers", "1"]) == 0
    tex = capsys.readouterr().out
    assert "\\toprule" in tex and "Waiting" in tex and tex.count("\\\\") >= 3
    assert main(["analyze", str(run_folder), "--workers", "1", "--rank", "0"]) == 0
    table = capsys.readouterr().out
    assert "waiting" in table and "rank 1" in table and "host python" in table and "ops, per pass" in table


def test_run_plot_and_annotated_traces(run_folder, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "ranks.png"
    ann = tmp_path / "ann"
    ann.mkdir()
    assert main(["analyze", str(run_folder), "--plot", str(png), "--annotate-trace", str(ann), "--workers", "1",
                 "-o", str(tmp_path / "t.txt")]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = sorted(ann.iterdir())
    assert [p.name for p in out] == ["rank-0.annotated.json.gz", "rank-1.annotated.json.gz"]
    doc = json.loads(gzip.decompress(out[0].read_bytes()))
    nccl = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and e["name"].startswith("nccl")]
    assert nccl[0]["args"]["floorcalc.collective"] == "all_reduce"
    # the annotated traces are not traces of the run the next time the folder is read
    assert main(["analyze", str(run_folder), "--annotate-trace", str(ann), "--workers", "1",
                 "-o", str(tmp_path / "t2.txt")]) == 8                       # exists, no --force


# ---------------------------------------------------------------------------------------------
# the map step in parallel


def test_the_process_pool_gives_what_one_process_gives(tmp_path):
    sched = [("1", [0, 1]), ("2", [2, 3]), ("0", [0, 1, 2, 3])]
    write(collective_run(4, sched, late={2: 300.0}, steps=2), tmp_path / "run")
    one = analyze_run([tmp_path / "run"], spec=h200_spec(), workers=1)
    pool = analyze_run([tmp_path / "run"], spec=h200_spec(), workers=2)
    assert pool == one
    assert pool.ranks[3].waited_on == 2


def test_the_same_per_rank_function_runs_on_a_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    write(tp_pass(world=2), tmp_path / "run")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tcp",
                                  dashboard_address=None) as cluster:
        on_dask = analyze_run([tmp_path / "run"], spec=h200_spec(), scheduler=cluster.scheduler_address)
        assert main(["analyze", str(tmp_path / "run"), "--scheduler", cluster.scheduler_address, "--format", "json",
                     "-o", str(tmp_path / "d.json")]) == 0
    local = analyze_run([tmp_path / "run"], spec=h200_spec(), workers=1)
    assert on_dask == local
    assert json.loads((tmp_path / "d.json").read_text())["ranks"][0]["waited_on"] == 1


# ---------------------------------------------------------------------------------------------
# a run on the CPU (gloo), in the form torch 2.13 writes it: no record_param_comms; the host's
# c10d::allreduce_ returns at once and a gloo worker thread runs the collective in a
# "gloo:all_reduce" range (Input Dims and Input type in its args)


def gloo_rank(rank: int, late_us: float) -> KinetoBuilder:
    b = KinetoBuilder(gpu_name=None)
    b.distributed(rank, 2)
    b.meta["distributedInfo"]["backend"] = "gloo"
    b.step(0, 0.0, 6000.0)
    t = 100.0 + late_us
    b.op("aten::linear", t, 500.0, {"Input Dims": [[64, 128], [128, 128]], "Input type": ["float", "float"],
                                    "Concrete Inputs": ["", ""]})
    b.op("c10d::allreduce_", t + 510.0, 40.0)
    end = 100.0 + 3000.0 + 550.0 + 300.0            # every rank leaves when the late one has sent its part
    start = t + 520.0
    b.events.append({"ph": "X", "cat": "user_annotation", "name": "gloo:all_reduce", "pid": 1, "tid": 99,
                     "ts": start, "dur": end - start,
                     "args": {"Input Dims": [[64, 128]], "Input type": ["float"], "Concrete Inputs": [""]}})
    b.op("aten::sum", end + 10.0, 50.0, {"Input Dims": [[64, 128]], "Input type": ["float"], "Concrete Inputs": [""]})
    return b


def test_a_gloo_run_on_the_cpu_is_read_from_its_gloo_ranges(tmp_path):
    write([gloo_rank(0, 0.0), gloo_rank(1, 3000.0)], tmp_path / "run")
    run = analyze_run([tmp_path / "run"], workers=1)
    (i,) = run.instances
    assert (i.kind, i.late_rank, i.message_bytes) == ("all_reduce", 1, 64 * 128 * 4)
    assert i.skew_us == pytest.approx(3000.0) and i.transfer_us == pytest.approx(300.0 + 30.0)
    r0 = run.ranks[0]
    assert r0.waited_on == 1 and r0.peer_wait_us == pytest.approx(3000.0)
    doing = dict(r0.waits[0].activity)
    assert doing["host python (no op)"] == pytest.approx(3000.0 - 500.0 - 10.0, abs=1.0)
    assert doing["CPU: aten::linear"] == pytest.approx(500.0)
    assert run.ranks[1].waited_on is None


def test_a_report_with_collectives_reads_back_from_its_json(tmp_path):
    from floorcalc.render.jsonfmt import dumps
    from floorcalc.render.jsonread import load

    rep = run_of(tp_pass(), tmp_path).reports[0]
    p = tmp_path / "r0.json"
    p.write_text(dumps(rep))
    back = load(p)
    assert back.timeline.communication == rep.timeline.communication
    assert dumps(back) == dumps(rep)
    assert any(r.bound == "communication" for r in back.ops)


# ---------------------------------------------------------------------------------------------
# who is late (crossrank step 6)


def test_a_rank_late_before_every_pass_is_named_at_that_collective_only(tmp_path):
    # two all_reduces a pass; rank 1 spends 300 us on the host before its GEMM each pass, so it
    # is last at the first all_reduce of every pass; the second starts together on both ranks
    bs = collective_run(2, [("0", [0, 1]), ("0", [0, 1])], late={1: 300.0}, steps=4)
    run = run_of(bs, tmp_path)
    (v,) = run.late
    assert (v.rank, v.kind, v.position, v.per_pass, v.passes, v.waiting) == (1, "all_reduce", 0, 2, 4, (0,))
    assert v.min_skew_us == pytest.approx(300.0) and v.median_skew_us == pytest.approx(300.0)
    assert v.share == pytest.approx(300.0 / run.ranks[0].wall_us)
    # the 300 us before its collective: its GEMM (100 us), its launch (10 us), and before them
    # the host time it was held up by
    assert dict(v.activity) == pytest.approx({"host python (no op)": 190.0, "GPU: aten::mm": 100.0,
                                              "host launch (no op)": 8.0, "host launch in aten::mm": 2.0})
    assert any(n.startswith("rank 1 is late: last at all_reduce #0 (of 2 a pass of group '0') in every one of the 4 passes")
               for n in run.notes)


def test_a_skew_below_the_share_of_a_pass_or_a_single_pass_names_no_one(tmp_path):
    from floorcalc.distributed.crossrank import LATE_MIN_SHARE

    small = collective_run(2, [("0", [0, 1])], late={1: 5.0}, steps=4)
    run = run_of(small, tmp_path / "a")
    assert 5.0 < LATE_MIN_SHARE * run.ranks[0].wall_us
    assert run.late == () and any("none is late throughout" in n for n in run.notes)
    one = run_of(collective_run(2, [("0", [0, 1])], late={1: 300.0}, steps=1), tmp_path / "b")
    assert one.late == () and not any("late throughout" in n for n in one.notes)
    assert one.instances[0].late_rank == 1       # the instance still says who came last


def test_a_cpu_lead_in_names_the_earlier_collective_the_thread_waited_in():
    from floorcalc.timeline.comm import _in_collectives

    spans = [(50.0, 100.0, "python", ""), (40.0, 50.0, "cpu", "aten::mm"), (0.0, 40.0, "python", "")]
    got = _in_collectives(spans, [(10.0, 30.0, "gloo:all_reduce"), (60.0, 70.0, "gloo:all_reduce")])
    assert got == [(70.0, 100.0, "python", ""), (60.0, 70.0, "host_collective", "gloo:all_reduce"),
                   (50.0, 60.0, "python", ""), (40.0, 50.0, "cpu", "aten::mm"), (30.0, 40.0, "python", ""),
                   (10.0, 30.0, "host_collective", "gloo:all_reduce"), (0.0, 10.0, "python", "")]


def test_a_run_document_is_rewritten_with_force_and_kept_without(run_folder, tmp_path):
    out = tmp_path / "run.json"
    assert main(["analyze", str(run_folder), "--workers", "1", "-o", str(out)]) == 0
    first = out.read_bytes()
    out.write_text("stale")
    assert main(["analyze", str(run_folder), "--workers", "1", "-o", str(out)]) == 8    # kept
    assert out.read_text() == "stale"
    assert main(["analyze", str(run_folder), "--workers", "1", "-o", str(out), "--force"]) == 0
    again = json.loads(out.read_bytes())
    assert again["late"] == json.loads(first)["late"] and again["collectives"] == json.loads(first)["collectives"]


# ---------------------------------------------------------------------------------------------
# clocks of ranks on one host (the traces' host_name)


def _on_hosts(bs, hosts):
    for b, h in zip(bs, hosts):
        b.meta["host_name"] = h
    return bs


def test_ranks_on_one_host_keep_their_one_clock(tmp_path):
    # GIVEN a run where rank 1 is 300 us late and both traces name one host: their timestamps
    # are one clock, and the end times they leave a collective at (which differ on a busy CPU)
    # must not move them apart
    bs = _on_hosts(collective_run(2, [("0", [0, 1])], late={1: 300.0}, steps=3), ["node-a", "node-a"])
    bs[1].events = [dict(e, ts=e["ts"] + 40.0) if e.get("name", "").startswith("ncclDevKernel") else e
                    for e in bs[1].events]                    # rank 1's collective kernels start and end later
    run = run_of(bs, tmp_path)
    assert [r.clock_offset_us for r in run.ranks] == [0.0, 0.0]
    assert run.clock.startswith("every rank ran on one host (node-a), on one clock: not aligned")
    # the skew is what the one clock says: rank 1's start, 300 us plus the 40 us its kernel was moved
    assert run.instances[0].skew_us == pytest.approx(340.0)


def test_ranks_on_two_hosts_are_aligned_host_by_host(tmp_path):
    # GIVEN four ranks on two hosts, the second host's clock 2 s ahead
    bs = _on_hosts(collective_run(4, [("0", [0, 1, 2, 3])], late={3: 200.0}, steps=3), ["a", "a", "b", "b"])
    run = run_of(bs, tmp_path, shifts={2: 2e6, 3: 2e6})
    off = [r.clock_offset_us for r in run.ranks]
    assert off[0] == off[1] == 0.0 and off[2] == off[3] == pytest.approx(-2e6)
    assert "share its clock and its offset" in run.clock
    assert run.ranks[0].waited_on == 3 and run.instances[0].skew_us == pytest.approx(200.0)



def test_a_send_without_its_peer_counts_as_unmatched(tmp_path):
    # GIVEN three ranks, an all_reduce of all three, and on rank 0 a send whose trace names no
    # peer (a group of three does not imply one): it cannot be matched, and the run says so
    bs = collective_run(3, [("0", [0, 1, 2])], steps=1)
    bs[0].collective(60.0, 65.0, 20.0, name="send", op="c10d::send", ranks=(0, 1, 2), nelems=1 << 10, stream=30)
    run = run_of(bs, tmp_path)
    assert run.instance_count == 1 and run.unmatched == 1
    assert any(n.startswith("1 collective timings could not be matched") for n in run.notes)
