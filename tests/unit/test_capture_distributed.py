"""The launcher of `report --nproc-per-node` without launching anything: trace folders, the
workers' environment, failed ranks turned into one error (from torchelastic's own error files),
and every option refused before a process starts."""

import json
import os
import signal

import pytest

from floorcalc.capture import distributed as dist_cap
from floorcalc.capture.distributed import RankFailure, failure_error
from floorcalc.cli import main
from floorcalc.util.errors import DistributedError, ModelFileError, ModelRunError, OutputError, UsageError

SIGTERM, SIGKILL = -int(signal.SIGTERM), -int(signal.SIGKILL)


# -- trace folders -----------------------------------------------------------------------------

def test_each_rank_gets_its_own_trace_named_by_rank(tmp_path):
    folder, paths = dist_cap.plan_traces(tmp_path / "tp.py", 3, tmp_path / "run", force=False)
    assert folder == tmp_path / "run"
    assert [p.name for p in paths] == ["tp.rank0.trace.json.gz", "tp.rank1.trace.json.gz", "tp.rank2.trace.json.gz"]
    assert not folder.exists()  # planning creates nothing


def test_the_default_folder_is_new_and_named_after_the_model(tmp_path):
    first = dist_cap.default_trace_folder(tmp_path / "ep_moe.py", tmp_path)
    assert first.name.startswith("ep_moe.") and first.name.endswith(".traces")
    first.mkdir()
    assert dist_cap.default_trace_folder(tmp_path / "ep_moe.py", tmp_path) != first


def test_a_rank_trace_is_never_overwritten_without_force(tmp_path):
    # GIVEN a folder holding rank 1's trace of an earlier run of the same model
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "tp.rank1.trace.json.gz").write_bytes(b"old")
    # THEN it is refused without --force, and accepted with it
    with pytest.raises(OutputError, match="tp.rank1.trace.json.gz exists; pass --force"):
        dist_cap.plan_traces(tmp_path / "tp.py", 2, tmp_path / "run", force=False)
    dist_cap.plan_traces(tmp_path / "tp.py", 2, tmp_path / "run", force=True)


def test_a_folder_holding_another_runs_traces_is_refused_even_with_force(tmp_path):
    # GIVEN an 8-rank run's folder, WHEN a 2-rank run is asked to write there: ranks 2-7 would mix in
    run = tmp_path / "run"
    run.mkdir()
    for r in range(8):
        (run / f"tp.rank{r}.trace.json.gz").write_bytes(b"x")
    with pytest.raises(OutputError, match="holds traces of another run"):
        dist_cap.plan_traces(tmp_path / "tp.py", 2, run, force=True)


def test_trace_out_names_a_folder_not_a_file(tmp_path):
    with pytest.raises(UsageError, match="names a folder"):
        dist_cap.plan_traces(tmp_path / "tp.py", 2, tmp_path / "x.trace.json.gz", force=False)
    with pytest.raises(OutputError, match="parent does not exist"):
        dist_cap.plan_traces(tmp_path / "tp.py", 2, tmp_path / "no" / "run", force=False)
    (tmp_path / "file").write_text("")
    with pytest.raises(OutputError, match="not a folder"):
        dist_cap.plan_traces(tmp_path / "tp.py", 2, tmp_path / "file", force=False)


# -- the workers' environment -------------------------------------------------------------------

