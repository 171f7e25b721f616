"""What every test gets: tests/ on sys.path (``import builders``, ``import golden``), a user
config folder of its own, and a check that it left no profiler or torch mode running.

- The user's spec folder (``$FLOORCALC_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/floorcalc``, else
  ``~/.config/floorcalc``; floorcalc/device/spec.py ``user_config_dir``) overrides the packaged
  specs: a ``h200.yaml`` there would change every golden figure. Each test gets an empty one in
  its tmp folder; a test that needs a user spec writes it there (``floorcalc.device.user_config_dir()``).
- Each test runs in an empty working folder of its own, so none relies on being run from the
  repository root (find committed files from ``__file__``: ``golden.DATA``) and none leaves a
  default-named output (a ``MODEL.<time>.trace.json.gz``) in the checkout.
- ``FLOORCALC_DEBUG=1`` for the whole session (and the processes tests start): a fault floorcalc
  would otherwise report and survive (the timeline's analysis failing, an internal error the
  CLI turns into exit 70) raises, so a test cannot pass over a broken stage. A test of what a
  user sees of such a fault takes the ``user_mode`` fixture, which unsets it.
- A test that leaves torch's profiler on, or a TorchDispatchMode / TorchFunctionMode pushed, would
  change what every later test records. The test that leaked fails (at teardown) and the state
  is cleaned up so the tests after it run as they would alone.
"""

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
os.environ["FLOORCALC_DEBUG"] = "1"


@pytest.fixture
def user_mode(monkeypatch):
    """``FLOORCALC_DEBUG`` unset for this test: floorcalc as a user runs it (faults reported in
    a note or as exit 70, never raised)."""
    monkeypatch.delenv("FLOORCALC_DEBUG", raising=False)


@pytest.fixture(autouse=True)
def isolated_user_config(tmp_path_factory, monkeypatch):
    """An empty user config folder for this test: ``$FLOORCALC_CONFIG_DIR`` and ``$XDG_CONFIG_HOME``
    point into a fresh tmp folder (no ``devices/`` in it)."""
    root = tmp_path_factory.mktemp("user-config")
    monkeypatch.setenv("FLOORCALC_CONFIG_DIR", str(root / "floorcalc"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root))
    return root / "floorcalc"


@pytest.fixture(autouse=True)
def isolated_cwd(tmp_path_factory, monkeypatch):
    """A fresh, empty working folder for this test."""
    cwd = tmp_path_factory.mktemp("cwd")
    monkeypatch.chdir(cwd)
    return cwd


def torch_state():
    """(profiler on, dispatch modes pushed, function modes pushed), or None when torch was never
    imported (then nothing can have leaked and torch is not imported for the check)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    return (bool(torch._C._autograd._profiler_enabled()), torch._C._len_torch_dispatch_stack(),
            torch._C._len_torch_function_stack())


def restore_torch_state(before) -> None:
    """Turn the profiler off and pop the modes pushed since ``before`` (best effort)."""
    torch = sys.modules["torch"]
    was_on, dispatch, function = before or (False, 0, 0)
    if torch._C._autograd._profiler_enabled() and not was_on:
        try:
            torch._C._autograd._disable_profiler()
        except RuntimeError:
            pass
        import torch.autograd.profiler as legacy

        legacy._is_profiler_enabled = False
    from torch.utils._python_dispatch import _pop_mode

    while torch._C._len_torch_dispatch_stack() > dispatch:
        _pop_mode()
    while torch._C._len_torch_function_stack() > function:
        torch._C._pop_torch_function_stack()


def leaked(before, after) -> str:
    """What the test left behind, in words ("" when nothing)."""
    if after is None or after == (before or (False, 0, 0)):
        return ""
    was_on, dispatch, function = before or (False, 0, 0)
    on, d, f = after
    out = []
    if on and not was_on:
        out.append("the torch profiler still on (a profile() not exited)")
    if d > dispatch:
        out.append(f"{d - dispatch} TorchDispatchMode(s) still pushed")
    if f > function:
        out.append(f"{f - function} TorchFunctionMode(s) still pushed")
    return "; ".join(out)


@pytest.fixture(autouse=True)
def no_leaked_torch_state():
    """Fail the test that leaves a profiler or a torch mode active, then clean up after it."""
    before = torch_state()
    yield
    after = torch_state()
    what = leaked(before, after)
    if what:
        restore_torch_state(before)
        pytest.fail(f"the test left {what}; exit it in the test (a with block or a finally)", pytrace=False)
