"""What a collective must move: its size and the bytes each GPU puts on its link.

The conventions are nccl-tests' ("Performance reported by NCCL tests",
https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md). For an operation of size
``S`` bytes over ``n`` ranks, each rank's link must carry at least ``S x factor`` bytes, and
nccl-tests' *bus bandwidth* is ``S / t x factor``:

================  ==============================================  ===========
operation         S (from the trace's element counts x dtype)      factor
================  ==============================================  ===========
all_reduce        the buffer (``In msg nelems``)                    2(n-1)/n
all_gather        the gathered output (``Out msg nelems``)          (n-1)/n
reduce_scatter    the input before scattering (``In msg nelems``)   (n-1)/n
all_to_all        one rank's send buffer (``In msg nelems``)        (n-1)/n
broadcast, reduce the buffer                                        1
send, recv        the message                                       1
barrier           nothing (a 1-element all_reduce: latency only)    0
================  ==============================================  ===========

The factor holds whatever algorithm NCCL picks (ring, tree): all_reduce needs ``n-1`` additions
and ``n`` assignments per element, ``2(n-1)`` transfers spread over ``n`` links, and so on
(nccl-tests' derivation). A group of one rank moves nothing (factor 0). In-network reduction
(NVLink SHARP, ``(n-1)/(n+1)``) is not modelled: the floor stays a lower bound only while NVLS
is off (the project's runs set ``NCCL_NVLS_ENABLE=0``).
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional, Tuple

from floorcalc.records import DTYPE_BYTES, CollectiveCall, CommCount

#: nccl-tests' bus-bandwidth factor of each operation over n ranks (module notes): the one home of
#: these factors (floorcalc.device.calibration turns measured times into bus bandwidth with them).
BUS_FACTORS: Mapping[str, Callable[[int], float]] = {
    "all_reduce": lambda n: 2.0 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0 if n > 1 else 0.0,
    "reduce": lambda n: 1.0 if n > 1 else 0.0,
    "send": lambda n: 1.0,
    "recv": lambda n: 1.0,
    "barrier": lambda n: 0.0,
}
#: Each factor in words.
RULES = {"all_reduce": "2(n-1)/n x S", "all_gather": "(n-1)/n x S", "reduce_scatter": "(n-1)/n x S",
         "all_to_all": "(n-1)/n x S", "broadcast": "1 x S", "reduce": "1 x S", "send": "1 x S", "recv": "1 x S",
         "barrier": "no payload"}


def message_elements(call: CollectiveCall) -> Optional[int]:
    """The element count of the operation's size S (see the module notes), None when the trace
    does not give it."""
    k = call.kind
    if k == "all_gather" or k == "recv":
        return call.out_elements if call.out_elements is not None else call.in_elements
    if k == "barrier":
        return 0
    return call.in_elements if call.in_elements is not None else call.out_elements


def count_collective(call: CollectiveCall) -> Tuple[Optional[CommCount], str]:
    """``(CommCount, "")``, or ``(None, why)`` when the trace lacks what the count needs: a known
    operation, its element counts, its dtype and its group size."""
    factor_of = BUS_FACTORS.get(call.kind)
    if factor_of is None:
        return None, f"no convention for the collective {call.name!r}"
    n = call.group_size
    if n is None or n < 1:
        return None, "the trace does not give the process group's size"
    elements = message_elements(call)
    if elements is None:
        return None, "the trace gives no element counts for this collective (torch before 2.2 writes none)"
    if call.kind != "barrier" and call.dtype not in DTYPE_BYTES:
        return None, f"the trace gives no known dtype for this collective ({call.dtype})"
    size = elements * DTYPE_BYTES.get(call.dtype, 0)
    factor = factor_of(n)
    return CommCount(kind=call.kind, group_size=n, dtype=call.dtype, message_bytes=size, link_bytes=size * factor,
                     factor=factor, rule=f"{call.kind} over {n} ranks: {RULES[call.kind]} (nccl-tests bus bytes)"), ""