def test_workers_get_multicast_off_floorcalc_on_the_path_and_a_share_of_the_cpus(monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    monkeypatch.setenv("PYTHONPATH", "/elsewhere")
    env = dist_cap.worker_env(2)
    assert env["NCCL_NVLS_ENABLE"] == "0" and env["TORCH_SYMM_MEM_DISABLE_MULTICAST"] == "1"
    assert env["NVSHMEM_DISABLE_NVLS"] == "1"
    first, rest = env["PYTHONPATH"].split(os.pathsep, 1)
    assert (os.path.isdir(os.path.join(first, "floorcalc"))) and rest == "/elsewhere"
    assert int(env["OMP_NUM_THREADS"]) == max(1, len(os.sched_getaffinity(0)) // 2)
    monkeypatch.setenv("OMP_NUM_THREADS", "7")  # the user's choice stays
    assert "OMP_NUM_THREADS" not in dist_cap.worker_env(2)


def test_the_multicast_variables_are_set_even_over_the_users_values(monkeypatch):
    monkeypatch.setenv("NCCL_NVLS_ENABLE", "1")
    assert dist_cap.worker_env(8)["NCCL_NVLS_ENABLE"] == "0"


def test_the_launcher_puts_environment_logging_and_signal_handlers_back():
    handler = signal.getsignal(signal.SIGTERM)
    before = dict(os.environ)
    with dist_cap._launcher_state({"NCCL_NVLS_ENABLE": "0", "FLOORCALC_TEST_X": "1"}):
        assert os.environ["FLOORCALC_TEST_X"] == "1"
        signal.signal(signal.SIGTERM, lambda *a: None)  # what torchelastic does in run()
        os.environ["OMP_NUM_THREADS"] = "1"             # likewise
    assert dict(os.environ) == before and signal.getsignal(signal.SIGTERM) is handler


def test_worker_options_round_trip_through_json():
    o = dist_cap.WorkerOptions(model="/m.py", device="cpu", traces=("/r/a.rank0.trace.json.gz",), iters=2,
                               timeout_s=12.5, command="floorcalc report m.py --nproc-per-node 1")
    assert dist_cap.WorkerOptions.from_json(o.to_json()) == o


# -- failed ranks: one error, the cause named -----------------------------------------------------

def test_the_rank_whose_model_raised_is_named_not_the_peer_that_lost_it():
    # GIVEN rank 1's forward raised; rank 0's collective broke because of it; rank 2 was stopped
    failures = [RankFailure(0, 4, "the model's forward raised RuntimeError: Connection closed by peer",
                            "ModelRunError", peer=True),
                RankFailure(1, 4, "the model's forward raised ValueError: bad shape", "ModelRunError"),
                RankFailure(2, SIGTERM)]
    err = failure_error(failures, 3)
    # THEN the error is rank 1's own, with its class and exit code
    assert isinstance(err, ModelRunError) and err.exit_code == 4
    assert str(err) == "rank 1: the model's forward raised ValueError: bad shape"


def test_the_same_error_on_several_ranks_names_the_first_and_counts_the_rest():
    failures = [RankFailure(r, 3, "model file m.py failed to import: X", "ModelFileError") for r in range(3)]
    err = failure_error(failures, 4)
    assert isinstance(err, ModelFileError) and str(err).startswith("rank 0: model file")
    assert str(err).endswith("(also on ranks 1, 2)")


def test_a_rank_killed_without_a_word_is_the_cause_over_peers_that_timed_out():
    failures = [RankFailure(0, 11, "waited for its peers at the barrier before warm-up and gave up (x)",
                            "DistributedError", peer=True),
                RankFailure(1, SIGKILL)]
    err = failure_error(failures, 2)
    assert isinstance(err, DistributedError) and err.exit_code == 11
    assert str(err) == "rank 1 was killed by SIGKILL (out of memory?); its output is above"
    err = failure_error([RankFailure(1, 3)], 2)
    assert str(err) == "rank 1 exited with code 3 without a floorcalc error; its output is above"


def test_a_timeout_names_the_ranks_still_running_as_the_likely_hung_ones():
    failures = [RankFailure(0, 4, "the model's forward raised RuntimeError: Timed out waiting 10000ms",
                            "ModelRunError", peer=True),
                RankFailure(1, SIGTERM)]
    err = failure_error(failures, 3)
    assert isinstance(err, DistributedError) and err.exit_code == 11
    assert str(err).startswith("rank 0: the model's forward raised RuntimeError: Timed out")
    assert "ranks 1, 2 still running when the run was stopped" in str(err)


def test_a_bug_in_floorcalc_on_a_rank_keeps_the_internal_error_code():
    err = failure_error([RankFailure(0, 70, "internal error: KeyError: 'x'", "DistributedError")], 2)
    assert err.exit_code == 70 and str(err).startswith("rank 0: internal error")


def test_ranks_stopped_from_outside_say_so():
    err = failure_error([RankFailure(0, SIGTERM), RankFailure(1, SIGTERM)], 2)
    assert str(err) == "ranks 0, 1 stopped by SIGTERM from outside the run" and err.exit_code == 11


def test_failures_are_read_from_torchelastics_error_files(tmp_path, monkeypatch):
    # GIVEN the error file a worker writes, read back by torchelastic's own ProcessFailure
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, ProcessFailure

    path = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(path))
    code = dist_cap._record_failure(ModelRunError("get_model() raised ValueError: no"), rank=1)
    doc = json.loads(path.read_text())
    assert code == 4 and doc["message"] == "rank 1: get_model() raised ValueError: no"
    exc = ChildFailedError("floorcalc", {1: ProcessFailure(local_rank=1, pid=1, exitcode=4, error_file=str(path)),
                                         0: ProcessFailure(local_rank=0, pid=2, exitcode=SIGTERM,
                                                           error_file=str(tmp_path / "none.json"))})
    # THEN each rank's failure is known, and the error is rank 1's
    f0, f1 = dist_cap.rank_failures(exc)
    assert f0 == RankFailure(0, SIGTERM) and f0.stopped
    assert f1 == RankFailure(1, 4, "get_model() raised ValueError: no", "ModelRunError", peer=False)
    assert str(failure_error([f0, f1], 2)) == "rank 1: get_model() raised ValueError: no"


def test_gloos_source_location_is_dropped_from_a_recorded_line(tmp_path, monkeypatch):
    path = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(path))
    dist_cap._record_failure(ModelRunError("the model's forward raised RuntimeError: [/__w/pytorch/third_party/gloo/"
                                           "gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 10000ms"), 0)
    rec = json.loads(path.read_text())["floorcalc"]
    assert rec["message"] == "the model's forward raised RuntimeError: Timed out waiting 10000ms" and rec["peer"]


