"""MTHWP (Lee et al., MICRO 2010; TELEPORT's Sec. 5.4 comparison): the three tables on hand-made access
streams (PWS: a warp's next demand; IP: the next warp's; GS: promoted when warps agree; loads executed once
per warp: PWS and GS silent), then in the timing engine: results bit-identical, a data-dependent gather it
cannot predict, the policy strings, and analytic bounds (one line per L1 access, at most one L1 access per
SM and core cycle)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import ndpgpu.api as cp
from ndpgpu.mechanisms.policy import PolicyError, make_policy
from ndpgpu.mechanisms.teleport import hardware as H
from ndpgpu.mechanisms.teleport.config import Teleport
from ndpgpu.mechanisms.teleport.policy import parse
from ndpgpu.mechanisms.teleport.unit import TeleportHardware, mt_init, mt_words

GAP = 16  # ps: transactions of one instruction closer than this


def state(ringn: int = 64, period: int = 1 << 30) -> np.ndarray:
    """An mx holding only MTHWP's state, for one SM."""
    ctr0 = H.F_HDR
    mt0 = ctr0 + len(H.COUNTER_NAMES)
    mx = np.zeros(mt0 + mt_words(ringn), np.int64)
    mx[H.F_CTR0], mx[H.F_MT], mx[H.F_MT0], mx[H.F_MT_RINGN] = ctr0, 1, mt0, ringn
    mx[H.F_MT_GAP], mx[H.F_MT_PERIOD] = GAP, period
    mt_init(mx[mt0:], 1, ringn)
    return mx


def access(mx, slot, pc, line, now, hit=0) -> int:
    """The line MTHWP asks for on this access (-1: none); it asks for one at most."""
    t = H.l1_access(0, slot, pc, line, hit, 0, now, mx)
    assert H.l1_access(0, slot, pc, line, hit, 1, now, mx) == -1
    return int(t)


def ctr(mx, name: str) -> int:
    return int(mx[mx[H.F_CTR0] + H.COUNTER_NAMES.index(name)])


def test_pws_predicts_the_warps_next_demand():
    """One warp looping over a strided array: from the third access on, the target is its next demand."""
    mx = state()
    stride = 4096
    lines = [0x10000 + i * stride for i in range(8)]
    got = [access(mx, 3, 7, ln, 1000 * i) for i, ln in enumerate(lines)]
    assert got[:2] == [-1, -1]  # a stride must be seen twice
    assert got[2:-1] == lines[3:]
    assert ctr(mx, "MT_PWS") == 6 and ctr(mx, "MT_IP") == 0 and ctr(mx, "MT_GS") == 0
    assert ctr(mx, "MT_PROMOTED") == 0  # one warp: nothing to promote


def test_gs_promoted_when_three_warps_agree():
    mx = state()
    stride = 4096
    t = 0
    for i in range(3):
        for w in (0, 1, 2):  # warps far apart in the address space: no inter-warp stride
            access(mx, w, 9, 0x100000 * (w + 1) + i * stride, t)
            t += 1000
    assert ctr(mx, "MT_PROMOTED") == 1
    # a fourth warp's first access of that PC is predicted by GS at once
    assert access(mx, 5, 9, 0x900000, t) == 0x900000 + stride
    assert ctr(mx, "MT_GS") >= 1


def test_ip_predicts_the_next_warps_line_and_pws_stays_silent():
    """Each warp loads once, at warp-id-strided addresses: IP trains after three warps; PWS never does."""
    mx = state()
    base = 0x40000
    got = [access(mx, w, 4, base + w * 256, 1000 * w) for w in range(8)]
    assert got[:2] == [-1, -1]
    assert got[2:] == [base + (w + 1) * 256 for w in range(2, 8)]
    assert ctr(mx, "MT_PWS") == 0 and ctr(mx, "MT_GS") == 0 and ctr(mx, "MT_IP") == 6


def test_loads_once_per_warp_at_unrelated_addresses_no_prefetch():
    """The EDS-like case without an inter-warp stride: no table trains, nothing is asked for."""
    mx = state()
    rng = np.random.default_rng(1)
    lines = rng.choice(1 << 16, 64, replace=False) * 128
    for w, pc in enumerate(range(64)):
        assert access(mx, w % 48, pc % 4, int(lines[w]), 1000 * w) == -1
    assert ctr(mx, "MT_REQUESTED") == 0


