"""NNC: Rodinia 2.0's nearest neighbour (``nn``), the version whose kernel parses text records in loops.

Rodinia 2.0's CUDA ``nn`` (as GPGPU-Sim distributes it: gpgpu-sim/gpgpu-sim_simulations,
benchmarks/src/cuda/rodinia/2.0-ft/nn/nn_cuda.cu) reads the hurricane database files of a file list in
windows of ``REC_WINDOW`` = 15000 records of 49 bytes. For each window it copies the whole window to the
device, launches ``euclid`` over all 15000 slots in 16-thread blocks (a 1-D grid of 938 blocks), copies the
distances back and updates the k nearest with the records it read. A file shorter than the window ends it,
so each of ``filelist_4``'s four files (10,691 records each: ``hurricane_gen 42760 4``) is one launch, and
the window's slots past the records read keep what they held (blanks at first). The run command is
``nn filelist_4 5 30 90``: k = 5, latitude 30, longitude 90.

Later Rodinia versions parse the records on the host and launch over an array of ``LatLong``
structs, with no loop in the kernel, and 3.x uses 256-thread blocks; the paper's NNC has 16-thread blocks
(8% occupancy at 8 blocks per core) and read indexes on a loop induction variable, which is 2.0's kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, spec

REC_LENGTH = 49  # bytes per record, the newline included
LATITUDE_POS = 28  # the kernel reads the latitude at LATITUDE_POS - 1 and the longitude 6 bytes further on
FIELD = 5
BLOCK = 16  # Rodinia 2.0's block_size
NAMES = ("ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO", "FLORENCE", "GORDON", "HELENE", "ISAAC", "JOYCE", "KIRK",
         "LESLIE", "MICHAEL", "NADINE", "OSCAR", "PATTY", "RAFAEL", "SANDY", "TONY", "VALERIE", "WILLIAM")


def hurricane_file(n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` records as Rodinia 2.0's ``hurricane_gen`` writes them (its fields and ranges), as bytes:
    year month day hour number name(9), latitude and longitude as %5.1f, speed and pressure, newline."""
    r = rng.integers(0, 1 << 30, size=(n, 10))
    lat = 7 + r[:, 6] % 63 + rng.random(n)
    lng = r[:, 7] % 358 + rng.random(n)
    text = "".join(
        f"{1950 + r[i, 0] % 55:4d} {1 + r[i, 1] % 12:2d} {1 + r[i, 2] % 28:2d} {6 * (r[i, 3] % 4):2d} "
        f"{1 + r[i, 4] % 28:2d} {NAMES[r[i, 5] % len(NAMES)]:<9s} {lat[i]:5.1f} {lng[i]:5.1f} "
        f"{10 + r[i, 8] % 155:4d} {r[i, 9] % 900:4d}\n"
        for i in range(n)
    ).encode("ascii")
    assert len(text) == n * REC_LENGTH
    return np.frombuffer(text, dtype=np.uint8).copy()


def windows(files: list[np.ndarray], window: int) -> list[tuple[np.ndarray, int]]:
    """The host's reading loop: each launch's window contents and how many records it read into it. A
    read fills the window's first slots and leaves the rest as they were; a short read moves to the next
    file, and the short read of the last file is the last launch."""
    buf = np.full(window * REC_LENGTH, ord(" "), dtype=np.uint8)
    out = []
    for f in files:
        pos = 0
        while True:
            count = min(window, (f.size - pos) // REC_LENGTH)
            buf[: count * REC_LENGTH] = f[pos : pos + count * REC_LENGTH]
            pos += count * REC_LENGTH
            out.append((buf.copy(), count))
            if count != window:
                break
    return out


def parse_field(window: np.ndarray, offset: int) -> np.ndarray:
    """The kernel's value of the five characters at ``offset`` of every record of a window, in float32 as it
    computes it: hundreds, tens and units added when not blank, then (tenths char - '0') / 10."""
    c = window.reshape(-1, REC_LENGTH)[:, offset : offset + FIELD].astype(np.int32)
    v = np.zeros(c.shape[0], dtype=np.float32)
    for k, scale in enumerate((100, 10, 1)):
        v = v + np.where(c[:, k] == ord(" "), 0, (c[:, k] - ord("0")) * scale).astype(np.float32)
    return v + (c[:, 4] - ord("0")).astype(np.float32) / np.float32(10)


@register
class NearestNeighbor(TeleportWorkload):
    name = "tp_nn"
    kernel = "nn_euclid"
    description = (
        "TELEPORT NNC, Rodinia 2.0 nn: per window of 49-byte hurricane text records, one thread per record "
        "copies its latitude and longitude characters in two 5-iteration loops, parses them and writes the "
        "distance to the query point; 16-thread blocks over the whole window; the host keeps the k nearest"
    )
    deviations = (
        "Kernel written fresh in the shape of Rodinia 2.0's euclid (GPGPU-Sim's rodinia/2.0-ft copy: "
        "16-thread blocks, REC_WINDOW 15000, one launch per window with n = the window). The database files "
        "are generated with hurricane_gen's fields and ranges, not read. Built with -fmad=false (bit-exact "
        "float32 reference). Paper scale: the suite's filelist_4 (4 files of 10,691 records, 4 launches of "
        "938 blocks), k = 5, query (30, 90)."
    )
    sources = ("nn.cu",)
    options = ("-fmad=false",)
    scales = {
        "tiny": {"files": 2, "records": 700, "window": 1000, "lat": 30.0, "lng": 90.0, "k": 5},
        "small": {"files": 1, "records": 10691, "window": 15000, "lat": 30.0, "lng": 90.0, "k": 5},
        "paper": {"files": 4, "records": 10691, "window": 15000, "lat": 30.0, "lng": 90.0, "k": 5},
    }
    block = BLOCK

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {f"file{i}": hurricane_file(p["records"], rng) for i in range(p["files"])}

    def _windows(self, inp: dict[str, Any], p: dict[str, Any]) -> list[tuple[np.ndarray, int]]:
        return windows([inp[f"file{i}"] for i in range(p["files"])], p["window"])

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        w = p["window"]
        records = ndpgpu.zeros(w * REC_LENGTH, np.uint8)
        dist = ndpgpu.zeros(w, np.float32)
        euclid = ctx.module.get_function("nn_euclid")
        out, read = [], []
        for window, count in self._windows(inp, p):
            records.set(window)
            euclid(ceil_div(w, self.block), self.block, (records, np.float32(p["lat"]), np.float32(p["lng"]), dist,
                                                        np.int32(w), np.int32(REC_LENGTH), np.int32(LATITUDE_POS)))
            d = dist.get()
            out.append(d)
            read.append(d[:count])
        return {"distances": np.stack(out), "nearest": np.sort(np.concatenate(read))[: p["k"]]}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        lat, lng = np.float32(p["lat"]), np.float32(p["lng"])
        out, read = [], []
        for window, count in self._windows(inp, p):
            dlat = parse_field(window, LATITUDE_POS - 1) - lat
            dlng = parse_field(window, LATITUDE_POS + 5) - lng
            d = np.sqrt(dlat * dlat + dlng * dlng)  # float32 throughout; sqrt correctly rounded as sqrt.rn
            out.append(d)
            read.append(d[:count])
        return {"distances": np.stack(out), "nearest": np.sort(np.concatenate(read))[: p["k"]]}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        launches = p["files"] * (p["records"] // p["window"] + 1)
        return {"distances": spec((launches, p["window"]), np.float32), "nearest": spec(p["k"], np.float32)}
