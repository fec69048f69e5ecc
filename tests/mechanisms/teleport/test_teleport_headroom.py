"""The TELEPORT report's headroom table (issue 45 item 3): the I-machine's gain per benchmark beside the paper's
Sec. 5.2.1 values, and the S-machine's loss against it, computed by hand here."""

from __future__ import annotations

import pytest

from ndpgpu.experiments.papers.teleport import PAPER_I_MACHINE, TeleportReproduction


def test_headroom_rows_ranges_and_the_bandwidth_loss() -> None:
    sp = {"I": {"BKP": 1.5, "JAC": 2.0, "NN": 4.0}, "S": {"BKP": 1.2, "JAC": 2.0, "NN": None}}
    table = TeleportReproduction()._headroom(["BKP", "JAC", "NN"], sp)
    rows = {r[0]: r[1:] for r in table.rows}
    assert rows["BKP"] == [1.5, PAPER_I_MACHINE["BKP"], pytest.approx(0.2)]  # 1 - 1.2 / 1.5
    assert rows["JAC"] == [2.0, 3.78, 0.0]
    assert rows["NN"] == [4.0, 1.08, None]  # no S point: no loss
    assert rows["MIN"][:2] == [1.5, 1.01] and rows["MAX"][:2] == [4.0, 3.78]
    assert rows["MEAN"][0] == pytest.approx(7.5 / 3)
    assert rows["MEAN"][2] is None  # a mean needs every benchmark (the report's rule for averages)
