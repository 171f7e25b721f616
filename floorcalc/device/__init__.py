"""The device stage: the ceilings (peak FLOP/s, bandwidth, launch latency) of the device a pass ran on.

Specs are YAML files (format: ``docs/spec-format.md``) shipped in ``devices/``, overridable in
the user config folder or by a ``--spec`` file; :func:`resolve_spec` picks one by precedence.
:func:`detect_gpu` asks NVML which GPU this is, :func:`derive_spec` builds a spec from clocks
for a GPU no file covers, and :func:`cpu_spec` derives the host CPU's. Nothing here imports
torch.
"""

from floorcalc.device.cpu import cpu_spec
from floorcalc.device.detect import DetectedGpu, arch_rates, derive_spec, detect_gpu, spec_from_trace_devices
from floorcalc.device.spec import (
    SCHEMA_VERSION,
    check_figure,
    list_specs,
    load_file,
    load_spec,
    match_spec,
    packaged_dir,
    resolve_spec,
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
    "list_specs",
    "load_file",
    "load_spec",
    "match_spec",
    "packaged_dir",
    "resolve_spec",
    "spec_from_trace_devices",
    "user_config_dir",
]
