"""How PACA spreads DownSample at ``small`` over IP-8's logic-die SMs and vaults, from the CTA allocation
(PatternAwareDispatch) and the engine's address mapping, against counts worked by hand.

DownSample at small: a 1024 x 1024 float32 input (4 KB rows) and a 512 x 512 output (2 KB rows); PACA launches
8 CTAs of 32 x 8 threads, CTA c owning the output rows [64c, 64c + 64) (the band: ceil(512 / (8 x 8)) x 8) and
reading the input rows [128c, 128c + 128). IP-8 interleaves its 8 vaults every 256 B (channel = address bit 8
up, mod 8) and picks a vault's bank from bits 11-14 of the address with the channel taken out, XORed with the
low row bits. By hand:

* CTAs per SM: 1 each (max / mean 1);
* lines per SM: 128 input rows x 32 lines + 64 output rows x 16 lines = 5,120 each (max / mean 1);
* lines per (SM, vault): a 4 KB input row covers each vault's 256 B twice (4 lines), a 2 KB output row once
  (2 lines): 128 x 4 + 64 x 2 = 640 each (max / mean 1);
* but a block step (32 x 8 outputs: 8 warps, each reading 256 B of two input rows and writing 128 B of one
  output row) stays in one vault: the input rows are 4 KB apart, a multiple of the 2 KB interleave period, so
  all 16 input segments of step bx lie in vault (bx / 32) mod 8, and every SM's step bx lies in the same vault,
  since the bands are 512 KB apart. Per block step, all 256 input lines (8 SMs x 16 segments x 2 lines) go to
  one vault of the 8: max / mean 8.
* Inside that vault: with the channel taken out an SM's 16 input rows are 512 B apart, 8 KB in all, so they lie
  in one DRAM row (32 KB: 16 banks x 2 KB) and 4 of its banks; the bands are 64 KB apart there, 2 DRAM rows,
  and the row XOR moves the odd SMs to 4 other banks but maps the even SMs' banks (rows 4 apart) onto the same
  4: 8 of the 16 banks serve the step, each for 4 SMs in 4 different rows.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ndpgpu.mechanisms.ipndp.dispatch import PatternAwareDispatch
from ndpgpu.timing import load_machine
from ndpgpu.timing.build import EngineState
from ndpgpu.workloads.ipndp._common import run_ipndp

LINE = 128


def _geometry():
    _, dev, p = run_ipndp("ipndp_downsample_pa", "small")
    (launch,) = dev.launches
    src, dst = (a.address for a in dev.memory.allocations)
    return p, launch, src, dst


def _lines(base: int, rows: range, pitch: int, x_bytes: range | None = None) -> list[int]:
    lo, hi = (0, pitch) if x_bytes is None else (x_bytes.start, x_bytes.stop)
    return [base + r * pitch + b for r in rows for b in range(lo, hi, LINE)]


def test_paca_spreads_downsample_evenly_over_sms_and_vaults_but_not_within_a_step():
    p, launch, src, dst = _geometry()
    m = load_machine("ipndp-ip8")
    st = EngineState(m)
    n = m.core.num_sms
    ow, oh = p["width"] // 2, p["height"] // 2
    assert (ow, oh, tuple(launch.grid), tuple(launch.block)) == (512, 512, (n, 1, 1), (32, 8, 1))
    plan = PatternAwareDispatch().plan(SimpleNamespace(num_ctas=launch.grid[0]), m)
    ctas = np.bincount(plan.target_sm, minlength=n)
    assert list(ctas) == [1] * n  # CTA c on SM c: max / mean 1
    band = -(-oh // (n * 8)) * 8
    assert band == 64
    per_sm = np.zeros(n, int)
    per_sm_vault = np.zeros((n, n), int)
    for c in range(launch.grid[0]):
        sm = int(plan.target_sm[c])
        lines = _lines(src, range(2 * band * c, 2 * band * (c + 1)), 4 * 2 * ow)
        lines += _lines(dst, range(band * c, band * (c + 1)), 4 * ow)
        per_sm[sm] += len(lines)
        for a in lines:
            per_sm_vault[sm, st.map_address(a)["channel"]] += 1
    assert list(per_sm) == [5120] * n
    assert (per_sm_vault == 640).all()  # every SM uses every vault alike: max / mean 1
    # one block step (bx = 32 s): the input segments of every warp of every SM
    for s in range(0, ow // 32, 5):
        seg = range(8 * 32 * s, 8 * 32 * (s + 1))  # 2 input pixels x 4 B per output, 32 outputs
        where = [st.map_address(a) for c in range(n)
                 for a in _lines(src, range(2 * band * c, 2 * band * c + 16), 4 * 2 * ow, seg)]
        assert len(where) == n * 16 * 2
        vaults = {w["channel"] for w in where}
        assert vaults == {s % 8}  # all 256 lines in one vault: max / mean over the 8 vaults = 8
        per = [where[c * 32:(c + 1) * 32] for c in range(n)]
        for w in per:  # one SM: 4 banks, one DRAM row
            assert len({x["bank"] for x in w}) == 4 and len({x["row"] for x in w}) == 1
        banks: dict[int, set[tuple[int, int]]] = {}
        for c, w in enumerate(per):
            for x in w:
                banks.setdefault(x["bank"], set()).add((c, x["row"]))
        assert len(banks) == 8  # 8 of the vault's 16 banks
        for users in banks.values():  # each for 4 SMs, every SM in a row of its own
            assert len({c for c, _ in users}) == 4 and len({r for _, r in users}) == 4
