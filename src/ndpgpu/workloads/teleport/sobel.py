"""EDS: Sobel edge detection, TELEPORT's own benchmark; global-memory and hand-written shared-memory versions."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, grid2d, spec


def sobel_reference(img: np.ndarray) -> np.ndarray:
    """|Gx| + |Gy| of the 3 x 3 Sobel operators with a dark (zero) border, clamped to 255."""
    p = np.pad(img.astype(np.int32), 1)
    h, w = img.shape

    def at(dy: int, dx: int) -> np.ndarray:
        return p[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]

    gx = (at(-1, 1) + 2 * at(0, 1) + at(1, 1)) - (at(-1, -1) + 2 * at(0, -1) + at(1, -1))
    gy = (at(1, -1) + 2 * at(1, 0) + at(1, 1)) - (at(-1, -1) + 2 * at(-1, 0) + at(-1, 1))
    return np.minimum(np.abs(gx) + np.abs(gy), 255).astype(np.uint8)


def test_image(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """A grey-level image with edges: random axis-aligned rectangles and discs of random brightness on a
    smooth gradient, plus +-8 levels of noise (so both flat regions and strong edges occur)."""
    y, x = np.mgrid[0:h, 0:w]
    img = 40.0 + 60.0 * (x / max(w - 1, 1)) + 30.0 * (y / max(h - 1, 1))
    for _ in range(max(4, (h * w) // 8192)):
        v = rng.uniform(0, 255)
        if rng.random() < 0.5:
            y0, x0 = rng.integers(0, h), rng.integers(0, w)
            img[y0 : y0 + rng.integers(4, max(5, h // 4)), x0 : x0 + rng.integers(4, max(5, w // 4))] = v
        else:
            cy, cx, r = rng.integers(0, h), rng.integers(0, w), rng.integers(3, max(4, min(h, w) // 8))
            win = (slice(max(cy - r, 0), cy + r + 1), slice(max(cx - r, 0), cx + r + 1))
            img[win][(y[win] - cy) ** 2 + (x[win] - cx) ** 2 <= r * r] = v
    img += rng.integers(-8, 9, size=(h, w))
    return np.clip(img, 0, 255).astype(np.uint8)


@register
class Sobel(TeleportWorkload):
    name = "tp_sobel"
    kernel = "sobel"
    description = (
        "TELEPORT EDS, Baseline/TELEPORT kernel: 3 x 3 Sobel |Gx| + |Gy| (clamped to 255) of an 8-bit "
        "w x h image, 16 x 16 blocks, each thread bounds-checking its eight neighbours in global memory"
    )
    deviations = (
        "Written after the paper's description (the authors' code is not public); pixels outside the image "
        "count as dark, as the paper's hand-written version returns them. Input: a generated image "
        "(rectangles and discs on a gradient, plus noise); the paper gives no image or size, paper scale "
        "uses 2048 x 2048."
    )
    sources = ("sobel.cu",)
    scales = {
        "tiny": {"w": 200, "h": 120},
        "small": {"w": 1024, "h": 768},
        "paper": {"w": 2048, "h": 2048},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        return {"image": test_image(p["h"], p["w"], rng)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        w, h = p["w"], p["h"]
        img = ndpgpu.asarray(inp["image"])
        out = ndpgpu.zeros((h, w), np.uint8)
        ctx.module.get_function(self.kernel)(grid2d(w, h), (16, 16), (img, out, np.int32(w), np.int32(h)))
        return {"edges": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"edges": sobel_reference(inp["image"])}  # integer arithmetic: exact

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"edges": spec((p["h"], p["w"]), np.uint8)}


@register
class SobelShared(Sobel):
    name = "tp_sobel_shared"
    kernel = "sobel_shared"
    variant = "shared"
    description = (
        "TELEPORT EDS, hand-written version: each 16 x 16 block stages its 18 x 18 halo tile (dark outside "
        "the image) in shared memory, then applies the Sobel operators without bounds checks"
    )
