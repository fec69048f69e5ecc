"""The prefetch information table: base and modified strides from the launch geometry (no trace)."""

from __future__ import annotations

import pytest

from ndpgpu.mechanisms.ipndp import hardware as H
from ndpgpu.mechanisms.ipndp.policy import IpndpConfig, parse
from ndpgpu.mechanisms.ipndp.tables import ImageArray, TableError, Traversal, entry
from ndpgpu.mechanisms.policy import PolicyError


def next_address(addr: int, e) -> int:
    """The datapath of Fig. 9 in Python, on a byte address."""
    t, _wrap = H.boundary_target.py_func(addr, 0, e)
    return t


def test_row_band_exact_and_literal() -> None:
    img = ImageArray(1 << 20, 512, 64)
    tr = Traversal("row", 32, 8, 8, 512, 64)
    e = entry(img, tr)
    assert e[H.E_BASE] == 128 and e[H.E_MOD] == 128 - 2048 + 8 * 2048
    # a thread at (x, y) walks x += 32 until the row ends, then x -= 480, y += 8
    for x, y, nx, ny in [(0, 0, 32, 0), (480, 3, 0, 11), (500, 7, 20, 15)]:
        assert next_address(img.start + (y * 512 + x) * 4, e) == img.start + (ny * 512 + nx) * 4
    lit = entry(img, tr, literal=True)
    assert next_address(img.start + (3 * 512 + 480) * 4, lit) == img.start + (12 * 512) * 4  # one row further


def test_tile_and_column_scans() -> None:
    img = ImageArray(0, 256, 64)
    t = entry(img, Traversal("tile", 32, 8, 8, 256, 64, (4, 2)))  # tiles of 64 x 32
    assert next_address((5 * 256 + 64 + 32) * 4, t) == (13 * 256 + 64) * 4  # wrap at the tile's right edge
    assert next_address((5 * 256 + 64) * 4, t) == (5 * 256 + 96) * 4
    c = entry(img, Traversal("column", 32, 8, 8, 256, 64))
    assert next_address((3 * 256 + 10) * 4, c) == (11 * 256 + 10) * 4  # down one block
    assert next_address((59 * 256 + 10) * 4, c) == (3 * 256 + 42) * 4  # last block of the column: next column


def test_bad_descriptions() -> None:
    with pytest.raises(TableError):
        ImageArray(0, 0, 4)
    with pytest.raises(TableError):
        Traversal("diagonal", 32, 8, 8, 64, 64)


def test_policy_specs() -> None:
    assert parse("paca+pf") == IpndpConfig("paca", "pf")
    assert parse("rr+pws+pl").perfect_l2 and parse("rr+pws").prefetcher == "pws"
    assert parse("paca+pf+literal,width=300,scan=column").width == 300
    for bad in ("zigzag", "paca+pf+pws", "paca+turbo", "paca,width=x", "paca,colour=3"):
        with pytest.raises(PolicyError):
            parse(bad)
