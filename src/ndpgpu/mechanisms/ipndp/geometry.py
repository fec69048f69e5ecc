"""What the launch tells the prefetch information table: the image arrays and the traversal of each launch.

For the IP-NDP suite the image shapes follow from the workload's parameters (as a host program passes its
image sizes at launch); each device allocation is matched to a shape by its size. For any other kernel the
policy's ``width`` key names the row pitch and every allocation is an image of that pitch. The traversal comes
from the launch's block and grid (gridDim.x regions for a PACA launch; one full-width band otherwise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...workloads.ipndp._common import tile_grid
from .tables import ImageArray, Traversal


class GeometryError(ValueError):
    """The image geometry of a launch cannot be derived."""


# workload family -> params -> (image shapes (array width, height, scale), output (width, height))
Shapes = tuple[list[tuple[int, int, int]], tuple[int, int]]


def _same(p: dict[str, Any]) -> Shapes:
    return [(p["width"], p["height"], 1)], (p["width"], p["height"])


def _downsample(p: dict[str, Any]) -> Shapes:
    ow, oh = p["width"] // 2, p["height"] // 2
    return [(p["width"], p["height"], 2), (ow, oh, 1)], (ow, oh)


def _concat(p: dict[str, Any]) -> Shapes:
    w = p["width_a"] + p["width_b"]
    return [(p["width_a"], p["height"], 1), (p["width_b"], p["height"], 1), (w, p["height"], 1)], (w, p["height"])


FAMILIES: dict[str, Callable[[dict[str, Any]], Shapes]] = {
    "conv2d": _same, "jacobi2d": _same, "denoising": _same, "convsep": _same, "dct8x8": _same,
    "downsample": _downsample, "concat": _concat,
}
"""IP-NDP workload families with a prefetch table (MatMul has none: its tiles step along k inside a block)."""


def scan_of(kernel: str, family: str) -> str:
    if family == "dct8x8":
        return "tile"
    return "column" if "cols" in kernel else "row"


def traversal(launch: Any, scan: str, out: tuple[int, int], tiles: tuple[int, int] = (0, 0)) -> Traversal:
    bx, by = launch.block[0], launch.block[1]
    pa = launch.grid[1] == 1 and launch.grid[2] == 1
    regions = launch.grid[0] if pa else 1
    if scan == "tile":
        t = tiles if tiles[0] > 0 else tile_grid(regions)
        if t[0] * t[1] != regions:
            raise GeometryError(f"{t[0]}x{t[1]} tiles for {regions} regions")
        return Traversal("tile", bx, by, regions, out[0], out[1], t)
    return Traversal(scan, bx, by, regions, out[0], out[1])


def _match(allocs: list[tuple[int, int]], shapes: list[tuple[int, int, int]], elem: int) -> list[ImageArray]:
    arrays = []
    for lo, hi in allocs:
        for w, h, s in shapes:
            if hi - lo == w * h * elem:
                arrays.append(ImageArray(lo, w, h, elem, s, s))
                break
    return arrays


def _ipndp_params(workload: str, scale: str | None, allocs: list[tuple[int, int]]) -> dict[str, Any] | None:
    from ...workloads.base import get_workload

    cls = get_workload(workload)
    family = workload.split("_")[1]
    scales = [scale] if scale else list(cls.scales)
    sizes = {hi - lo for lo, hi in allocs}
    for sc in scales:
        p = cls.params(sc)
        shapes, _ = FAMILIES[family](p)
        if all(w * h * 4 in sizes for w, h, _s in shapes):
            return p
    return None


TableSource = Callable[[Any], "tuple[list[ImageArray], Traversal] | None"]


def table_source(recording: Any, config: Any, num_sms: int) -> TableSource:
    """launch -> (image arrays, traversal) for the recording's launches."""
    allocs = [(int(a["addr"]), int(a["addr"]) + int(a["bytes"]))
              for a in getattr(recording, "allocations", []) if int(a["bytes"]) > 0]
    workload = str(getattr(recording, "workload", None) or getattr(recording, "name", ""))
    if config.width > 0:
        arrays = [ImageArray(lo, config.width, max(1, (hi - lo) // (config.width * config.elem)), config.elem)
                  for lo, hi in allocs if (hi - lo) >= config.width * config.elem]
        height = max((a.height for a in arrays), default=1)
        return lambda launch: (arrays, traversal(launch, config.scan, (config.width, height), config.tiles))
    family = workload.split("_")[1] if workload.startswith("ipndp_") else ""
    if family == "matmul":
        return lambda launch: None
    if family not in FAMILIES:
        raise GeometryError(f"no image geometry for workload {workload!r}: give the row pitch "
                            "(ipndp:paca+pf,width=<elements>[,elem=4][,scan=row])")
    p = _ipndp_params(workload, getattr(recording, "scale", None), allocs)
    if p is None:
        raise GeometryError(f"{workload}: no scale's image sizes match the allocations {allocs}")
    shapes, out = FAMILIES[family](p)
    arrays = _match(allocs, shapes, 4)
    return lambda launch: (arrays, traversal(launch, scan_of(launch.kernel, family), out))