def test_one_instructions_transactions_train_once():
    """Two lines per warp instruction (transactions GAP apart): PWS learns the instruction's stride, not 128."""
    mx = state()
    stride = 8192
    for i in range(5):
        a = access(mx, 1, 2, i * stride, 1000 * i)
        b = access(mx, 1, 2, i * stride + 128, 1000 * i + 1)
        if i >= 2:
            assert (a, b) == ((i + 1) * stride, (i + 1) * stride + 128)
    assert ctr(mx, "MT_TRAIN") == 5


def test_accounting_useful_late_and_evicted():
    """A prefetched line demanded with a hit is useful, with a miss late (or evicted); one pushed out of the
    ring unread is wasted."""
    mx = state(ringn=4)
    for i, ln in enumerate((0, 128, 256)):
        access(mx, 0, 1, ln, 1000 * i)
    # asked for 384 at the third access; it arrives in time
    assert access(mx, 0, 1, 384, 3000, hit=1) == 512
    assert ctr(mx, "MT_USEFUL") == 1
    assert access(mx, 0, 1, 512, 4000, hit=0) == 640
    assert ctr(mx, "MT_MISSED") == 1
    for i in range(4):  # four unrelated misses push the prefetched 640 out of the 4-line ring
        access(mx, 7, 3, 0x100000 + i * 0x10000 + i * 384, 5000 + 1000 * i)
    assert ctr(mx, "MT_EXPIRED") >= 1


def test_throttling_stops_and_probes():
    """Prefetches all pushed out unread: the next period asks for nothing; after that silent period, one level
    down (a probe)."""
    period = 16
    mx = state(ringn=2, period=period)
    b = int(mx[H.F_MT0])
    rng = np.random.default_rng(2)
    far = rng.choice(1 << 12, 64, replace=False) * 0x10000 + 0x10000000
    seq = [(w, 0x100000 * (w + 1) + i * 4096) for i in range(3) for w in (0, 1, 2)]  # GS promoted
    seq += [(3 + j, int(far[j])) for j in range(period - len(seq))]  # GS predicts, nothing demanded again
    for t, (w, line) in enumerate(seq):
        access(mx, w, 1, line, 1000 * t)
    assert ctr(mx, "MT_PROMOTED") == 1 and ctr(mx, "MT_EXPIRED") > 0 and ctr(mx, "MT_USEFUL") == 0
    assert ctr(mx, "MT_PERIODS") == 1 and int(mx[b + H.MS_LEVEL]) == H.MAX_LEVEL
    for j in range(period - 1):
        assert access(mx, 20 + j % 20, 1, int(far[20 + j]), 1000 * (period + j)) == -1
    assert ctr(mx, "MT_THROTTLED") >= period - 1
    access(mx, 40, 1, int(far[60]), 1000 * 2 * period)
    assert ctr(mx, "MT_PERIODS") == 2 and int(mx[b + H.MS_LEVEL]) == H.MAX_LEVEL - 1


# ------------------------------------------------------------------------------------------------------
# in the timing engine

SRC = r"""
extern "C" __global__ void strided(const float *a, float *out, int iters) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int n = gridDim.x * blockDim.x;
  float s = 0.f;
  for (int i = 0; i < iters; i++) s += a[i * n + t];
  out[t] = s;
}
extern "C" __global__ void gather(const int *idx, const float *a, float *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  out[t] = a[idx[t]];
}
"""
GRID, BLOCK, ITERS = 4, 256, 32
NT = GRID * BLOCK


@functools.cache
def module() -> cp.RawModule:
    return cp.RawModule(code=SRC)


def launch(kernel: str, hw: TeleportHardware | None, seed: int = 3, iters: int = ITERS):
    """(output, metric rows, stats) of one launch on gtx480 with ``hw`` attached (or none)."""
    rng = np.random.default_rng(seed)
    with cp.Device("gtx480") as dev:
        if hw is not None:
            dev.timing.attach(hw)
        out = cp.zeros(NT, np.float32)
        if kernel == "strided":
            a = cp.asarray(rng.random(NT * iters, dtype=np.float32))
            module().get_function("strided")((GRID,), (BLOCK,), (a, out, np.int32(iters)))
        else:
            idx = cp.asarray(rng.integers(0, NT * 64, NT).astype(np.int32))
            a = cp.asarray(rng.random(NT * 64, dtype=np.float32))
            module().get_function("gather")((GRID,), (BLOCK,), (idx, a, out))
        st = dev.launch_stats[-1]
        return out.get(), {(p, m): v for p, m, v, _ in st.rows()}, st


