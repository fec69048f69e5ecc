"""IP-NDP's eight image-processing benchmarks (seed 004, Table 3), each in a baseline form (one thread per
pixel, an ordinary grid) and a pattern-aware form (PACA, Guideline 1-3 and Fig. 7: grid = number of SMs, one
256-thread CTA per SM walking a row band, a column band or a tile block by block with a barrier per step),
written in CUDA C after the public algorithms.

The pattern-aware forms take the grid from the scale parameter ``num_sms`` (8, the SM count of Base-8 and
IP-8; IP-16 needs 16; ``None`` means the device's SM count). ConvSep comes twice: the CUDA SDK's shared-memory
scheme and the L1 rewrite of the paper's Guideline 4; the paper's Base-8 ran the former and IP-NDP the latter
(see :data:`IPNDP_PAPER_PAIRS`).
"""

from __future__ import annotations

IPNDP_WORKLOADS: dict[str, tuple[str, str]] = {
    "Conv2D": ("ipndp_conv2d", "ipndp_conv2d_pa"),
    "Jacobi2D": ("ipndp_jacobi2d", "ipndp_jacobi2d_pa"),
    "ConvSep": ("ipndp_convsep_smem", "ipndp_convsep_smem_pa"),
    "ConvSep-L1": ("ipndp_convsep_l1", "ipndp_convsep_l1_pa"),
    "ConvSep-L1-pixel": ("ipndp_convsep_l1px", "ipndp_convsep_l1px_pa"),
    "DownSample": ("ipndp_downsample", "ipndp_downsample_pa"),
    "Concat": ("ipndp_concat", "ipndp_concat_pa"),
    "Dct8x8": ("ipndp_dct8x8", "ipndp_dct8x8_pa"),
    "Denoising": ("ipndp_denoising", "ipndp_denoising_pa"),
    "MatMul": ("ipndp_matmul", "ipndp_matmul_pa"),
}
"""The paper's benchmark name -> (baseline registry name, pattern-aware registry name). ``ConvSep`` is the
shared-memory code and ``ConvSep-L1`` its Guideline-4 rewrite (plain loads through the L1, 8 outputs per thread as
the SDK's); ``ConvSep-L1-pixel`` is an earlier L1 rewrite with one output per thread, a labelled variant."""

IPNDP_PAPER_PAIRS: dict[str, tuple[str, str]] = {
    **{k: v for k, v in IPNDP_WORKLOADS.items() if not k.startswith("ConvSep")},
    "ConvSep": ("ipndp_convsep_smem", "ipndp_convsep_l1_pa"),
}
"""The eight benchmarks as the paper ran them: (code of the Base-* configurations, code of the PACA ones),
where all kernels were rewritten after Guidelines 1-4 for PACA, which for ConvSep includes the L1 rewrite."""

IPNDP_TYPES: dict[str, int] = {
    "Conv2D": 1, "Jacobi2D": 1, "ConvSep": 2, "DownSample": 2, "Concat": 2, "Dct8x8": 2, "Denoising": 3, "MatMul": 3,
}
"""The paper's benchmark types: 1 memory-intensive with much sharing between SMs, 2 memory-intensive with
little sharing, 3 compute-intensive."""
