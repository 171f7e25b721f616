"""floorcalc.compare.reports on reports built from hand-made traces (toy device): ops matched, ranked,
appeared and vanished; totals; device warnings."""

import pytest

from builders import KinetoBuilder, tensor_args, toy_spec
from floorcalc.analysis.driver import build_report
from floorcalc.compare.reports import compare
from floorcalc.trace import load


def _report(tmp_path, name, ops, spec=None):
    """One pass of ``ops``: (op name, kernel duration us, counted?) each launching one kernel."""
    b = KinetoBuilder()
    b.step(0, 0.0, 1000.0)
    t = 1.0
    for op, dur, counted in ops:
        # uncounted: no formula and no shapes (with shapes it would be counted bytes-only)
        ext = b.op(op, t, 5.0, tensor_args([64, 64], [64, 64]) if counted else None)
        b.launch(t + 1, t + 10, dur, f"{op}_kernel", ext=ext)
        t += 100.0
    return build_report(load(b.write(tmp_path / f"{name}.trace.json.gz")), spec or toy_spec())


def test_ops_are_matched_ranked_and_marked(tmp_path):
    # GIVEN A with add and mm, B with a slower mm and a new relu
    a = _report(tmp_path, "a", [("aten::add", 10.0, True), ("aten::mm", 20.0, True)])
    b = _report(tmp_path, "b", [("aten::mm", 50.0, True), ("aten::relu", 5.0, True)])
    # WHEN they are compared
    c = compare(a, b, a_source="a.json", b_source="b.json")
    # THEN mm leads (+30 us), add vanished, relu appeared, and each side keeps its own figures
    assert [(o.name, o.status) for o in c.ops] == [("aten::mm", "both"), ("aten::add", "vanished"),
                                                  ("aten::relu", "appeared")]
    mm = c.ops[0]
    assert mm.time_change_us == pytest.approx(30.0) and mm.a.calls == mm.b.calls == 1.0
    assert mm.floor_change_us == pytest.approx(0.0) and mm.efficiency_change < 0
    assert c.ops[1].time_change_us == pytest.approx(-10.0) and c.ops[1].efficiency_change is None
    assert [o.name for o in c.appeared] == ["aten::relu"] and [o.name for o in c.vanished] == ["aten::add"]
    assert (c.a.source, c.b.device_key) == ("a.json", "toy") and c.warnings == ()
    totals = {t.figure: t for t in c.totals}
    assert totals["op_time_us"].change == pytest.approx(25.0) and totals["efficiency"].unit == "ratio"


def test_a_report_with_nothing_counted_has_no_sum_of_floors(tmp_path):
    a = _report(tmp_path, "a", [("aten::my_op", 10.0, False)])
    b = _report(tmp_path, "b", [("aten::mm", 10.0, True)])
    totals = {t.figure: t for t in compare(a, b).totals}
    assert totals["floor_us"].a is None and totals["floor_us"].b > 0 and totals["floor_us"].change is None
    assert totals["efficiency"].a is None and totals["efficiency"].b is not None
    ops = {o.name: o for o in compare(a, b).ops}
    assert ops["aten::my_op"].floor_change_us is None  # vanished, and had no floor
    assert ops["aten::mm"].floor_change_us == ops["aten::mm"].b.floor_us  # appeared: from 0


def test_other_ceilings_and_devices_are_warned_about(tmp_path):
    a = _report(tmp_path, "a", [("aten::mm", 10.0, True)])
    slower = _report(tmp_path, "b", [("aten::mm", 10.0, True)], spec=toy_spec(latency_us=3.0, bw=2e9))
    (w,) = compare(a, slower).warnings
    assert w.startswith("the runs used different ceilings on toy: DRAM bandwidth 1 GB/s -> 2 GB/s; "
                        "launch latency L 2.0 us -> 3.0 us")
    other = _report(tmp_path, "c", [("aten::mm", 10.0, True)], spec=toy_spec(kind="cpu"))
    import dataclasses

    other = dataclasses.replace(other, target="cpu", device=dataclasses.replace(other.device, key="toy2"))
    warnings = compare(a, other).warnings
    assert warnings[0] == "the runs analysed different targets: A cuda, B cpu"
    assert "different device specs: A toy (Toy GPU), B toy2 (Toy GPU)" in warnings[1]


def _layered(report, times_us):
    """``report`` with its one op row repeated as ``layers.i.fc``, one per time in ``times_us``."""
    import dataclasses

    (row,) = report.ops
    rows = tuple(dataclasses.replace(row, module=f"layers.{i}.fc", duration_us=t) for i, t in enumerate(times_us))
    return dataclasses.replace(report, ops=rows)


def test_layers_are_grouped_and_matched_by_key_with_their_instances(tmp_path):
    # GIVEN A with 2 layers of one mm, B with 3 layers of it (a deeper model)
    base = _report(tmp_path, "a", [("aten::mm", 10.0, True)])
    a, b = _layered(base, [10.0, 12.0]), _layered(base, [10.0, 12.0, 14.0])
    # WHEN compared by layer (the default)
    c = compare(a, b)
    # THEN one group, matched, with 2 then 3 instances and the summed times
    (g,) = c.groups
    assert (c.group_by, g.name, g.module, g.status) == ("layer", "aten::mm", "layers.*.fc", "both")
    assert (g.a.instances, g.b.instances) == (2, 3) and g.time_change_us == pytest.approx(14.0)
    assert g.b.floor_us == pytest.approx(3 * base.ops[0].floor_us) and c.rows == c.groups
    # AND the ops stay one per layer: layers.2.fc appeared
    assert len(c.ops) == 3 and c.appeared == ()  # appeared/vanished are of the rows shown: the groups
    assert {o.module: o.status for o in c.ops}["layers.2.fc"] == "appeared"
    # AND with none the rows are the ops, with op grouping the instances are modules
    none = compare(a, b, group_by="none")
    assert none.rows == none.ops == c.ops and [o.status for o in none.appeared] == ["appeared"]
    (by_op,) = compare(a, b, group_by="op").groups
    assert (by_op.a.instances, by_op.b.instances, by_op.module) == (2, 3, "layers.*.fc")
    with pytest.raises(ValueError, match="group by 'kernel'"):
        compare(a, b, group_by="kernel")
