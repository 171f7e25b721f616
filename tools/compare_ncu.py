"""Set floorcalc's byte model and floors beside Nsight Compute's measurements of the same kernels.

    python3 tools/compare_ncu.py NCU.csv TRACE.json.gz

NCU.csv: `ncu --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum`
of one pass (tools/ncu_gpt2.py). TRACE: a floorcalc trace of the same model; its first pass's
kernels are matched to ncu's in launch order (names are checked). Prints, per op kind, counted
bytes vs DRAM bytes measured (all, and reads alone), and the floor vs ncu's and the profiler's
kernel times. ncu's default cache control flushes the caches before each kernel, so its DRAM
reads are cold-cache reads; writes still in L2 when a kernel ends are not counted by it.
"""
import csv
import sys
from collections import defaultdict

from floorcalc.classify import classify
from floorcalc.device import load_spec
from floorcalc.timeline import window
from floorcalc.trace import load


def read_ncu(path):
    rows = defaultdict(dict)
    names = {}
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        i = int(r["ID"])
        names[i] = r["Kernel Name"]
        v = float(r["Metric Value"].replace(",", ""))
        unit = r["Metric Unit"]
        scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "nsecond": 1e-3, "ns": 1e-3,
                 "usecond": 1, "us": 1, "msecond": 1e3, "ms": 1e3}.get(unit, 1)
        rows[i][r["Metric Name"]] = v * scale
    return [(names[i], rows[i]) for i in sorted(rows)]


def _norm(name):
    """Kineto and ncu spell namespaces differently; compare names without them and spaces."""
    for a, b in (("at::native::", "at::"), ("(anonymous namespace)", "<unnamed>"), (" ", "")):
        name = name.replace(a, b)
    return name


def main(ncu_csv, trace_path):
    ncu = read_ncu(ncu_csv)
    tr = load(trace_path)
    win = window(tr)
    import dataclasses

    spec = load_spec("h200")
    if tr.capture.launch_latency is not None:  # the L measured when the trace was captured
        spec = dataclasses.replace(spec, launch_latency_us=tr.capture.launch_latency)
    units = classify(tr, win, spec)
    first = min(s.number for s in tr.steps)
    ev_unit = {}
    for u in units:
        if u.op is not None and u.op.step == first:
            for e in u.events:
                ev_unit[e.index] = u
    kernels = sorted((tr.gpu[i] for i in ev_unit if tr.gpu[i].kind == "kernel"), key=lambda e: e.ts_us)
    if len(kernels) != len(ncu):
        print(f"kernel counts differ: trace {len(kernels)}, ncu {len(ncu)}; matching the common prefix")
    # n, counted bytes, dram bytes, floor, ncu us, profiler us, counted read, dram read
    by_op = defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    seen = set()
    mism = 0
    for k, (nname, m) in zip(kernels, ncu):
        if _norm(k.name)[:30] != _norm(nname)[:30]:
            mism += 1
        u = ev_unit[k.index]
        a = by_op[u.op.name]
        a[0] += 1
        a[2] += m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0)
        a[4] += m.get("gpu__time_duration.sum", 0)
        a[5] += k.duration_us
        a[7] += m.get("dram__bytes_read.sum", 0)
        if id(u) not in seen and u.count is not None:
            seen.add(id(u))
            a[1] += u.count.bytes
            a[3] += u.floor.floor_us
            a[6] += u.count.bytes_read
    print(f"name mismatches in matched order: {mism}")
    print(f"{'op':40s} {'kernels':>7s} {'counted MB':>11s} {'DRAM MB':>9s} {'DRAM/counted':>12s} "
          f"{'read: counted':>13s} {'DRAM':>8s} {'floor us':>9s} {'ncu us':>8s} {'kineto us':>9s}")
    tot = [0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    for op, a in sorted(by_op.items(), key=lambda kv: -kv[1][4]):
        ratio = a[2] / a[1] if a[1] else float("nan")
        print(f"{op:40s} {a[0]:7d} {a[1]/1e6:11.3f} {a[2]/1e6:9.3f} {ratio:12.2f} {a[6]/1e6:13.3f} {a[7]/1e6:8.3f} "
              f"{a[3]:9.1f} {a[4]:8.1f} {a[5]:9.1f}")
        tot = [x + y for x, y in zip(tot, a)]
    print(f"{'total':40s} {tot[0]:7d} {tot[1]/1e6:11.3f} {tot[2]/1e6:9.3f} {tot[2]/tot[1]:12.2f} "
          f"{tot[6]/1e6:13.3f} {tot[7]/1e6:8.3f} {tot[3]:9.1f} {tot[4]:8.1f} {tot[5]:9.1f}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
