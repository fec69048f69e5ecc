"""``ndpgpu run FILE.cu`` / ``ndpgpu run launch.yaml``: a researcher's own kernel, its launch described once,
run functionally, checked against a reference, timed, and timed under every mechanism's policy."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from ndpgpu.cli import main
from ndpgpu.workloads import kernelfile as kf
from ndpgpu.workloads.runner import toolchain_available

needs_nvcc = pytest.mark.skipif(not toolchain_available(), reason="needs nvcc and a host C++ compiler")

N = 4096
K = 16  # 4 trips of the loop nvcc unrolls by 4: TOM offloads a loop of at least 3
# kernels whose addresses go through an index array the compiler cannot know. gather_axpy: a = 2 keeps the
# product exact, so the fused multiply-add nvcc emits rounds as NumPy's multiply then add does.
# gather_sum: a loop (TOM offloads it), summed in the same order as the reference.
SOURCE = """
__global__ void gather_axpy(int n, float a, const int *idx, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[idx[i]] + y[i];
}
__global__ void gather_sum(int n, int k, const int *idx, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int j = 0; j < k; j++) s += x[idx[i * k + j]];
        y[i] = s;
    }
}
"""
ARGS = [str(N), "2.0", f"idx=i32[{N}] randint:0:{N}", f"x=f32[{N}] rand", f"y=f32[{N}] range"]
SUM_ARGS = [str(N // K), str(K), f"idx=i32[{N}] randint:0:{N}", f"x=f32[{N}] rand", f"y=f32[{N // K}]"]


def _reference(seed: int = 2026) -> np.ndarray:
    """gather_axpy's y after the launch, computed here from the contents the description asks for."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, N, N).astype(np.int32)
    x = rng.random(N).astype(np.float32)
    y = np.arange(N).astype(np.float32)
    return (np.float32(2.0) * x[idx] + y).astype(np.float32)


