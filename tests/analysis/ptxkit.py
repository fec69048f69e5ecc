"""Hand-written PTX kernels for the analysis tests."""

from __future__ import annotations

from ndpgpu.frontend.ir import Function
from ndpgpu.frontend.parser import parse_ptx

HEADER = ".version 8.0\n.target sm_75\n.address_size 64\n\n"
REGS = """
    .reg .pred %p<16>;
    .reg .b32 %r<64>;
    .reg .b64 %rd<64>;
    .reg .f32 %f<32>;
"""


def kernel_ptx(body: str, params: tuple[str, ...] = ("u64", "u64", "u32"), name: str = "k") -> str:
    """PTX text of a kernel ``name`` with parameters ``name_param_<i>`` of the given types."""
    plist = ",\n".join(f"    .param .{t} {name}_param_{i}" for i, t in enumerate(params))
    return f"{HEADER}.visible .entry {name}(\n{plist}\n)\n{{{REGS}\n{body}\n}}\n"


def kernel(body: str, params: tuple[str, ...] = ("u64", "u64", "u32"), name: str = "k") -> Function:
    """Parse a hand-written kernel body (see :func:`kernel_ptx`)."""
    return parse_ptx(kernel_ptx(body, params, name)).functions[name]


def block_at(cfg, label: str) -> int:
    """Index of the block starting at ``label``."""
    return cfg.block_of_instr[cfg.fn.labels[label]]
