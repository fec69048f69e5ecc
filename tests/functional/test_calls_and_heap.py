"""Indirect calls and the device heap: virtual functions on objects made with device-side ``new``, function
pointers in a ``__device__`` table, a null function pointer (refused by name), device ``malloc``/``free``
(distinct, aligned allocations that outlive the launch, and NULL once CUDA's default 8 MiB heap is used up),
and a call some lanes of a warp skip.

References: the C++ semantics of the kernels (which override each object's dynamic type selects), worked
out in NumPy, and CUDA's documented malloc behaviour (NULL when the heap cannot satisfy a request).
"""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.nvcc import nvcc_available

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

SRC = r"""
struct Shape { __device__ virtual float area() const = 0; __device__ virtual int sides() const { return 0; } };
struct Square : Shape {
  float s;
  __device__ Square(float s) : s(s) {}
  __device__ float area() const override { return s * s; }
  __device__ int sides() const override { return 4; }
};
struct Circle : Shape {
  float r;
  __device__ Circle(float r) : r(r) {}
  __device__ float area() const override { return 3.0f * r * r; }
};
struct Triangle : Shape {
  float b, h;
  __device__ Triangle(float b, float h) : b(b), h(h) {}
  __device__ float area() const override { return 0.5f * b * h; }
  __device__ int sides() const override { return 3; }
};
extern "C" __global__ void shapes(const float* x, float* area, int* sides) {
  int i = threadIdx.x;
  Shape* s;
  if (i % 3 == 0) s = new Square(x[i]);
  else if (i % 3 == 1) s = new Circle(x[i]);
  else s = new Triangle(x[i], 2.0f);
  area[i] = s->area();
  sides[i] = s->sides();
  delete s;
}
__device__ float twice(float v) { return 2 * v; }
__device__ float thrice(float v) { return 3 * v; }
typedef float (*unary)(float);
__device__ unary table[4] = {twice, thrice};  // entries 2 and 3 are null
extern "C" __global__ void pointers(const float* x, float* out, int mask) {
  int i = threadIdx.x;
  unary f = table[i & mask];
  out[i] = f(x[i]);
}
__device__ int* kept[64];
extern "C" __global__ void allocate(int n) {
  int t = threadIdx.x;
  int* p = (int*)malloc(n * sizeof(int));
  for (int k = 0; k < n; k++) p[k] = t * 1000 + k;
  kept[t] = p;
}
extern "C" __global__ void read_back(unsigned long long* addr, int* first, int* last, int n) {
  int t = threadIdx.x;
  addr[t] = (unsigned long long)kept[t];
  first[t] = kept[t][0];
  last[t] = kept[t][n - 1];
  free(kept[t]);
}
extern "C" __global__ void exhaust(unsigned long long* got) {
  for (int k = 0; k < 3; k++) got[k] = (unsigned long long)malloc(3u << 20);  // 3 MiB each, of 8 MiB
}
__device__ __noinline__ int bump(int* c) { return atomicAdd(c, 1); }
extern "C" __global__ void some_lanes(int* counter, int* out) {
  int t = threadIdx.x;
  int r = -1;
  if (t % 4 == 1) r = bump(counter);
  out[t] = r;
}
"""


@pytest.fixture(scope="module")
def module() -> ndpgpu.RawModule:
    return ndpgpu.RawModule(code=SRC)


@needs_nvcc
def test_virtual_calls_follow_each_objects_type(module):
    x = np.arange(1, 33, dtype=np.float32)
    area, sides = ndpgpu.zeros(32, np.float32), ndpgpu.zeros(32, np.int32)
    module.get_function("shapes")((1,), (32,), (ndpgpu.asarray(x), area, sides))
    kind = np.arange(32) % 3
    np.testing.assert_array_equal(area.get(), np.select([kind == 0, kind == 1], [x * x, 3 * x * x], x))
    np.testing.assert_array_equal(sides.get(), np.select([kind == 0, kind == 1], [4, 0], 3))


@needs_nvcc
def test_function_pointer_table(module):
    x = np.arange(32, dtype=np.float32)
    out = ndpgpu.zeros(32, np.float32)
    module.get_function("pointers")((1,), (32,), (ndpgpu.asarray(x), out, np.int32(1)))
    np.testing.assert_array_equal(out.get(), np.where(np.arange(32) & 1, 3 * x, 2 * x))


