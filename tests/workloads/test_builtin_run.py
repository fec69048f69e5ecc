"""Every built-in and corpus workload at ``tiny``, run through the simulator and checked against its
NumPy reference (needs the functional engine and ``ndpgpu.workloads.runner``)."""

from __future__ import annotations

from typing import Any

import pytest

from ndpgpu.workloads.base import all_workloads

NAMES = sorted(n for n, c in all_workloads().items() if c.suite in ("builtin", "corpus"))


def _run(name: str, scale: str = "tiny") -> Any:
    from ndpgpu.workloads.runner import run_workload

    return run_workload(name, scale)


@pytest.mark.parametrize("name", NAMES)
def test_workload_passes_at_tiny(name: str) -> None:
    result = _run(name)
    failures = [c.message for c in result.checks if not c.passed]
    assert result.passed, f"{name} (tiny) failed:\n" + "\n".join(failures or ["(no failing check reported)"])
    assert result.checks, f"{name}: the runner reported no checks"


def test_printf_hello_prints_the_expected_lines(capfd: pytest.CaptureFixture[str]) -> None:
    """Device printf output (echoed to stdout, or kept on the result) has C's formatting of %d and %f."""
    from ndpgpu.workloads.base import get_workload

    result = _run("printf_hello")
    assert result.passed
    printed = capfd.readouterr().out.splitlines()
    for attr in ("printf", "printf_output", "stdout"):  # or kept by the runner instead of echoed
        extra = getattr(result, attr, None)
        if extra and not any(line.startswith("hello from block") for line in printed):
            text = extra if isinstance(extra, str) else "".join(extra)
            printed = text.splitlines()
    cls = get_workload("printf_hello")
    expected = cls().expected_lines(cls.params("tiny"))
    assert expected
    missing = [line for line in expected if line not in printed]
    assert not missing, f"missing printf lines {missing}; printed: {printed[:20]}"
    assert sum(line.startswith("hello from block") for line in printed) == len(expected)
