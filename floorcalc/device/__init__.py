"""The device stage: the ceilings (peak FLOP/s, bandwidth, launch latency) of the device a pass ran on.

Specs are YAML files (format: ``docs/spec-format.md``) shipped in ``devices/``, overridable in
the user config folder or by a ``--spec`` file; :func:`resolve_spec` picks one by precedence.
:func:`detect_gpu` asks NVML which GPU this is, :func:`identify_trace_gpu` finds the spec for
a trace's ``deviceProperties`` (or derives one), :func:`derive_spec` builds a spec from clocks
for a GPU no file covers, :func:`cpu_spec` derives the host CPU's, and :func:`level_for_bytes`
picks the memory level an op's bytes are floored at. Nothing here imports torch.
"""

from floorcalc.device.cpu import cpu_spec
from floorcalc.device.detect import (DetectedGpu, TraceGpuMatch, arch_rates, derive_spec, detect_gpu,
                                     identify_trace_gpu, spec_from_trace_devices)
from floorcalc.device.levels import level_for_bytes, levels_of
from floorcalc.device.spec import (
    SCHEMA_VERSION,
    check_figure,
    list_specs,
    load_file,
    load_spec,
    match_spec,
    no_spec,
    packaged_dir,
    resolve_spec,
    shown_origin,
    user_config_dir,
)

__all__ = [
    "SCHEMA_VERSION",
    "DetectedGpu",
    "arch_rates",
    "check_figure",
    "cpu_spec",
    "derive_spec",
    "detect_gpu",
    "identify_trace_gpu",
    "level_for_bytes",
    "levels_of",
    "TraceGpuMatch",
    "list_specs",
    "shown_origin",
    "load_file",
    "load_spec",
    "match_spec",
    "no_spec",
    "packaged_dir",
    "resolve_spec",
    "spec_from_trace_devices",
    "user_config_dir",
]
