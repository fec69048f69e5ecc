"""NNC: Rodinia nearest neighbour over fixed-width hurricane records parsed on the device."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, spec

REC_LENGTH = 49
LAT, LNG, FIELD = 28, 33, 5
NAMES = ("ALBERTO", "BERYL", "CHRIS", "DEBBY", "ERNESTO", "FLORENCE", "GORDON", "HELENE", "ISAAC", "JOYCE")


def hurricane_records(n: int, rng: np.random.Generator) -> np.ndarray:
    """n records in Rodinia's hurricane format (49 bytes with the newline): year month day hour number name,
    then latitude and longitude as %5.1f (Rodinia's generator: lat 7..70, long 0..358), speed and pressure."""
    lat = rng.integers(7, 70, size=n) + rng.random(n)
    lng = rng.integers(0, 358, size=n) + rng.random(n)
    lines = []
    for i in range(n):
        line = (
            f"{1950 + int(rng.integers(0, 60)):4d} {int(rng.integers(1, 13)):2d} {int(rng.integers(1, 29)):2d} "
            f"{int(rng.integers(0, 24)):2d} {int(rng.integers(1, 30)):2d} {NAMES[i % len(NAMES)]:<10s} "
            f"{lat[i]:5.1f}{lng[i]:5.1f} {int(rng.integers(10, 160)):4d} {int(rng.integers(900, 1020)):4d}\n"
        )
        lines.append(line)
    text = "".join(lines).encode("ascii")
    assert len(text) == n * REC_LENGTH
    return np.frombuffer(text, dtype=np.uint8).copy()


def parse_field(records: np.ndarray, offset: int) -> np.ndarray:
    """The %5.1f field at ``offset`` of every record, as float32 (tenths / 10, rounded once)."""
    text = records.reshape(-1, REC_LENGTH)[:, offset : offset + FIELD].tobytes().decode("ascii")
    tenths = np.array([round(float(text[i : i + FIELD]) * 10) for i in range(0, len(text), FIELD)])
    return tenths.astype(np.float32) / np.float32(10.0)


@register
class NearestNeighbor(TeleportWorkload):
    name = "tp_nn"
    kernel = "nn_euclid"
    description = (
        "TELEPORT NNC, Rodinia nn: every thread parses one fixed-width hurricane record's latitude and "
        "longitude (per-character loops) and writes its Euclidean distance to the query point; 16-thread "
        "blocks; the host then takes the k nearest"
    )
    deviations = (
        "Written after Rodinia nn's early form, which parses the text records on the device (hence the "
        "paper's loop-induction indexes and 16-thread blocks); the record layout is Rodinia's hurricane format "
        "with a 10-character name so the fields sit at fixed offsets 28 and 33. Records are generated with "
        "Rodinia's hurricane generator's ranges instead of reading its data files. Built with -fmad=false "
        "(bit-exact reference). Paper scale: 42764 records (filelist_4), query (30, 90), k = 5."
    )
    sources = ("nn.cu",)
    options = ("-fmad=false",)
    scales = {
        "tiny": {"records": 3000, "lat": 30.0, "lng": 90.0, "k": 5},
        "small": {"records": 10691, "lat": 30.0, "lng": 90.0, "k": 5},
        "paper": {"records": 42764, "lat": 30.0, "lng": 90.0, "k": 5},  # Rodinia: filelist_4 -r 5 -lat 30 -lng 90
    }
    block = 16

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"records": hurricane_records(p["records"], rng)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        n = p["records"]
        blocks = ceil_div(n, self.block)
        gx = min(blocks, 65535)
        grid = (gx, ceil_div(blocks, gx))  # Rodinia's 2D grid for large record counts
        recs = ndpgpu.asarray(inp["records"])
        dist = ndpgpu.zeros(n, np.float32)
        ctx.module.get_function("nn_euclid")(
            grid, self.block, (recs, dist, np.int32(n), np.float32(p["lat"]), np.float32(p["lng"]))
        )
        d = dist.get()
        return {"distances": d, "nearest": np.sort(d)[: p["k"]]}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        lat = parse_field(inp["records"], LAT)
        lng = parse_field(inp["records"], LNG)
        dlat, dlng = np.float32(p["lat"]) - lat, np.float32(p["lng"]) - lng
        d = np.sqrt(dlat * dlat + dlng * dlng)  # float32, correctly rounded as sqrt.rn: exact
        return {"distances": d, "nearest": np.sort(d)[: p["k"]]}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"distances": spec(p["records"], np.float32), "nearest": spec(p["k"], np.float32)}
