"""Recursive device functions: fibonacci and factorial with a different depth in every lane (divergent
recursion), a recursive tree walk, mutual recursion, an in-place recursive quicksort, recursion through
virtual calls, and a recursion deeper than the per-thread stack, refused by name.

References: the same functions evaluated in Python.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

SRC = r"""
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ long long fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
struct Node { int val, left, right; };
__device__ int tree_sum(const Node* t, int i) {
  if (i < 0) return 0;
  return t[i].val + tree_sum(t, t[i].left) + tree_sum(t, t[i].right);
}
__device__ bool is_odd(int n);
__device__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }
__device__ void quicksort(int* a, int lo, int hi) {
  if (lo >= hi) return;
  int p = a[(lo + hi) / 2], i = lo, j = hi;
  while (i <= j) {
    while (a[i] < p) i++;
    while (a[j] > p) j--;
    if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
  }
  quicksort(a, lo, j);
  quicksort(a, i, hi);
}
extern "C" __global__ void recurse(const Node* t, int* out, long long* f, int* a, int n) {
  int i = threadIdx.x;
  out[i] = fib(i % 16);
  f[i] = fact(i % 21);
  out[32 + i] = tree_sum(t, i % 7);
  out[64 + i] = is_even(i);
  if (i == 0) quicksort(a, 0, n - 1);
}
__device__ __noinline__ int depth(int n) {
  volatile int pad[8];
  pad[n & 7] = n;
  if (n == 0) return 0;
  int r = depth(n - 1);  // work after the call: no loop can replace it
  return r + 1 + (pad[n & 7] - n);
}
extern "C" __global__ void deep(int* out, int n) { out[threadIdx.x] = depth(n); }
"""


@pytest.fixture(scope="module")
def module() -> ndpgpu.RawModule:
    return ndpgpu.RawModule(code=SRC)


@needs_nvcc
def test_recursive_functions(module):
    tree = np.zeros(7, dtype=[("val", "<i4"), ("left", "<i4"), ("right", "<i4")])
    for i in range(7):
        tree[i] = (i + 1, 2 * i + 1 if 2 * i + 1 < 7 else -1, 2 * i + 2 if 2 * i + 2 < 7 else -1)

    def tree_sum(i: int) -> int:
        return 0 if i < 0 else int(tree[i]["val"]) + tree_sum(int(tree[i]["left"])) + tree_sum(int(tree[i]["right"]))

    def fib(n: int) -> int:
        return n if n < 2 else fib(n - 1) + fib(n - 2)

    a = np.random.default_rng(4).integers(0, 1000, 300).astype(np.int32)
    out, f, arr = ndpgpu.zeros(96, np.int32), ndpgpu.zeros(32, np.int64), ndpgpu.asarray(a)
    module.get_function("recurse")((1,), (32,), (ndpgpu.asarray(tree), out, f, arr, np.int32(a.size)))
    lane = np.arange(32)
    got = out.get()
    np.testing.assert_array_equal(got[:32], [fib(x % 16) for x in lane])
    np.testing.assert_array_equal(f.get(), [math.factorial(x % 21) for x in lane])
    np.testing.assert_array_equal(got[32:64], [tree_sum(x % 7) for x in lane])
    np.testing.assert_array_equal(got[64:], (lane % 2 == 0).astype(np.int32))
    np.testing.assert_array_equal(arr.get(), np.sort(a))


@needs_nvcc
def test_a_recursion_deeper_than_the_stack_is_refused(module):
    out = ndpgpu.zeros(32, np.int32)
    module.get_function("deep")((1,), (32,), (out, np.int32(40)))
    assert (out.get() == 40).all()
    with pytest.raises(ndpgpu.KernelError, match="stack"):
        module.get_function("deep")((1,), (32,), (out, np.int32(5000)))