def _sum_reference(seed: int = 2026) -> np.ndarray:
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, N, N).astype(np.int32).reshape(N // K, K)
    x = rng.random(N).astype(np.float32)
    s = np.zeros(N // K, np.float32)
    for j in range(K):
        s = s + x[idx[:, j]]
    return s


@pytest.fixture
def gather(tmp_path):
    src = tmp_path / "gather.cu"
    src.write_text(SOURCE)
    np.save(tmp_path / "y_ref.npy", _reference())
    np.save(tmp_path / "sum_ref.npy", _sum_reference())
    return tmp_path


def _flags(src, kernel: str = "gather_axpy") -> list[str]:
    args, threads = (ARGS, N) if kernel == "gather_axpy" else (SUM_ARGS, N // K)
    out = ["run", str(src), "--kernel", kernel, "--grid", str(threads // 128), "--block", "128"]
    for a in args:
        out += ["--arg", a]
    return out


def _json(capsys, argv: list[str], code: int = 0) -> dict:
    assert main([*argv, "--json"]) == code
    return json.loads(capsys.readouterr().out)


def test_argument_grammar():
    assert kf.parse_arg("65536", 0) == kf.ScalarArg("arg0", 65536)
    assert kf.parse_arg("a=-2.5e1", 1) == kf.ScalarArg("a", -25.0)
    assert kf.parse_arg("0x7fffffff", 2).value == 2**31 - 1
    assert kf.parse_arg(3, 3) == kf.ScalarArg("arg3", 3)
    arr = kf.parse_arg("m=f64[16x8] randint:-3:4", 4)
    assert (arr.name, arr.dtype, arr.shape, arr.init, arr.nbytes) == ("m", np.dtype(np.float64), (16, 8),
                                                                      "randint:-3:4", 16 * 8 * 8)
    assert kf.parse_arg("u8[7]", 5).init == "zeros"
    for bad, what in (("f32[4]bad", "neither a number"), ("q32[4]", "unknown element type"),
                      ("f32[0]", "positive"), ("f32[4] randint:5:5", "LO < HI"), ("f32[4] fill:x", "fill:VALUE"),
                      ("complex64[4]", "not an integer or floating-point"), (True, "expected a number")):
        with pytest.raises(kf.LaunchDescriptionError, match=what):
            kf.parse_arg(bad, 0)


def test_initial_contents_follow_the_seed_and_the_grammar(tmp_path):
    rng = np.random.default_rng(7)
    got = kf.initial_contents(kf.parse_arg("i16[3x2] randint:-5:5", 0), rng, tmp_path)
    assert got.dtype == np.int16 and got.shape == (3, 2)
    assert np.array_equal(got, np.random.default_rng(7).integers(-5, 5, 6).astype(np.int16).reshape(3, 2))
    assert np.array_equal(kf.initial_contents(kf.parse_arg("u32[5] range", 0), rng, tmp_path), np.arange(5))
    assert np.all(kf.initial_contents(kf.parse_arg("f32[4] fill:-0.0", 0), rng, tmp_path) == 0)
    np.save(tmp_path / "a.npy", np.arange(4, dtype=np.int64))
    assert kf.initial_contents(kf.parse_arg("i64[4] npy:a.npy", 0), rng, tmp_path).sum() == 6
    with pytest.raises(kf.LaunchDescriptionError, match="holds int64"):
        kf.initial_contents(kf.parse_arg("i32[4] npy:a.npy", 0), rng, tmp_path)


@needs_nvcc
def test_flags_run_the_kernel_and_check_it_against_a_reference(gather, capsys):
    doc = _json(capsys, [*_flags(gather / "gather.cu"), "--expect", f"y={gather / 'y_ref.npy'}"])
    assert doc["passed"] and [c["name"] for c in doc["checks"]] == ["y"]
    assert doc["workload"] == "gather:gather_axpy" and doc["scale"] == "given"
    assert [o["name"] for o in doc["outputs"]] == ["idx", "x", "y"]
    wrong = gather / "wrong.npy"
    np.save(wrong, _reference() + np.float32(1))
    doc = _json(capsys, [*_flags(gather / "gather.cu"), "--expect", f"y={wrong}"], code=1)
    assert not doc["passed"] and doc["checks"][0]["max_abs_error"] == pytest.approx(1.0, abs=1e-3)


@needs_nvcc
def test_a_yaml_description_is_the_same_launch(gather, capsys):
    (gather / "launch.yaml").write_text(
        f"source: gather.cu\nkernel: gather_axpy\ngrid: {N // 128}\nblock: 128\n"
        f"args: [{N}, 2.0, 'idx=i32[{N}] randint:0:{N}', 'x=f32[{N}] rand', 'y=f32[{N}] range']\n"
        f"expect: {{y: y_ref.npy}}\n")
    doc = _json(capsys, ["run", str(gather / "launch.yaml")])
    assert doc["passed"] and doc["checks"][0]["name"] == "y"
    flags = _json(capsys, _flags(gather / "gather.cu"))
    assert doc["outputs"] == flags["outputs"]


@needs_nvcc
@pytest.mark.parametrize(("kernel", "machine", "policy", "row"), [
    ("gather_axpy", "llc-mesh", "llc:omni", ("offload.chains", "offloaded")),
    ("gather_sum", "tom-ndp", "tom:always+bmap", ("offload.blocks", "offloaded")),
    ("gather_axpy", "gtx480-gpgpusim", "teleport:real", ("teleport", "preload_lines")),
])
def test_a_kernel_outside_the_suites_runs_under_each_mechanism(gather, capsys, kernel, machine, policy, row):
    """The policies analyse the file's own module; their results are bit-identical to the plain run's."""
    ref = gather / ("y_ref.npy" if kernel == "gather_axpy" else "sum_ref.npy")
    plain = _json(capsys, [*_flags(gather / "gather.cu", kernel), "--machine", machine])
    timed = _json(capsys, [*_flags(gather / "gather.cu", kernel), "--machine", machine, "--policy", policy,
                           "--expect", f"y={ref}"])
    assert timed["passed"] and timed["outputs"] == plain["outputs"]
    rows = {(r["path"], r["metric"]): r["value"] for r in timed["timing"]}
    assert rows[row] > 0, f"{policy} did nothing with the file's kernel"


@needs_nvcc
def test_mistakes_are_usage_errors_that_say_what_is_wrong(gather, capsys):
    src = str(gather / "gather.cu")
    cases = [
        (["run", src, "--kernel", "nope", "--grid", "1", "--block", "32"], "no kernel or variable 'nope'"),
        (["run", src, "--kernel", "gather_axpy", "--grid", "1", "--block", "32", "--arg", "1"],
         r"takes 5 argument\(s\) \(.u32, .f32, .u64, .u64, .u64\); 1 given"),
        (["run", src, "--kernel", "gather_axpy", "--grid", "1", "--block", "32", "--arg", "i32[4]", "--arg", "1",
          "--arg", "i32[4]", "--arg", "f32[4]", "--arg", "f32[4]"], "is an array, but the kernel's parameter 0"),
        (["run", src, "--grid", "1", "--block", "32"], "name the kernel"),
        (["run", "vecadd", "--kernel", "k"], "a registered workload launches itself"),
        (["run", src, "--kernel", "gather_axpy", "--grid", "1", "--block", "32", "--scale", "small"],
         "drop --scale small"),
    ]
    for argv, message in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert re.search(message, err), (argv, err)
    (gather / "bad.yaml").write_text("source: gather.cu\nkernel: gather_axpy\ngird: 1\n")
    assert main(["run", str(gather / "bad.yaml")]) == 2
    assert "unknown key(s) gird" in capsys.readouterr().err
