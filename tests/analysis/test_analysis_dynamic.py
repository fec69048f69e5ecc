"""The analyses against functional runs: every traced lane address equals its affine expression evaluated
for that lane (loop counters taken from the warp's control stream), and every loop run takes the
iteration count that ``AffineAnalysis.loop_iterations`` predicts for the launch."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from ndpgpu.analysis.affine import AffineAnalysis, Launch
from ndpgpu.analysis.cfg import CFG

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH (needed to compile the CUDA)"),
]

SRC = r"""
extern "C" __global__ void loopk(float *x, int k) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < k; i++) s += x[i * 1024 + tid];
  x[tid] = s;
}
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
  }
}
extern "C" __global__ void portfolio_80(const float *L, float *L_b, float b) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int n = 0; n < 80; n++) L_b[n * 4096 + tid] = b * L[n * 4096 + tid];
}
"""


def _dim3(v) -> tuple[int, int, int]:
    t = (v,) if isinstance(v, int) else tuple(v)
    return tuple(t) + (1,) * (3 - len(t))  # type: ignore[return-value]


def _check(kernel_name: str, grid, block, make_args) -> tuple[int, int]:
    import ndpgpu

    mod = ndpgpu.RawModule(code=SRC)
    raw = mod.get_function(kernel_name)
    with ndpgpu.Device(trace=True) as dev:
        args = make_args(ndpgpu)
        raw(grid, block, args)
        trace = dev.traces[-1]
    fn = raw.kernel
    prog = raw.program()
    line_to_index = {ins.line: i for i, ins in enumerate(fn.body)}
    pc_to_index = {pc: line_to_index.get(int(line)) for pc, line in enumerate(prog.line_of_pc)}
    cfg = CFG(fn)
    aa = AffineAnalysis(fn, cfg)
    params = {p.name: int(a.ptr) if hasattr(a, "ptr") else int(a) for p, a in zip(fn.params, args, strict=True)}
    g3, b3 = _dim3(grid), _dim3(block)
    launch = Launch.of(g3, b3, params)
    iterations = aa.loop_iterations(launch)
    header_of_pc = {pc: h for h in aa.loops.loops for pc, i in pc_to_index.items() if i == cfg.blocks[h].start}
    exprs = {i: aa.address(i) for i in range(len(fn.body))}
    warps_per_cta = (b3[0] * b3[1] * b3[2] + 31) // 32
    lanes_checked = 0
    runs_checked = 0
    for w in range(trace.num_warps):
        cta, wic = divmod(w, warps_per_cta)
        ctaid = (cta % g3[0], (cta // g3[0]) % g3[1], cta // (g3[0] * g3[1]))
        k: dict[int, int] = {}
        runs: list[tuple[int, int]] = []
        prev = None
        mi = int(trace.warp_mem_start[w])
        for seg in trace.segments[trace.warp_seg_start[w]:trace.warp_seg_start[w + 1]]:
            for pc in range(int(seg["pc"]), int(seg["pc"]) + int(seg["count"])):
                idx = pc_to_index.get(pc)
                if pc in header_of_pc:
                    h = header_of_pc[pc]
                    if prev is None or cfg.block_of_instr[prev] not in aa.loops.loops[h].blocks:
                        k[h] = 0
                        runs.append((h, 1))
                    else:
                        k[h] += 1
                        runs[-1] = (h, runs[-1][1] + 1) if runs[-1][0] == h else runs[-1]
                prev = idx
                if mi < int(trace.warp_mem_start[w + 1]) and int(trace.mem[mi]["pc"]) == pc:
                    rec = trace.mem[mi]
                    lanes = trace.lane_addresses(mi)
                    mi += 1
                    e = exprs.get(idx) if idx is not None else None
                    if e is None or fn.body[idx].has("param"):
                        continue
                    for lane in range(32):
                        if not (int(rec["mask"]) >> lane) & 1:
                            continue
                        t = wic * 32 + lane
                        values = dict(launch.constants())
                        values.update({"%tid.x": t % b3[0], "%tid.y": (t // b3[0]) % b3[1],
                                       "%tid.z": t // (b3[0] * b3[1]), "%ctaid.x": ctaid[0],
                                       "%ctaid.y": ctaid[1], "%ctaid.z": ctaid[2]})
                        values.update({aa.loop_atom(h): v for h, v in k.items()})
                        assert e.evaluate(values) == int(lanes[lane]), (kernel_name, fn.body[idx].full, str(e))
                        lanes_checked += 1
        for h, n in runs:
            assert n == iterations[aa.loop_atom(h)], (kernel_name, aa.loops.loops[h].label)
            runs_checked += 1
    return lanes_checked, runs_checked


@pytest.mark.parametrize("k", [1, 3, 6, 9])
def test_loopk_addresses_and_trip_counts(k):
    lanes, runs = _check("loopk", 2, 64, lambda nd: (nd.asarray(np.ones(1024 * 10 + 128, np.float32)),
                                                      np.int32(k)))
    assert lanes > 0 and runs == 4 * ((k >= 4) + (k % 4 != 0))


@pytest.mark.parametrize("n", [5, 8])
def test_matmul_addresses_and_trip_counts(n):
    lanes, runs = _check("matmul", (2, 2), (8, 8), lambda nd: (
        nd.asarray(np.ones(n * n, np.float32)), nd.asarray(np.ones(n * n, np.float32)),
        nd.zeros(n * n, np.float32), np.int32(n)))
    # the unrolled loop's 8 loads and the store of every thread inside the matrix (the remainder loop's
    # addresses start from the unrolled loop's final counter: not affine, not checked)
    assert lanes == n * n * (8 * (n // 4) + 1)
    assert runs > 0


def test_unrolled_static_loop_addresses():
    lanes, runs = _check("portfolio_80", 2, 64, lambda nd: (
        nd.asarray(np.ones(4096 * 80, np.float32)), nd.zeros(4096 * 80, np.float32), np.float32(2)))
    assert lanes == 2 * 80 * 128 and runs == 4
