"""The timing engine's statistics on a fixed matrix equal the golden ones, row by row.

The golden file was first written before the engine was split into components, and regenerated when
``__syncwarp`` became warp-local (its commit is recorded in it);
``golden.py`` says how it is computed and compared. A deliberate change of behaviour regenerates it in the
same commit, with the reason in the message.
"""

from __future__ import annotations

import golden
import pytest

WORKLOADS = sorted({(c[0], c[1]) for c in golden.cases()})


@pytest.fixture(scope="module")
def expected():
    return golden.load()


def test_the_golden_file_covers_the_matrix(expected):
    assert sorted(expected["cases"]) == sorted(golden.case_key(c) for c in golden.cases())
    assert len(expected["commit"]) == 40


@pytest.mark.slow
@pytest.mark.parametrize("workload,scale", WORKLOADS, ids=[w for w, _ in WORKLOADS])
def test_statistics_equal_the_golden_ones(expected, workload, scale):
    recording = golden.functional(workload, scale)
    problems = {}
    for case in golden.cases():
        if (case[0], case[1]) != (workload, scale):
            continue
        key = golden.case_key(case)
        d = golden.diff(expected["cases"][key], golden.compute(case, recording))
        if d:
            problems[key] = d[:10]
    assert not problems


def test_the_comparison_notices_a_changed_row(expected):
    key = golden.case_key(golden.cases()[0])
    case = expected["cases"][key]
    changed = {"launches": [dict(case["launches"][0])], "policy_rows": case["policy_rows"]}
    rows = [list(r) for r in case["launches"][0]["rows"]]
    i = next(i for i, r in enumerate(rows) if r[:2] == ["kernel", "cycles"])
    rows[i][2] += 1
    changed["launches"][0]["rows"] = rows
    assert any("kernel.cycles" in line for line in golden.diff(case, changed))
    assert golden.diff(case, case) == []
