"""The pattern-aware forms sized for IP-16: grid = 16 CTAs (one per SM of the 16-SM machine), otherwise the
same kernels and inputs as the 8-SM forms (``ipndp_<bench>_pa16``)."""

from __future__ import annotations

from ndpgpu.workloads.base import register

from ._common import pa_scales
from .concat import ConcatPA
from .conv2d import Conv2DPA
from .convsep import ConvSepL1PA, ConvSepL1PixelPA, ConvSepSmemPA
from .dct8x8 import Dct8x8PA
from .denoising import DenoisingPA
from .downsample import DownSamplePA
from .jacobi2d import Jacobi2DPA
from .matmul import MatMulPA

IP16_SMS = 16


def _sixteen(cls: type) -> type:
    sub = type(cls.__name__ + "16", (cls,), {
        "__module__": __name__,
        "name": cls.name + "16",
        "description": cls.description + f" (sized for {IP16_SMS} SMs: grid = {IP16_SMS})",
        "scales": pa_scales({k: {q: v for q, v in p.items() if q != "num_sms"} for k, p in cls.scales.items()},
                            IP16_SMS),
    })
    return register(sub)


PA16 = {cls.name: _sixteen(cls) for cls in (Conv2DPA, Jacobi2DPA, ConvSepSmemPA, ConvSepL1PA, ConvSepL1PixelPA,
                                            DownSamplePA, ConcatPA, Dct8x8PA, DenoisingPA, MatMulPA)}
"""8-SM pattern-aware registry name -> its 16-SM class."""
