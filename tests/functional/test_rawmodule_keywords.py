"""RawModule's keywords follow CuPy's: its own are accepted, a misspelt one is a TypeError (not dropped)."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu

PTX = """
.version 9.0
.target sm_75
.address_size 64
.visible .entry one(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 1;
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def test_a_misspelt_keyword_is_refused():
    with pytest.raises(TypeError, match="optoins"):
        ndpgpu.RawModule(ptx=PTX, optoins=("-DN=1",))


def test_cupys_other_keywords_are_accepted():
    mod = ndpgpu.RawModule(ptx=PTX, backend="nvrtc", translate_cucomplex=False, enable_cooperative_groups=False,
                           jitify=False, name_expressions=None)
    out = ndpgpu.zeros(1, np.uint32)
    mod.get_function("one")((1,), (1,), (out,))
    assert out.get()[0] == 1
