"""Run the worked example (``docs/extending.md``) in a process whose engine knows the mechanism.

Started by ``tests/mechanisms/test_worked_example.py`` with ``NDPGPU_MECHANISMS=fixed_latency.hardware``;
prints the statistics of one synthetic kernel with and without the accelerator, and the hook probe's
counters on a streaming kernel, as JSON.
"""

from __future__ import annotations

import json

from hook_probe import HookProbe
from tracegen import TraceBuilder, streaming_read

from ndpgpu.mechanisms.policy import make_policy
from ndpgpu.timing import TimingSession


def kernel():
    """Every warp: an ALU op, a 16-op dependent chain (the stretch), a store, exit."""
    b = TraceBuilder("chain", 8, 128)
    first = b.op("mov.u32", "int", dst=(1,), src=(0,))
    chain = [b.op("mad.lo.s32", "int", dst=(2,), src=(2, 1)) for _ in range(16)]
    st = b.op("st.global.u32", "store", src=(3, 2), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(8 * 4):
        b.run(w, first)
        for pc in chain:
            b.run(w, pc)
        b.run(w, st, base=(1 << 32) + w * 128)
        b.run(w, ex)
    return b.build(), chain[0], st


def rows(stats) -> dict[str, float]:
    return {f"{p}.{m}": v for p, m, v, _u in stats.rows() if isinstance(v, (int, float))}


def main() -> None:
    trace, start_pc, end_pc = kernel()
    plain = TimingSession("gtx480")
    base = rows(plain.run_launch(trace))
    sess = TimingSession("gtx480")
    # by its name, as a sweep or `ndpgpu run --policy` names it: the registry finds fixed_latency.policy
    policy = make_policy(f"fixedlat:pcs,start={start_pc},end={end_pc},latency=500")
    policy.prepare(sess, None, [trace])
    with_acc = rows(sess.run_launch(trace)) | {f"{p}.{m}": v for p, m, v, _u in policy.rows()}
    # the latency as the machine's parameter (params.py beside the hardware), the policy string naming none
    tuned = TimingSession("gtx480", {"mechanisms.fixed_latency.latency": 300})
    by_machine = make_policy(f"fixedlat:pcs,start={start_pc},end={end_pc}")
    by_machine.prepare(tuned, None, [trace])
    machine_rows = rows(tuned.run_launch(trace)) | {f"{p}.{m}": v for p, m, v, _u in by_machine.rows()}
    probe = TimingSession("gtx480", {"sim.record_dram_commands": True})
    probe.attach(HookProbe())
    st = probe.run_launch(streaming_read(16, 256, 4))
    log = probe.dram_commands()
    builtin = TimingSession("gtx480", {"sim.record_dram_commands": True, "l1d.prefetch.impl": "next_line"})
    probed = {"counters": st.mechanism_counters, "rows": rows(st),
              "dram_log": {str(cmd): int((log[:, 2] == cmd).sum()) for cmd in range(1, 6)},
              "builtin_prefetcher": rows(builtin.run_launch(streaming_read(16, 256, 4)))}
    print(json.dumps({"warps": trace.num_warps, "base": base, "accelerated": with_acc, "probe": probed,
                      "machine_latency": machine_rows}))


if __name__ == "__main__":
    main()
