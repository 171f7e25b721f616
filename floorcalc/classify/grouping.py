"""A report's op rows grouped: a model of 32 identical layers is one row per kind of layer.

:func:`group_ops` is a pure function of the op rows (``Report.ops``) and a :data:`GroupBy`;
the analysis calls it once (:func:`floorcalc.analysis.driver.build_report`, ``Report.grouping``), the
JSON reader calls it again on the rows it reads, and every renderer prints the groups it finds
on the report. Nothing here recounts or refloors anything: a group's figures are sums of its
rows' figures.

The groupings (``--group-by``):

* ``layer`` (the default): rows whose op names and input shapes are equal (the same work per
  instance) and whose module paths differ only in layer indices are one group. A layer index is
  a dotted path part that is a whole number (``model.layers.3.mlp.gate_proj`` ->
  ``model.layers.*.mlp.gate_proj``; nested indices, an expert inside a layer, fold too); a path
  that is only an index (``2``: a child of an ``nn.Sequential``, each a different layer) is not
  folded. Each row is an *instance*. A counted row and an uncounted row are never in one group
  (as in the op rows themselves). Three Linear layers of different sizes are three groups.
* ``module``: every op of a module, summed, with layer indices folded as for ``layer``: one
  instance per module (``model.layers.3.mlp.gate_proj``), holding all its ops; modules fold only
  when they ran the same ops on the same input shapes.

A group of one instance is shown with its instance's module path, not the folded one.
* ``op``: rows with the same op name and input shapes, wherever they run, as torch's
  ``prof.key_averages(group_by_input_shape=True)`` groups events; each row (module) is an
  instance.
* ``none``: each row its own group.

Steps of :func:`group_ops`:

1. Give each row its group key and its instance label (above).
2. Sum each instance's rows (``module`` grouping only has several rows per instance).
3. Per group: sum calls, measured time, and floors, FLOPs and bytes over the counted members;
   efficiency = summed floor / the counted members' measured time; the bound of the members
   holding the most measured time; the median, minimum and maximum of the instances' measured
   times; the outlier (:func:`far_from_median`).
4. Order the groups by measured time, longest first (ties by name and module).
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

from floorcalc.records import GROUP_BYS, Bound, GroupBy, Grouping, OpGroup, OpRow, Report

__all__ = ["DEFAULT", "FAR_RATIO", "FAR_SCORE", "GroupKey", "far_from_median", "fold_layers", "group_members", "group_ops",
           "keyed_members", "layer_values", "regroup"]

#: what makes rows one group (step 1): equal keys, equal group; two reports' groups of one key
#: are the same thing repeated (``floorcalc diff`` matches groups by it)
GroupKey = Tuple[str, ...]

#: the grouping used when none is asked for
DEFAULT: GroupBy = "layer"
#: A dotted path part that is a whole number: a layer (or expert) index of an ``nn.ModuleList``.
LAYER_INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)|^\d+(?=\.|$)")
#: An instance is far from its group's median only if it differs from it by more than this
#: share of the median ...
FAR_RATIO = 0.25
#: ... and its modified z-score, 0.6745 * |x - median| / MAD, exceeds this (Iglewicz and
#: Hoaglin, "How to Detect and Handle Outliers", ASQC 1993: scores above 3.5 are potential
#: outliers); with a MAD of 0 (all other instances equal) the share alone decides.
FAR_SCORE = 3.5
#: groups with fewer instances have no outlier: with two, each is as far from the median
MIN_INSTANCES = 3


def fold_layers(module: str) -> str:
    """``model.layers.3.mlp.gate_proj`` -> ``model.layers.*.mlp.gate_proj``: every layer
    index (a dotted part that is a whole number) written ``*``. A path that is only an index
    (``3``, an ``nn.Sequential``'s child) is kept as written: its siblings are other layers."""
    if module.isdigit():
        return module
    return LAYER_INDEX.sub("*", module)


def layer_values(module: str) -> Tuple[str, ...]:
    """The layer indices of a module path, in order: ``h.3.experts.7.w1`` -> ``("3", "7")``."""
    return tuple(LAYER_INDEX.findall(module))


def far_from_median(values: Sequence[float]) -> Optional[int]:
    """The index of the value farthest from the median of ``values``, if it is *far*: more than
    :data:`FAR_RATIO` of the median away from it, and with a modified z-score above
    :data:`FAR_SCORE` (module notes of floorcalc.classify.grouping, docs/method.md). None when no value
    is far, or there are fewer than :data:`MIN_INSTANCES` values."""
    if len(values) < MIN_INSTANCES:
        return None
    med = statistics.median(values)
    dev = [abs(v - med) for v in values]
    mad = statistics.median(dev)
    i = max(range(len(values)), key=lambda k: (dev[k], -k))
    if dev[i] <= FAR_RATIO * abs(med):
        return None
    if mad > 0 and 0.6745 * dev[i] / mad <= FAR_SCORE:
        return None
    return i


@dataclass
class _Acc:
    """A group being summed (step 3)."""

    name: str
    module: str
    rows: List[OpRow] = field(default_factory=list)
    instances: Dict[str, float] = field(default_factory=dict)  # label -> measured us


def _work(ops: Sequence[OpRow]) -> Dict[str, str]:
    """Module path -> what its ops do (their names and input shapes, sorted), for ``module``
    grouping: modules fold only when they did the same work."""
    per: Dict[str, Set[str]] = defaultdict(set)
    for r in ops:
        per[r.module].add(f"{r.name}({r.shapes})")
    return {m: "; ".join(sorted(v)) for m, v in per.items()}


def _key(r: OpRow, by: GroupBy, work: Optional[Dict[str, str]] = None) -> Tuple[GroupKey, str, str, str]:
    """(group key, group name, group module, instance label) of a row (step 1); ``work``:
    :func:`_work` of all the rows, for ``module`` grouping."""
    counted = "counted" if r.bound != "uncounted" else "uncounted"
    folded = fold_layers(r.module)
    if by == "layer":
        return (r.name, folded, r.shapes, counted), r.name, folded, r.module
    if by == "module":
        return (folded, (work or {}).get(r.module, "")), "", folded, r.module
    if by == "op":
        return (r.name, r.shapes, counted), r.name, "", f"{r.name} [{r.module}]" if r.module else r.name
    return (r.name, r.module, counted), r.name, r.module, f"{r.name} [{r.module}]" if r.module else r.name


def _joined(values: Sequence[str]) -> str:
    """Distinct values in first-seen order, joined by ``", "``."""
    return ", ".join(dict.fromkeys(values))


def _group(acc: _Acc, by: GroupBy) -> OpGroup:
    rows = acc.rows
    counted = [r for r in rows if r.floor_us is not None]
    with_counts = [r for r in rows if r.flop is not None]   # floored, or unfloored (no spec)
    duration = sum(r.duration_us for r in rows)
    counted_us = sum(r.duration_us for r in counted)
    floor = sum(r.floor_us or 0.0 for r in counted) if counted else None
    by_bound: Dict[Bound, float] = defaultdict(float)
    for r in rows:
        by_bound[r.bound] += r.duration_us
    bound = max(by_bound, key=lambda b: by_bound[b])  # first-seen wins a tie: rows come longest first
    times = list(acc.instances.values())
    labels = list(acc.instances)
    far = far_from_median(times)
    name = acc.name
    if by == "module":
        per_op: Dict[str, float] = defaultdict(float)
        for r in rows:
            per_op[r.name] += r.duration_us
        name = ", ".join(sorted(per_op, key=lambda n: -per_op[n]))
    module = _joined([fold_layers(r.module) for r in rows]) if by == "op" else acc.module
    if by in ("layer", "module") and len(labels) == 1:
        module = labels[0]  # one instance: its own path, nothing folded
    shapes = {r.shapes for r in rows}
    return OpGroup(
        name=name, module=module, shapes=shapes.pop() if len(shapes) == 1 else "", instances=len(times),
        calls=sum(r.calls for r in rows), duration_us=duration, floor_us=floor,
        flop=sum(r.flop or 0.0 for r in with_counts) if with_counts else None,
        bytes=sum(r.bytes or 0.0 for r in with_counts) if with_counts else None,
        efficiency=floor / counted_us if floor is not None and floor > 0 and counted_us > 0 else None,
        bound=bound, median_us=statistics.median(times), min_us=min(times), max_us=max(times),
        outlier=labels[far] if far is not None else "", outlier_us=times[far] if far is not None else None,
        level="/".join(sorted({lv for r in counted for lv in r.level.split("/") if lv})),
        formula=max(with_counts, key=lambda r: r.duration_us).formula if with_counts else "",
    )


def group_ops(ops: Sequence[OpRow], by: GroupBy = DEFAULT) -> Grouping:
    """The op rows ``ops`` grouped ``by`` one of :data:`~floorcalc.records.GROUP_BYS` (module
    notes). Raises ValueError for another ``by``."""
    if by not in GROUP_BYS:
        raise ValueError(f"group by {by!r}: one of {', '.join(GROUP_BYS)}")
    return Grouping(by=by, groups=tuple(g for g, _rows in group_members(ops, by)))


def group_members(ops: Sequence[OpRow], by: GroupBy = DEFAULT) -> List[Tuple[OpGroup, Tuple[OpRow, ...]]]:
    """Each group of :func:`group_ops` (in its order) with the op rows it sums."""
    return [(g, rows) for _key_, g, rows in keyed_members(ops, by)]


def keyed_members(ops: Sequence[OpRow], by: GroupBy = DEFAULT) -> List[Tuple[GroupKey, OpGroup, Tuple[OpRow, ...]]]:
    """Each group of :func:`group_ops` (in its order) with its key (:data:`GroupKey`: for
    ``layer`` the op name, folded module path, input shapes and counted or not) and the op rows
    it sums. Raises ValueError for a ``by`` not in :data:`~floorcalc.records.GROUP_BYS`."""
    if by not in GROUP_BYS:
        raise ValueError(f"group by {by!r}: one of {', '.join(GROUP_BYS)}")
    work = _work(ops) if by == "module" else None
    accs: Dict[GroupKey, _Acc] = {}
    for r in ops:
        key, name, module, label = _key(r, by, work)
        acc = accs.get(key)
        if acc is None:
            acc = accs[key] = _Acc(name=name, module=module)
        acc.rows.append(r)
        acc.instances[label] = acc.instances.get(label, 0.0) + r.duration_us
    out = [(k, _group(a, by), tuple(a.rows)) for k, a in accs.items()]
    out.sort(key=lambda p: (-p[1].duration_us, p[1].name, p[1].module, p[1].shapes))
    return out


def regroup(report: Report, by: GroupBy) -> Report:
    """``report`` with its op rows grouped ``by`` instead (a new record; the rows are kept)."""
    import dataclasses

    return dataclasses.replace(report, grouping=group_ops(report.ops, by))
