"""What both scale benchmarks do before they time anything: the state a user's floorcalc is in
from its second run on.

* ``python -m compileall`` over ``floorcalc/`` (a source tree run with ``PYTHONDONTWRITEBYTECODE``
  set would compile every module in every run: about 0.06 CPU s a process on the project's
  2-core machine);
* one untimed ``floorcalc --version``, which imports what ``analyze`` imports and fills the cache
  of the records' dataclass methods (floorcalc.util.methodcache) as any first run does.

The children the benchmarks start get an environment without ``PYTHONDONTWRITEBYTECODE``, so
that the warm-up can write both (a user's shell rarely sets it); every other variable is kept.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

ROOT = Path(__file__).resolve().parents[1]


def child_env() -> Dict[str, str]:
    """The benchmarks' children's environment: this one, ``ROOT`` first on ``PYTHONPATH``, and
    bytecode written."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
    return env


def warm() -> None:
    """Byte-compile ``floorcalc/`` and run ``floorcalc --version`` once (see the module notes)."""
    env = child_env()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "floorcalc")], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-m", "floorcalc", "--version"], env=env, check=True, stdout=subprocess.DEVNULL)
