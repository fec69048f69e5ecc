"""TELEPORT's analysis: the BFS worked example, each classifier case of the extraction's section 7.2,
Eqs. 2/3 (blockDim 512, 4-byte elements: 16 lines of 128 B per block), tile rows, buffer geometry, the
hardware cost calculator and MMA's footprint."""

from __future__ import annotations

import functools

import pytest

from ndpgpu.analysis.affine import Launch
from ndpgpu.api import RawModule
from ndpgpu.mechanisms.analyze import load_module
from ndpgpu.mechanisms.teleport.classify import classify_reads, count_classes
from ndpgpu.mechanisms.teleport.config import Teleport, TeleportError
from ndpgpu.mechanisms.teleport.cost import HardwareCost, effort_ratios, footprint
from ndpgpu.mechanisms.teleport.regions import build_table

CASES = r"""
extern "C" __global__ void k_static0(const int *a, int *out) { out[threadIdx.x] = a[0]; }
extern "C" __global__ void k_static_bd(const int *a, int *out) { out[threadIdx.x] = a[blockDim.x]; }
extern "C" __global__ void k_quasi(const int *a, int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = a[t]; }
extern "C" __global__ void k_indirect(const int *a, const int *b, int *out) { out[threadIdx.x] = a[b[0]]; }
extern "C" __global__ void k_control(const int *a, int *out, int c) { out[threadIdx.x] = a[c ? 1 : 0]; }
extern "C" __global__ void k_induction(const int *a, int *out, int n) {
  int s = 0; for (int i = 0; i < n; i++) s += a[i]; out[threadIdx.x] = s; }
extern "C" __global__ void k_and(const int *a, int *out, int m) { out[threadIdx.x] = a[threadIdx.x & m]; }
extern "C" __global__ void k_shr(const int *a, int *out) { out[threadIdx.x] = a[threadIdx.x >> 1]; }
extern "C" __global__ void k_div(const int *a, int *out, int d) { out[threadIdx.x] = a[threadIdx.x / d]; }
extern "C" __global__ void k_deg2(const int *a, int *out) { out[threadIdx.x] = a[blockIdx.x * blockIdx.y]; }
extern "C" __global__ void k_byte_off(const char *a, char *out, int w, int off) {
  int t = blockIdx.x * blockDim.x + threadIdx.x; out[t] = a[t * w + off]; }
"""


@functools.cache
def cases() -> RawModule:
    return RawModule(code=CASES)


def reads_of(kernel: str, array_param: int = 0):
    """The classified reads of ``kernel`` that are not of its other arrays (``b`` in k_indirect)."""
    fn = cases().ir.functions[kernel]
    out = []
    for r in classify_reads(fn):
        if r.array is not None and r.array != f"{kernel}_param_{array_param}":
            continue
        out.append(r)
    return out


@pytest.mark.parametrize("kernel,cls,degree", [
    ("k_static0", "static", 0), ("k_static_bd", "static", 0), ("k_quasi", "quasi-static", 1),
    ("k_control", "control", -1), ("k_and", "operator", -1), ("k_shr", "operator", -1),
    ("k_div", "operator", -1), ("k_deg2", "quasi-static", 2)])
def test_classifier_cases(kernel, cls, degree):
    rs = reads_of(kernel)
    assert len(rs) == 1, rs
    assert rs[0].cls == cls and rs[0].degree == degree
    assert rs[0].usable == (cls in ("static", "quasi-static") and degree <= 1)


def test_indirect_and_induction():
    rs = classify_reads(cases().ir.functions["k_indirect"])
    assert sorted(r.cls for r in rs) == ["indirect", "static"]  # b[0] static, a[b[0]] indirect
    ind = classify_reads(cases().ir.functions["k_induction"])
    assert ind and all(r.cls == "induction" for r in ind)  # nvcc unrolls: every copy is a[i]


def test_bfs_worked_example():
    """Rodinia BFS (Listing 2 / Table 1): mask, nodes, cost quasi-static with a1 = blockDim.x (degree 1),
    edges[i] induction, visited[edges[i]] indirect; three table rows (mask, nodes, cost).

    PTX has 8 reads where the source has 7: nvcc rotates the edge loop, so its test's two nodes[tid]
    reads appear before the loop and at its latch (and the initial nodes[tid].starting is the
    guard's). Per unique (array, index), the quasi-static ones are mask, nodes.starting,
    nodes.no_of_edges and cost."""
    module, _ = load_module("tp_bfs")
    fn = module.ir.functions["bfs_expand"]
    reads = classify_reads(fn)
    counts = count_classes(reads)
    assert counts == {"static": 0, "quasi-static": 6, "indirect": 1, "operator": 0, "control": 0, "induction": 1}
    pnames = [p.name for p in fn.params]
    nodes, edges, mask, _up, visited, cost = pnames[:6]
    quasi = [r for r in reads if r.cls == "quasi-static"]
    assert {r.array for r in quasi} == {nodes, mask, cost}
    assert len({(r.array, str(r.expr)) for r in quasi}) == 4
    for r in quasi:
        elem = {nodes: 8, mask: 1, cost: 4}[r.array]
        assert r.degree == 1
        assert r.expr.coef("%ctaid.x", "%ntid.x") == elem  # a1 = blockDim.x elements
        assert r.expr.coef("%tid.x") == elem  # threadIdx.x in [0, blockDim.x - 1]: a0 in [0, blockDim.x - 1]
    seq = [r.cls for r in reads]
    assert seq.index("induction") < seq.index("indirect")  # edges[i] is read before visited[edges[i]]
    table = build_table("bfs_expand", reads, Launch.of(100, 512))
    rows = {r.array: (r.typesize, r.api_args()) for r in table.regions}
    assert rows == {mask: (1, (512, 0, 0, 0, 512, 0, 0, 511)), nodes: (8, (512, 0, 0, 0, 512, 0, 0, 511)),
                    cost: (4, (512, 0, 0, 0, 512, 0, 0, 511))}


