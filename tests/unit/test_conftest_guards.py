"""The root conftest's guards, run on small test files in a pytester session of their own:
a test that leaves the profiler on or a torch mode pushed fails, and the tests after it start
clean; every test sees an empty user spec folder."""

from pathlib import Path

import pytest

# imported before pytester's in-process runs, which drop modules first imported inside them
torch = pytest.importorskip("torch")

pytest_plugins = ["pytester"]

CONFTEST = Path(__file__).resolve().parents[1] / "conftest.py"

LEAKS = '''
import torch

def test_leaks_a_dispatch_mode():
    from torch.utils._python_dispatch import TorchDispatchMode
    TorchDispatchMode().__enter__()

def test_leaks_a_function_mode():
    from torch.overrides import TorchFunctionMode
    TorchFunctionMode().__enter__()

def test_leaks_the_profiler():
    from torch.profiler import profile
    profile().__enter__()

def test_after_the_leaks_all_is_clean():
    assert not torch._C._autograd._profiler_enabled()
    assert torch._C._len_torch_dispatch_stack() == 0 and torch._C._len_torch_function_stack() == 0

def test_a_mode_exited_in_the_test_is_fine():
    from torch.utils._python_dispatch import TorchDispatchMode
    with TorchDispatchMode():
        pass
'''


def test_leaked_profiler_and_modes_fail_their_test(pytester):
    # GIVEN the root conftest and a file whose tests leak torch state
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_leaks=LEAKS)
    # WHEN pytest runs it
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    # THEN each leaking test errors at teardown, saying what it left; the others pass
    result.assert_outcomes(passed=5, errors=3)
    out = result.stdout.str()
    assert "1 TorchDispatchMode(s) still pushed" in out
    assert "1 TorchFunctionMode(s) still pushed" in out
    assert "the torch profiler still on" in out
    assert not torch._C._autograd._profiler_enabled() and torch._C._len_torch_dispatch_stack() == 0


def test_each_test_has_an_empty_user_spec_folder(pytester, tmp_path):
    # GIVEN a user whose config folder overrides the packaged H200 spec
    user = tmp_path / "home-config" / "devices"
    user.mkdir(parents=True)
    (user / "h200.yaml").write_text("this file would override the packaged h200 spec\n")
    pytester.makeconftest(CONFTEST.read_text())
    pytester.makepyfile(test_config=f'''
from pathlib import Path
from floorcalc.device import user_config_dir

def test_isolated():
    d = user_config_dir()
    assert d != Path({str(user)!r}) and not d.exists()
''')
    # WHEN the tests run with that folder in the environment
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLOORCALC_CONFIG_DIR", str(user.parent))
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q")
    # THEN they see an empty one instead
    result.assert_outcomes(passed=1)
