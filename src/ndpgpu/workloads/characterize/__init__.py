"""Characterize registered workloads from one traced functional run each (``ndpgpu workloads characterize``).

Every column comes from the launch traces (:mod:`ndpgpu.trace.format`) with vectorised NumPy, so traces
of tens of millions of records take seconds:

``launches``
    kernel launches of the run.
``warp_instructions`` / ``thread_instructions``
    dynamic warp-instructions (segment counts) and thread-instructions (active lanes of each segment,
    guard predicates not applied, as :meth:`KernelTrace.thread_instructions` counts them).
``simd_efficiency``
    ``thread_instructions / (32 * warp_instructions)``.
``mix.<group>``
    fraction of warp-instructions per operation group (the groups of :data:`MIX_GROUPS` over the trace's
    op classes; they sum to 1). ``mix_class.<class>`` in the JSON output has every op class.
``global_bytes_per_thread_instruction``
    bytes moved by the active lanes of global loads, stores and atomics (an atomic counted once, at its
    width) divided by thread-instructions; ``global_bytes_per_warp_instruction`` divides by
    warp-instructions.
``sectors_per_request`` / ``lines_per_request``
    the coalescing degree: distinct 32-B sectors and 128-B lines touched by the active lanes of a warp's
    global memory instruction (loads, stores and atomics), averaged over such instructions (1 line and 4
    sectors for a warp reading 32 consecutive floats; 32 and 32 for a stride of 32 floats).
``shared`` / ``local`` / ``atomic``
    warp-instructions that access shared memory, local memory, or are atomics (any space), with at least
    one lane accessing memory, as a fraction of all warp-instructions (counts in the JSON output).

With a machine (``--machine gtx480``) the traces are also measured along the one measuring path
(:mod:`ndpgpu.timing.measure`: the program's host copies in program order, as ``ndpgpu run`` and sweeps do;
``--no-copies``: kernels only, from cold caches),
adding ``cycles``, ``ipc`` (thread-instructions per core cycle), ``l1_hit_rate``, ``l2_hit_rate``, ``dram_utilisation``
(achieved DRAM bandwidth over the preset's peak) and ``tom_selected`` (utilisation above 50%, the
criterion TOM used to choose its workloads). The functional run then uses the machine's SM count (as
``ndpgpu run --machine`` does), since a few workloads size their grid by it.

``paper_time`` runs a workload at ``paper`` scale in functional mode (no trace), in a child process
with a time limit, and reports its wall time or "over limit".
"""

from __future__ import annotations

from .cli import characterize_main, timing_mode
from .counts import (
    LINE_BYTES,
    MIX_GROUPS,
    SECTOR_BYTES,
    characterize_traces,
    coalescing,
    per_pc_counts,
    summarize,
    timing_columns,
    trace_counts,
    trace_counts_empty,
)
from .render import (
    BEGIN_MARKER,
    END_MARKER,
    PAPER_BEGIN,
    PAPER_END,
    PAPER_HEADING,
    char_cells,
    char_columns,
    markdown_table,
    paper_cells,
    paper_columns,
    parse_markdown_table,
    render_block,
    replace_marked_block,
    write_docs,
)
from .runs import characterize_workload, paper_time, run_isolated

__all__ = [
    "BEGIN_MARKER", "END_MARKER", "LINE_BYTES", "MIX_GROUPS", "PAPER_BEGIN", "PAPER_END", "PAPER_HEADING",
    "SECTOR_BYTES", "char_cells", "char_columns", "characterize_main", "characterize_traces", "characterize_workload",
    "coalescing", "markdown_table", "paper_cells", "paper_columns", "paper_time", "parse_markdown_table",
    "per_pc_counts", "render_block", "replace_marked_block", "run_isolated", "summarize", "timing_columns",
    "timing_mode", "trace_counts", "trace_counts_empty", "write_docs",
]
