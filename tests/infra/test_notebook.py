"""The example notebook (examples/quickstart.ipynb) runs from top to bottom in a real Jupyter kernel, and shows
what its text says: a checked kernel, statistics as a table and a DataFrame, a sweep's DataFrame, a chart."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndpgpu.workloads.runner import toolchain_available

NOTEBOOK = Path(__file__).resolve().parents[2] / "examples" / "quickstart.ipynb"


@pytest.mark.skipif(not toolchain_available(), reason="needs nvcc and a host C++ compiler")
def test_quickstart_notebook_runs(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors[0]["evalue"] if errors else ""

    def data(cell):
        return [o["data"] for o in cell.outputs if o.output_type in ("execute_result", "display_data")]

    stats = data(code[1])[0]
    assert "text/html" in stats and "kernel" in stats["text/html"]  # the statistics' notebook table
    frame = data(code[2])[0]["text/plain"]
    assert "path" in frame and "metric" in frame and "unit" in frame
    sweep = data(code[4])[0]["text/plain"].splitlines()
    assert len(sweep) == 1 + 4 and "l2.size_kb" in sweep[0]  # 2 policies x 2 L2 sizes, the override a column
    assert any("image/png" in d for d in data(code[5]))
