"""The workloads on a real GPU (skipped without one): checks kernels, references and tolerances."""

from __future__ import annotations

import gpu_oracle  # beside this file (see conftest.py)
import pytest

from ndpgpu.workloads.base import all_workloads

NAMES = sorted(n for n, c in all_workloads().items() if c.suite in ("builtin", "corpus"))
pytestmark = pytest.mark.skipif(not gpu_oracle.available(), reason="needs an NVIDIA GPU, its driver and nvcc")


@pytest.mark.parametrize("scale", ["tiny", "small"])
@pytest.mark.parametrize("name", NAMES)
def test_workload_on_gpu(name: str, scale: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ndpgpu

    for attr in ("asarray", "zeros", "empty"):
        monkeypatch.setattr(ndpgpu, attr, getattr(gpu_oracle, attr), raising=False)
    _, _, checks = gpu_oracle.run_on_gpu(name, scale)
    failures = [c.message for c in checks if not c.passed]
    assert not failures, f"{name}/{scale} on the GPU:\n" + "\n".join(failures)