def test_a_broken_collective_is_told_from_the_models_own_error():
    import torch.distributed as dist

    try:
        try:
            raise dist.DistBackendError("NCCL error: remote process exited")
        except Exception as e:
            raise ModelRunError(f"the model's forward raised {type(e).__name__}: {e}") from None
    except ModelRunError as wrapped:
        assert dist_cap.caused_by_peer(wrapped)  # the replaced exception is still its __context__
    assert dist_cap.caused_by_peer(RuntimeError("Connection closed by peer [127.0.0.1]:4000"))
    assert not dist_cap.caused_by_peer(ModelRunError("the model's forward raised ValueError: bad shape"))


# -- options refused before any process starts ------------------------------------------------------

@pytest.fixture
def model(tmp_path):
    p = tmp_path / "m.py"
    p.write_text("def get_model():\n    raise SystemExit('never imported by the launcher')\n"
                 "def get_inputs():\n    return ()\n")
    return p


@pytest.mark.parametrize("extra, code, words", [
    (["--nproc-per-node", "0"], 2, "--nproc-per-node must be at least 1"),
    (["--nproc-per-node", "2", "--modes", "eager"], 2, "--modes cannot be combined with --nproc-per-node"),
    (["--nproc-per-node", "2", "--compile"], 2, "--compile cannot be combined"),
    (["--nproc-per-node", "2", "--cuda-graphs"], 2, "--cuda-graphs cannot be combined"),
    (["--nproc-per-node", "2", "--rank-timeout", "0"], 2, "--rank-timeout must be positive"),
    (["--rank-timeout", "5"], 2, "--rank-timeout is for runs over several ranks"),
    (["--nproc-per-node", "2", "--annotate-trace", "ann.json.gz"], 8, "names a folder for the ranks' annotated"),
    (["--nproc-per-node", "2", "--trace-out", "t.trace.json.gz"], 2, "names a folder"),
    (["--nproc-per-node", "2", "--device", "cuda"], 5, "torch sees no CUDA GPU"),
])
def test_bad_options_fail_in_one_line_before_any_rank_starts(model, capsys, extra, code, words):
    rc = main(["report", str(model), "-q", *extra])
    err = capsys.readouterr().err
    if code == 5:
        import torch

        if torch.cuda.is_available():
            pytest.skip("this machine has a GPU")
    assert rc == code and words in err and err.count("\n") == 1, err


def test_a_missing_model_file_fails_before_launching(tmp_path, capsys):
    rc = main(["report", str(tmp_path / "nope.py"), "--nproc-per-node", "2", "-q"])
    assert rc == 3 and "model file not found" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir()]  # no trace folder left behind


def test_existing_rank_traces_fail_before_launching(model, tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "m.rank0.trace.json.gz").write_bytes(b"old")
    rc = main(["report", str(model), "--nproc-per-node", "2", "-q", "--trace-out", str(tmp_path / "run")])
    assert rc == 8 and "pass --force" in capsys.readouterr().err
    assert (tmp_path / "run" / "m.rank0.trace.json.gz").read_bytes() == b"old"
