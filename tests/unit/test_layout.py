"""The package's layout is its pipeline (docs/architecture.md, "The stages"): the import graph of
floorcalc, built from the source with ``ast`` (every import, at module level or inside a
function), has no cycle, and no module imports a stage later than its own in :data:`STAGES`."""

import ast
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "floorcalc"

#: The stages in import order, the same order as docs/architecture.md's table: each may import
#: the stages above it, never one below. (capture runs first in time, but writes the metadata in
#: trace's format and reads counting's Inductor records and device's CPU spec: it imports them.)
STAGES = (
    "records",      # the typed records between the stages; imports nothing of floorcalc
    "util",         # errors and exit codes, whole-or-nothing files, progress, numbers in words
    "trace",        # a trace file -> Trace (the reader, the format-neutral join, the window)
    "counting",     # OpCall -> Count (the formula registry)
    "device",       # DeviceSpec (specs, detection, calibration, the spec choice)
    "floor",        # Count, DeviceSpec -> Floor
    "classify",     # Trace, Window, DeviceSpec -> WorkUnit, rows, Summary, grouping
    "timeline",     # WorkUnits -> Timeline
    "whatif",       # WorkUnits, Report -> WhatIf
    "counters",     # an Nsight Compute CSV + WorkUnits -> Counters
    "analysis",     # Trace + options -> Report (checks, notes)
    "compare",      # two Reports -> Comparison
    "render",       # documents -> formats
    "distributed",  # rank traces -> RankRecords -> RunReport
    "capture",      # a model -> a trace file
    "cli",          # one module per subcommand
    "api",          # the Python facade
    "__main__",
)


def _modules() -> Dict[str, Path]:
    out = {}
    for f in PKG.rglob("*.py"):
        parts = f.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _graph() -> Dict[str, Set[str]]:
    """Module -> the floorcalc modules it imports (a name imported from a package that is a
    module of its own counts as that module)."""
    mods = _modules()
    graph: Dict[str, Set[str]] = {m: set() for m in mods}
    for m, f in mods.items():
        package = m if f.name == "__init__.py" else m.rpartition(".")[0]
        for node in ast.walk(ast.parse(f.read_text(), str(f))):
            targets: List[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
            graph[m].update(t for t in targets if t in mods and t != m)
    # the root package holds __version__ and the lazy facade (floorcalc.api on first use): every
    # module may read __version__ from it, and it is no stage
    graph.pop("floorcalc")
    for targets in graph.values():
        targets.discard("floorcalc")
    return graph


def _stage(module: str) -> str:
    return module.split(".")[1]


def _cycles(graph: Dict[str, Set[str]]) -> List[List[str]]:
    """The import cycles: each strongly connected set of more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_is_in_a_stage_and_the_root_holds_only_the_entry_points():
    top = {p.stem if p.is_file() else p.name for p in PKG.iterdir()
           if (p.is_file() and p.suffix == ".py") or (p / "__init__.py").is_file()}
    assert top - {"__init__"} == set(STAGES), "a new package or root module needs its place in STAGES"
    assert {p.name for p in PKG.glob("*.py")} == {"__init__.py", "__main__.py", "api.py"}


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_no_module_imports_a_later_stage():
    graph = _graph()
    later = sorted(f"{m} imports {t}" for m, targets in graph.items() for t in targets
                   if STAGES.index(_stage(t)) > STAGES.index(_stage(m)))
    assert later == []


def test_the_graph_is_read_as_python_imports_it():
    # the test's own reading of imports finds what is there: relative and absolute, module level
    # and inside functions (a graph that read nothing would pass the tests above)
    graph = _graph()
    assert "floorcalc.records" in graph["floorcalc.classify.units"]
    assert "floorcalc.counting.plugins" in graph["floorcalc.counting"]
    assert "floorcalc.whatif" in graph["floorcalc.analysis.driver"]          # imported in a function
    assert _cycles({"a.x": {"a.y"}, "a.y": {"a.z"}, "a.z": {"a.x"}, "a.w": set()}) == [["a.x", "a.y", "a.z"]]



def test_the_architecture_page_draws_the_stages_in_this_order():
    # docs/architecture.md's table of stages lists them in STAGES' order
    text = (ROOT / "docs" / "architecture.md").read_text()
    rows = [line.split("|")[1].strip() for line in text.split("## The stages", 1)[1].split("\n## ", 1)[0].splitlines()
            if line.startswith("| ") and not line.startswith("| stage") and not line.startswith("| ---")]
    assert rows == [s for s in STAGES if s != "__main__"]
