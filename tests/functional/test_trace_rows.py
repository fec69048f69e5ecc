"""Memory records affine by rows: a warp of a 2-D block (blockDim.x below 32) reads addresses that are affine
within each row of blockDim.x lanes and step by a row between rows; the trace stores them as three numbers
instead of 32 lane addresses, and every reader of the trace sees the same addresses as when they are listed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available
from ndpgpu.trace.coalesce import coalesce_trace
from ndpgpu.trace.format import SPACE, lane_address_table

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc not installed")

SRC = r"""
extern "C" __global__ void tile(const float *a, const float *b, float *out, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  out[row * n + col] = a[row * n + col] + b[col * n + row];   // row-major, and a column walk
}
"""
N = 64


@pytest.fixture(scope="module", params=[16, 8, 4])
def recorded(request):
    width = request.param
    rng = np.random.default_rng(7)
    a, b = rng.random((N, N), dtype=np.float32), rng.random((N, N), dtype=np.float32)
    k = ndpgpu.RawKernel(SRC, "tile")
    with ndpgpu.Device(trace=True) as dev:
        da, db, out = ndpgpu.asarray(a.ravel()), ndpgpu.asarray(b.ravel()), ndpgpu.zeros(N * N, np.float32)
        k((N // width, N * width // 256), (width, 256 // width), (da, db, out, np.int32(N)))
    np.testing.assert_array_equal(out.get().reshape(N, N), a + b.T)
    return width, dev.traces[0], (da.ptr, db.ptr, out.ptr)


def _expected(trace, i: int, ptrs) -> np.ndarray:
    """Lane addresses computed here from the launch geometry: which array the record reads (by its base) and
    each lane's (row, col)."""
    L = trace.launch
    w = int(trace.mem["warp"][i])
    bx, by = L.block[0], L.block[1]
    warps_per_cta = bx * by // 32
    cta, wi = divmod(w, warps_per_cta)
    cx, cy = cta % L.grid[0], cta // L.grid[0]
    t = wi * 32 + np.arange(32)
    row, col = cy * by + t // bx, cx * bx + t % bx
    a, b, out = ptrs
    base = int(trace.mem["base"][i])
    if b <= base < b + 4 * N * N:
        return b + 4 * (col * N + row)
    return (a if a <= base < a + 4 * N * N else out) + 4 * (row * N + col)


def test_rows_are_stored_as_three_numbers(recorded):
    width, trace, _ = recorded
    glob = trace.mem[trace.mem["space"] == SPACE["global"]]
    assert len(glob) == 3 * N * N // 32  # a, b, out per warp
    assert (glob["addr_index"] == -1).all() and len(trace.lane_addrs) == 0
    assert set(glob["row_lanes"].tolist()) == {width}
    trace.validate()


def test_rows_give_every_lanes_address(recorded):
    width, trace, ptrs = recorded
    table = lane_address_table(trace.mem, trace.lane_addrs)
    for i in range(len(trace.mem)):
        assert np.array_equal(table[i], _expected(trace, i, ptrs)), i
        assert np.array_equal(trace.lane_addresses(i), _expected(trace, i, ptrs).astype(np.uint64))


def test_coalescing_sees_the_same_addresses_listed(recorded):
    _, trace, _ = recorded
    listed = trace.mem.copy()
    listed["addr_index"] = 32 * np.arange(len(listed))
    listed["row_lanes"] = 0
    flat = dataclasses.replace(trace, mem=listed,
                               lane_addrs=lane_address_table(trace.mem, trace.lane_addrs).astype(np.uint64).ravel())
    a, b = coalesce_trace(trace), coalesce_trace(flat)
    for f in ("rec_tx_start", "rec_ntx", "rec_conflict", "rec_bytes", "tx_line", "tx_sectors"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f
    assert int(a.rec_ntx.sum()) > 3 * N * N // 32  # the column walk is uncoalesced: more than one line a warp


def test_trace_file_round_trip_keeps_rows(recorded, tmp_path):
    _, trace, _ = recorded
    back = type(trace).load(trace.save(tmp_path / "t.npz"))
    assert np.array_equal(back.mem, trace.mem)