@needs_nvcc
def test_a_null_function_pointer_is_refused(module):
    with pytest.raises(ndpgpu.KernelTrap, match="indirect call"):
        module.get_function("pointers")((1,), (32,), (ndpgpu.zeros(32, np.float32), ndpgpu.zeros(32, np.float32),
                                                      np.int32(3)))


@needs_nvcc
def test_device_malloc_gives_distinct_aligned_blocks_that_outlive_the_launch(module):
    n = 10
    module.get_function("allocate")((1,), (64,), (np.int32(n),))
    addr, first, last = ndpgpu.zeros(64, np.uint64), ndpgpu.zeros(64, np.int32), ndpgpu.zeros(64, np.int32)
    module.get_function("read_back")((1,), (64,), (addr, first, last, np.int32(n)))
    a = addr.get().astype(np.int64)
    assert len(set(a.tolist())) == 64 and (a % 16 == 0).all()
    assert np.diff(np.sort(a)).min() >= 4 * n  # no two blocks overlap
    np.testing.assert_array_equal(first.get(), np.arange(64) * 1000)
    np.testing.assert_array_equal(last.get(), np.arange(64) * 1000 + n - 1)


@needs_nvcc
def test_malloc_returns_null_once_the_heap_is_used_up():
    module = ndpgpu.RawModule(code=SRC)
    with ndpgpu.Device():  # a fresh heap
        got = ndpgpu.zeros(3, np.uint64)
        module.get_function("exhaust")((1,), (1,), (got,))
        g = got.get()
    assert g[0] != 0 and g[1] == g[0] + (3 << 20) and g[2] == 0


@needs_nvcc
def test_a_call_only_some_lanes_make(module):
    counter, out = ndpgpu.zeros(1, np.int32), ndpgpu.zeros(64, np.int32)
    module.get_function("some_lanes")((1,), (64,), (counter, out))
    got = out.get()
    callers = np.arange(64) % 4 == 1
    assert (got[~callers] == -1).all()
    assert sorted(got[callers].tolist()) == list(range(16)) and counter.get()[0] == 16


COMPOSITE_SRC = r"""
struct Node { __device__ virtual int eval() const = 0; };
struct Leaf : Node {
  int v;
  __device__ Leaf(int x) : v(x) {}
  __device__ int eval() const override { return v; }
};
struct Sum : Node {
  Node *a, *b;
  __device__ Sum(Node* x, Node* y) : a(x), b(y) {}
  __device__ int eval() const override { return a->eval() + b->eval(); }  // a virtual call inside one
};
struct Shape { __device__ virtual float area() const = 0; };
struct Square : Shape {
  float s;
  __device__ Square(float x) : s(x) {}
  __device__ float area() const override { return s * s; }
};
struct Printer { __device__ virtual float measure() const = 0; };
struct Twice : Printer {
  Shape* sh;
  __device__ Twice(Shape* s) : sh(s) {}
  __device__ float measure() const override { return 2.0f * sh->area(); }  // same shape, other hierarchy
};
extern "C" __global__ void build(Node** root, int nested) {
  Node* leaves = new Sum(new Leaf(3), new Leaf(4));
  *root = nested ? new Sum(leaves, new Leaf(5)) : leaves;
}
extern "C" __global__ void run(Node** root, int* out) { out[0] = (*root)->eval(); }
extern "C" __global__ void measure(float* out) {
  Printer* p = new Twice(new Square(3.0f));
  out[0] = p->measure();
}
"""


@needs_nvcc
def test_virtual_calls_inside_virtual_functions():
    """A composite's eval calling its children's, which may be composites themselves (recursion through
    virtual calls), and a virtual call of the same shape in another hierarchy."""
    module = ndpgpu.RawModule(code=COMPOSITE_SRC)
    root, out = ndpgpu.zeros(1, np.uint64), ndpgpu.zeros(1, np.int32)
    module.get_function("build")((1,), (1,), (root, np.int32(0)))
    module.get_function("run")((1,), (1,), (root, out))
    assert out.get()[0] == 7
    area = ndpgpu.zeros(1, np.float32)
    module.get_function("measure")((1,), (1,), (area,))
    assert area.get()[0] == 18.0
    module.get_function("build")((1,), (1,), (root, np.int32(1)))  # a Sum inside a Sum: eval recurses
    module.get_function("run")((1,), (1,), (root, out))
    assert out.get()[0] == 12