def mthwp() -> TeleportHardware:
    return TeleportHardware({}, Teleport(machine="off", mthwp=True))


def mt(m, name):
    return m[("teleport.mthwp", name)]


@functools.cache
def strided_runs():
    return launch("strided", None), launch("strided", mthwp())


def test_strided_loop_trains_and_prefetches_the_next_iteration():
    (_o0, m0, _), (_o1, m1, _) = strided_runs()
    warp_iters = NT // 32 * ITERS
    assert mt(m1, "promoted") >= 1  # the warps of an SM agree on the loop's stride
    assert mt(m1, "candidates_gs") + mt(m1, "candidates_pws") > warp_iters // 2
    demanded = mt(m1, "useful") + mt(m1, "late_or_evicted")
    # the lines asked for are the warps' next demands, but for those past the loop's end (a warp's last
    # iteration) and IP's guesses at the next warp's line
    assert demanded >= 0.75 * mt(m1, "tracked")
    assert mt(m1, "issued") > 0 and m1[("l1d", "misses")] < m0[("l1d", "misses")]


def test_loads_once_per_warp_pws_and_gs_cannot_train():
    """The Sec. 5.4 case (EDS, MMA, JAC, NNC): each warp's load runs once; only IP, across warps, predicts."""
    _, m, _ = launch("strided", mthwp(), iters=1)
    assert mt(m, "candidates_pws") == mt(m, "candidates_gs") == mt(m, "promoted") == 0
    assert 0 < mt(m, "candidates_ip") <= NT // 32


def test_results_bit_identical():
    for kernel in ("strided", "gather"):
        o0, _, _ = launch(kernel, None)
        o1, _, _ = launch(kernel, mthwp())
        o2, _, _ = launch(kernel, TeleportHardware({}, Teleport(machine="real", mthwp=True)))
        assert o0.tobytes() == o1.tobytes() == o2.tobytes()


def test_gather_cannot_be_predicted():
    """a[idx[t]] with random idx: the prefetcher sees only the demanded addresses, so its a-predictions miss."""
    _, m, _ = launch("gather", mthwp())
    assert mt(m, "accuracy") <= 0.5
    assert mt(m, "useful") <= 0.1 * m[("l1d", "accesses")]


def test_analytic_bounds():
    """One line asked for per L1 access at most, at most one L1 transaction per SM per core cycle; every
    candidate asked for or throttled; the L1 sends no more prefetches than were asked for."""
    _, (_, m, st) = strided_runs()
    acc = mt(m, "accesses")
    assert acc == m[("l1d", "accesses")]  # every cached global load transaction (no stores cached)
    assert mt(m, "requested") <= acc
    assert mt(m, "requested") + mt(m, "throttled") == (mt(m, "candidates_gs") + mt(m, "candidates_ip")
                                                        + mt(m, "candidates_pws"))
    assert mt(m, "issued") <= mt(m, "requested")
    assert mt(m, "tracked") <= mt(m, "requested")
    assert mt(m, "useful") + mt(m, "late_or_evicted") <= mt(m, "tracked")
    assert mt(m, "requested") <= 15 * st.cycles  # gtx480: 15 SMs


def test_policy_spec():
    cfg, l1 = parse("mthwp")
    assert (cfg.machine, cfg.mthwp, l1) == ("off", True, False)
    cfg, _ = parse("real,mthwp,mthwp_period=256")
    assert (cfg.machine, cfg.mthwp, cfg.mthwp_period) == ("real", True, 256)
    assert parse("real")[0].mthwp is False
    with pytest.raises(PolicyError, match="not l1"):
        make_policy("teleport:l1,mthwp")
    with pytest.raises(PolicyError, match="without mthwp"):
        make_policy("teleport:real,mthwp_period=64")
    with pytest.raises(PolicyError, match="machine"):
        make_policy("teleport:off")
