"""floorcalc.util.methodcache: the dataclass methods of floorcalc's records from code kept by an
earlier run, the same methods as compiled afresh; other packages' dataclasses untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# In a child: the cache installed (or not), the records imported, then what the methods do and
# how many texts came from the cache.
_CHILD = r"""
import dataclasses, json, sys
from floorcalc.util import methodcache
on = methodcache.install() if sys.argv[1] == "on" else False
import floorcalc.records as R
from floorcalc.records.documents import ToolInfo

@dataclasses.dataclass(frozen=True)
class Mine:  # not floorcalc's: the builtin exec
    a: int
    b: str = "x"

f = R.Figure(value=1.5, basis="datasheet", source="x")
g = R.Figure(value=1.5, basis="datasheet", source="x")
try:
    f.value = 2.0
    frozen = False
except dataclasses.FrozenInstanceError:
    frozen = True
print(json.dumps({"on": on, "stats": methodcache.stats(), "repr": repr(f), "eq": f == g, "hash": hash(f) == hash(g),
                  "frozen": frozen, "mine": repr(Mine(1)), "tool": repr(ToolInfo.__init__.__code__.co_varnames),
                  "path": methodcache.cache_path()}))
"""


def _child(tmp_path: Path, mode: str = "on", **env: str) -> dict:
    e = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "FLOORCALC_NO_METHOD_CACHE")}
    e.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT), **env)
    out = subprocess.run([sys.executable, "-c", _CHILD, mode], env=e, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_second_run_reads_every_floorcalc_text_from_the_cache_and_the_methods_are_the_same(tmp_path):
    off = _child(tmp_path, "off")
    first = _child(tmp_path)
    path = Path(first["path"])
    assert path.parent == tmp_path / "cache" / "floorcalc" and path.is_file()
    # a text met twice in one run (two records with the same methods) is compiled once
    assert first["stats"]["misses"] > 500 and first["stats"]["hits"] < first["stats"]["misses"]
    second = _child(tmp_path)
    assert second["stats"] == {"hits": first["stats"]["hits"] + first["stats"]["misses"], "misses": 0}
    for run in (first, second):
        assert {k: run[k] for k in ("repr", "eq", "hash", "frozen", "mine", "tool")} == \
            {k: off[k] for k in ("repr", "eq", "hash", "frozen", "mine", "tool")}
    assert second["frozen"] and second["eq"] and second["hash"]
    assert off["stats"] == {"hits": 0, "misses": 0}  # not installed: dataclasses as it is


def test_a_broken_or_foreign_cache_file_is_ignored_and_replaced(tmp_path):
    path = tmp_path / "cache" / "floorcalc"
    path.mkdir(parents=True)
    first = _child(tmp_path)
    Path(first["path"]).write_bytes(b"not marshal")
    again = _child(tmp_path)
    assert again["stats"] == first["stats"]  # all compiled afresh, as in the first run
    assert _child(tmp_path)["stats"]["misses"] == 0  # rewritten whole


def test_nothing_written_without_bytecode_writing_and_nothing_done_when_turned_off(tmp_path):
    run = _child(tmp_path, PYTHONDONTWRITEBYTECODE="1")
    assert run["stats"]["misses"] > 0 and not Path(run["path"]).exists()
    off = _child(tmp_path, FLOORCALC_NO_METHOD_CACHE="1")
    assert off["on"] is False and off["stats"] == {"hits": 0, "misses": 0}
    assert not Path(off["path"]).exists()


def test_a_folder_that_takes_no_file_leaves_the_run_alone(tmp_path):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "floorcalc").write_text("a file where the folder would be")
    run = _child(tmp_path)
    assert run["frozen"] and run["stats"]["misses"] > 0


def test_the_command_installs_it(tmp_path):
    e = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    e.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    code = "import sys; sys.argv = ['floorcalc', 'device', '--help']; from floorcalc.cli import console; console()"
    subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, check=True)
    assert list((tmp_path / "cache" / "floorcalc").glob("dataclass-methods.*.marshal"))
