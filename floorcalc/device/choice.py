"""Which device spec a run is floored against: the one the user names, else the one matching the
trace's GPU (or the CPU it ran on), with the figures measured at capture folded in; and the
datasheet spec to compare a calibrated one with.

:func:`choose_spec` returns a :class:`~floorcalc.records.SpecChoice`: the spec, how it was found
(in words, for the report's notes) and what the user should know about it (a spec that is not
the one matching the GPU, a spec derived from clocks or from the trace's GPU properties), which
the analysis makes warnings of the report (floorcalc.analysis.driver), so every output format
carries them and none prints them on its own.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional, Tuple, Union

from floorcalc.records import CaptureInfo, DeviceSpec, Figure, GpuProperties, SpecChoice
from floorcalc.util.errors import SpecError

__all__ = ["SPEC_WARNING", "SpecArg", "choose_spec", "no_spec_choice", "reference_spec"]

#: A device spec as the user names it: a spec YAML file, a packaged key (``"h200"``), a
#: :class:`DeviceSpec` used as it is, or None (the one matching the trace's device).
SpecArg = Union[None, str, Path, DeviceSpec]


def reference_spec(spec: DeviceSpec, gpu_name: Optional[str]) -> Optional[DeviceSpec]:
    """The datasheet spec to compare with when ``spec`` holds calibrated (measured) peaks, else None.

    It is the packaged (or user-config) spec matching the GPU, when that is another spec.
    """
    from floorcalc.device import match_spec

    if spec.kind != "gpu" or not any(f.basis == "measured" for f in spec.peak_flop_per_s.values()):
        return None
    name = gpu_name or (spec.nvml_names[0] if spec.nvml_names else None)
    ref = match_spec(name) if name else None
    if ref is None or ref.origin == spec.origin:
        return None
    # only the ceilings P and W differ between the two; L is the one measured for this run
    return dataclasses.replace(ref, launch_latency_us=spec.launch_latency_us)


def _derived_for_this_gpu(target: str, gpu_name: Optional[str], spec_arg: SpecArg, sm_count: Optional[int],
                          compute_capability: Optional[str], warnings: List[str]) -> Optional[DeviceSpec]:
    """A derived spec for an unknown GPU that is on this machine (NVML sees it), else None."""
    if target != "cuda" or spec_arg or not gpu_name:
        return None
    from floorcalc.device import derive_spec, detect_gpu

    detected = detect_gpu()
    if detected is None or detected.name != gpu_name:
        return None
    spec = derive_spec(detected, sm_count=sm_count, compute_capability=compute_capability)
    warnings.append(f"no device spec matches {gpu_name!r}; using peaks and bandwidth derived from NVML clocks "
                    "(marked 'derived'); pass --spec FILE.yaml for datasheet figures")
    return spec


def choose_spec(target: str, gpu_name: Optional[str], spec_arg: SpecArg, *, launch: Optional[Figure] = None,
                cpu_bandwidth: Optional[Figure] = None, captured_cpu: Optional[CaptureInfo] = None,
                sm_count: Optional[int] = None, compute_capability: Optional[str] = None,
                trace_devices: Tuple[GpuProperties, ...] = ()) -> SpecChoice:
    """The DeviceSpec for this run, with measured figures folded in, how it was found and the
    warnings about it (:class:`~floorcalc.records.SpecChoice`).

    ``spec_arg``: a spec file or packaged key (``--spec``), or a :class:`DeviceSpec` used as it
    is (no lookup, no measured L folded in; only checked against ``target``), or None.
    Precedence: ``--spec`` > user config dir > packaged devices/ (see docs/spec-format.md).
    A launch latency measured at capture time (``launch``) replaces the spec's, unless the
    user's spec set one itself (basis "user"). ``captured_cpu`` (the capture record of a
    floorcalc-captured CPU trace: its ``cpu_name`` and ``cpu_peak_flop_per_s``) replaces this
    host's derived CPU peaks, so a trace analysed on another machine is floored against the CPU
    it ran on. A GPU no spec matches, when it is the GPU of this machine, gets a spec derived
    from NVML's clocks, its SM count and compute capability (every figure marked "derived"),
    with a warning. ``trace_devices`` (a trace's ``deviceProperties``): without ``--spec``, its
    first GPU is identified from everything it says (name, SM/CU count, memory, compute
    capability, warp size, gfx architecture; floorcalc.device.detect.identify_trace_gpu), and a
    part no spec matches gets one derived from the nearest spec, with a warning. A spec given
    for a GPU that another spec matches is used, with a warning. ``how`` says, in words, how the
    spec was found ("given", "--spec FILE", "matched by the trace's GPU name 'NAME'",
    "identified from the trace's GPU properties", "derived from ...", "this host's CPU"...).

    Raises :class:`SpecError` when no spec fits, or one describes the wrong kind of device.
    """
    from floorcalc.device import cpu_spec, resolve_spec

    how = ""
    warnings: List[str] = []
    if isinstance(spec_arg, DeviceSpec):
        spec = spec_arg
        how = "given"
    else:
        path = str(spec_arg) if spec_arg else None
        cpu = cpu_spec(bandwidth=cpu_bandwidth, launch_latency=launch) if target == "cpu" else None
        if cpu is not None and captured_cpu is not None and captured_cpu.cpu_peak_flop_per_s:
            peaks = {k: Figure(f.value, f.basis, f"{f.source} (recorded in the trace)")
                     for k, f in captured_cpu.cpu_peak_flop_per_s.items()}
            cpu = dataclasses.replace(cpu, name=captured_cpu.cpu_name if captured_cpu.cpu_name is not None else cpu.name,
                                      peak_flop_per_s=peaks,
                                      origin=("trace metadata",) + tuple(o for o in cpu.origin if o != "/proc/cpuinfo"))
        identified = None
        if target == "cuda" and not path and trace_devices:
            from floorcalc.device import identify_trace_gpu

            match = identify_trace_gpu(trace_devices[0])
            if match.spec is not None:
                identified = match.spec
                how = {"name": f"matched by the trace's GPU name {trace_devices[0].name!r}",
                       "properties": "identified from the trace's GPU properties (SM/CU count, memory, compute "
                                     "capability)",
                       "derived": "derived from the trace's GPU properties (figures marked 'derived')"}.get(
                           match.how, match.how)
                if match.warning:
                    warnings.append(match.warning)
        try:
            spec = identified if identified is not None else resolve_spec(target, gpu_name=gpu_name, spec_path=path,
                                                                          cpu=cpu)
            if not how:
                how = (f"--spec {path}" if path else "this host's CPU" if target == "cpu"
                       else f"matched by the GPU name {gpu_name!r}")
        except SpecError:
            derived = _derived_for_this_gpu(target, gpu_name, path, sm_count, compute_capability, warnings)
            if derived is None:
                raise
            spec = derived
            how = "derived from this machine's NVML clocks"
    if target == "cpu" and spec.kind != "cpu":
        raise SpecError(f"spec {spec.key!r} describes a {spec.kind}, but this run is on the CPU")
    if target == "cuda" and spec.kind != "gpu":
        raise SpecError(f"spec {spec.key!r} describes a {spec.kind}, but this run is on a GPU")
    if isinstance(spec_arg, DeviceSpec):
        return SpecChoice(spec, how, tuple(warnings))
    if target == "cuda" and spec_arg and gpu_name:
        from floorcalc.device import match_spec

        detected = match_spec(gpu_name)
        if detected is not None and detected.key != spec.key and gpu_name not in spec.nvml_names:
            warnings.append(f"the spec given ({spec.key}, {spec.name}) is not the one matching the GPU "
                            f"({gpu_name} -> {detected.key}); using the one given")
    if launch is not None and spec.launch_latency_us.basis != "user":
        spec = dataclasses.replace(spec, launch_latency_us=launch)
    return SpecChoice(spec, how, tuple(warnings))


#: How the report words a warning of the spec choice: ``device spec: ...`` (the CLI also prints
#: these to stderr when the report goes to a file).
SPEC_WARNING = "device spec: "


def no_spec_choice(gpu_name: Optional[str], has_devices: bool, error: SpecError) -> SpecChoice:
    """The no-spec stand-in (floorcalc.device.spec.no_spec) for a GPU trace no spec fits when the
    user named none: the figures that need a ceiling are left out, and ``how`` says why (the
    trace names no GPU, or ``error``'s first clause). Raises nothing."""
    from floorcalc.device import no_spec

    why = ("the trace names no GPU (no deviceProperties)" if not gpu_name and not has_devices
           else str(error).split("; pass --spec")[0].split("; see ")[0])
    return SpecChoice(no_spec(gpu_name or "", why), why)