def test_scalar_added_to_a_byte_array_is_not_its_base():
    """``a[t * w + off]`` on a char array adds the 32-bit scalar ``off`` with coefficient 1, as the pointer:
    the 64-bit pointer is the array (Rodinia 2.0 nn's ``data[idx * W + L_POS - 1 + i]``), and the table row
    evaluates the scalars for the launch: block b reads bytes [16 w b + off, 16 w b + 15 w + off]."""
    fn = cases().ir.functions["k_byte_off"]
    (r,) = (r for r in classify_reads(fn) if r.array != "k_byte_off_param_1")
    assert r.array == "k_byte_off_param_0" and r.cls == "quasi-static" and r.usable
    launch = Launch.of(10, 16, {"k_byte_off_param_2": 49, "k_byte_off_param_3": 27})
    (region,) = build_table("k_byte_off", [r], launch).regions
    assert region.typesize == 1 and region.api_args() == (784, 0, 0, 27, 784, 0, 0, 15 * 49 + 27)


def test_eqs_2_3_sixteen_lines():
    """blockDim 512, 4-byte elements: block b preloads [base + 2048 b, base + 2048 b + 2047], 16 lines."""
    fn = cases().ir.functions["k_quasi"]
    table = build_table("k_quasi", classify_reads(fn), Launch.of(40, 512))
    (region,) = table.regions
    base = 0x7000_0000
    for b in (0, 1, 7, 39):
        assert region.byte_range(base, (b, 0, 0)) == (base + 2048 * b, base + 2048 * b + 2047)
        lines = list(region.lines(base, (b, 0, 0)))
        assert len(lines) == 16
        assert lines == [base + 2048 * b + 128 * i for i in range(16)]  # back to back, ascending


def test_tile_rows_and_merged_stencil():
    """A 16 x 16 tile of a row-major matrix gets one row per tile row; Jacobi's nine neighbours merge into
    18 rows of 18 elements (2 halo rows and columns: the paper's +11% DRAM reads for JAC)."""
    module, _ = load_module("tp_matadd")
    fn = module.ir.functions["matadd"]
    t = build_table("matadd", classify_reads(fn), Launch.of((8, 8), (16, 16), {"matadd_param_3": 128}))
    assert len(t.regions) == 32 and {r.tile_row for r in t.regions} == set(range(16))
    module, _ = load_module("tp_jacobi")
    fn = module.ir.functions["jacobi"]
    t = build_table("jacobi", classify_reads(fn), Launch.of((4, 4), (16, 16), {"jacobi_param_2": 66}))
    assert len(t.regions) == 18
    assert all(r.maxoff - r.minoff + 1 == 18 and r.minp == r.maxp == (16, 16 * 66, 0) for r in t.regions)
    assert [r.minoff for r in t.regions] == [-67 + 66 * k for k in range(18)]
    assert t.dropped == 0


def test_table_capacity_drops_rows():
    module, _ = load_module("tp_jacobi")
    fn = module.ir.functions["jacobi"]
    t = build_table("jacobi", classify_reads(fn), Launch.of((4, 4), (16, 16), {"jacobi_param_2": 66}), capacity=10)
    assert len(t.regions) == 10 and t.dropped == 8


@pytest.mark.parametrize("kb,ways", [(16, 32), (32, 64), (48, 96), (64, 128)])
def test_buffer_geometry(kb, ways):
    """4 sets of 128-B lines: 48 KB is 96-way, 16 KB 32-way, 64 KB 128-way."""
    t = Teleport(buffer_kb=kb)
    assert t.ways == ways and ways * 4 * 128 == kb * 1024


def test_bad_configuration():
    with pytest.raises(TeleportError, match="machine"):
        Teleport(machine="X")
    with pytest.raises(TeleportError, match="arbitration"):
        Teleport(arbitration="fifo")


def test_hardware_cost_calculator():
    """21 B per entry, 1,344 B table, 0.136 mm2 of tags (15 x 0.009; the paper rounds up), 12 ALUs of
    0.071 mm2 at 90 nm scaled to 40 nm (0.0140 each; the paper prints 0.0144 and 0.173), < 1% of 529 mm2."""
    c = HardwareCost()
    assert c.entry_bytes == 21 and c.table_bytes == 1344
    assert c.tags_mm2 == pytest.approx(0.136, rel=0.01)
    assert c.alu_mm2_each == pytest.approx(0.071 * (40 / 90) ** 2) and c.alu_mm2_each == pytest.approx(0.0144, rel=0.03)
    assert c.alus_mm2 == pytest.approx(0.173, rel=0.03)
    assert c.die_share < 0.01 and c.total_mm2 == pytest.approx(0.307, abs=0.001)


def test_development_effort_table5():
    r = effort_ratios()
    assert r["PTF"] == pytest.approx(3.4) and r["EDS"] == pytest.approx(19 / 13)
    assert sum(r.values()) / len(r) == pytest.approx(2.484, abs=0.001)


def test_mma_footprint():
    """MMA: 12 B per thread x 256 threads = 3 KB per block; 6 blocks per core = 18 KB (above the 16 KB L1)."""
    module, _ = load_module("tp_matadd")
    per_block, per_core = footprint(module.ir.functions["matadd"], 256, 6)
    assert per_block == 3 * 1024 and per_core == 18 * 1024
