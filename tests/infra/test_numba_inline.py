"""numba's inliner with the linear block copy of ndpgpu._numba_inline: same IR, same results, one scope copy."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba.core import compiler, inline_closurecall

from ndpgpu import _numba_inline


def _branchy(a, n):
    """Many blocks and variables: what makes numba's per-block copy expensive."""
    total = 0
    for i in range(n):
        v = a[i]
        if v % 3 == 0:
            total += v * 2
        elif v % 3 == 1:
            w = v - 1
            if w > 4:
                total -= w
            else:
                total += w * w
        else:
            for j in range(v % 4):
                total += j
    return total


def test_installed_for_the_pinned_numba():
    assert numba.__version__.startswith(_numba_inline.PATCHED_FOR)
    assert _numba_inline.install()
    assert isinstance(inline_closurecall.copy, _numba_inline._BlockCopier)


def test_a_process_that_compiles_nothing_does_not_import_the_inliner():
    """The patch waits for numba to import its inliner, and applies then."""
    script = (
        "import sys, ndpgpu._numba_cache\n"
        "assert 'numba.core.inline_closurecall' not in sys.modules\n"
        "import numba\n"
        "numba.njit(lambda x: x + 1)(1)\n"  # a compile imports the inliner
        "from numba.core import inline_closurecall\n"
        "from ndpgpu._numba_inline import _BlockCopier\n"
        "assert isinstance(inline_closurecall.copy, _BlockCopier)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_a_copy_shares_one_scope_and_leaves_the_original_alone():
    func_ir = compiler.run_frontend(_branchy)
    blocks = func_ir.blocks
    assert len(blocks) > 5 and len({id(b.scope) for b in blocks.values()}) == 1
    copier = _numba_inline._BlockCopier()
    first = {label: copier.deepcopy(b) for label, b in blocks.items()}
    second = {label: copier.deepcopy(b) for label, b in blocks.items()}  # the next copy of the same IR
    for copies in (first, second):
        assert len({id(b.scope) for b in copies.values()}) == 1  # one scope copy, as the original has one scope
        scope = next(iter(copies.values())).scope
        assert scope is not func_ir.blocks[next(iter(blocks))].scope
        assert scope.localvars._con.keys() == blocks[next(iter(blocks))].scope.localvars._con.keys()
        for label, b in copies.items():
            assert b is not blocks[label]
            assert [str(s) for s in b.body] == [str(s) for s in blocks[label].body]  # the same statements
            assert all(s is not t for s, t in zip(b.body, blocks[label].body, strict=True))
    # the second copy shares nothing with the first (it may be mutated apart from it)
    assert next(iter(first.values())).scope is not next(iter(second.values())).scope
    assert all(first[k].body[0] is not second[k].body[0] for k in blocks if blocks[k].body)
    # a memo passed in, or anything but a block, is copy.deepcopy's business
    memo: dict = {}
    b = blocks[next(iter(blocks))]
    assert copier.deepcopy(b, memo) is memo[id(b)]
    assert copier.deepcopy([1, [2]]) == [1, [2]]


@pytest.mark.parametrize("n", [0, 7, 64])
def test_inlined_functions_compute_what_python_computes(n):
    assert _numba_inline.install()  # (importing any compiled ndpgpu module installs it too)
    inner = numba.njit(inline="always")(_branchy)

    @numba.njit
    def outer(a, n):
        return inner(a, n) + inner(a[::-1].copy(), n // 2) * 3

    a = (np.arange(64, dtype=np.int64) * 7919) % 101
    assert outer(a, n) == _branchy(a, n) + _branchy(a[::-1].copy(), n // 2) * 3


def _llvm_of_a_caller_inlining_twice() -> str:
    inner = numba.njit(inline="always")(_branchy)

    @numba.njit
    def outer(a, n):
        return inner(a, n) + inner(a, n // 2) * 3

    outer(np.arange(8, dtype=np.int64), 8)
    return outer.inspect_llvm(outer.signatures[0])


def test_the_compiled_code_is_numbas_own():
    """The same LLVM IR as with numba's own copy, up to block labels and numba's name counters."""

    def normalized(text: str) -> str:
        text = re.sub(r"B\d+v\d+|\bB\d+|_v\d+_|outer\$?\d*|\$\d+", "X", text)
        return re.sub(r" +;", " ;", text)  # (the column of a label's comment follows the label's length)

    assert _numba_inline.install()
    patched = inline_closurecall.copy
    try:
        inline_closurecall.copy = copy
        numbas = _llvm_of_a_caller_inlining_twice()
    finally:
        inline_closurecall.copy = patched
    ours = _llvm_of_a_caller_inlining_twice()
    assert "_branchy" in ours  # (inlined: its variables are named in the caller)
    assert normalized(ours) == normalized(numbas)
