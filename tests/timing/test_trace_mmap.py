"""``KernelTrace.load(path, mmap=True)``: the large arrays come from the file copy-on-write, equal to a read,
writes stay private, a compressed member is read as usual, and the timing gives the same statistics."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
from test_trace_prefix import CTAS, _record

from ndpgpu.timing import TimingSession
from ndpgpu.trace.format import KernelTrace

BIG = ("segments", "mem", "lane_addrs")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    trace, _ = _record(CTAS)
    return trace.save(tmp_path_factory.mktemp("mmap") / "t.npz")


def _same(a: KernelTrace, b: KernelTrace) -> None:
    for name in (*BIG, "warp_seg_start", "warp_mem_start", "static", "regvals"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.launch == b.launch


def test_mapped_arrays_equal_a_read_and_writes_stay_private(saved):
    read, mapped = KernelTrace.load(saved), KernelTrace.load(saved, mmap=True)
    _same(read, mapped)
    assert all(isinstance(getattr(mapped, n), np.memmap) for n in BIG)
    assert not any(isinstance(getattr(read, n), np.memmap) for n in BIG)
    mapped.lane_addrs[:] = 0  # copy-on-write: the process's own pages, not the file
    mapped.mem["base"] = 1
    _same(read, KernelTrace.load(saved, mmap=True))


def test_a_compressed_member_is_read_as_usual(saved, tmp_path):
    packed = tmp_path / "packed.npz"
    with zipfile.ZipFile(saved) as src, zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    mapped = KernelTrace.load(packed, mmap=True)
    assert not any(isinstance(getattr(mapped, n), np.memmap) for n in BIG)
    _same(KernelTrace.load(saved), mapped)


def test_a_mapped_trace_times_as_a_read_one(saved):
    def stats(trace: KernelTrace):
        st = TimingSession("gtx480").run_launch(trace)
        return st.cycles, st.ctr.tolist(), st.per_channel.tolist()

    assert stats(KernelTrace.load(saved, mmap=True)) == stats(KernelTrace.load(saved))
