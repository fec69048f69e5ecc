"""The mechanisms' state-vector layout: offsets after the header in declaration order, views that write through."""

from __future__ import annotations

import numpy as np
import pytest

from ndpgpu.mechanisms.state import StateLayout, StateLayoutError


def test_offsets_follow_the_header_in_order_and_views_write_into_the_vector() -> None:
    layout = StateLayout(5, {"pt": 3 * 2, "empty": 0, "ctr": 4})
    assert (layout["pt"], layout["empty"], layout["ctr"], layout.words) == (5, 11, 11, 15)
    mx = layout.allocate()
    assert mx.dtype == np.int64 and mx.shape == (15,) and not mx.any()
    layout.view(mx, "pt", 2)[:, 1] = -1
    layout.view(mx, "ctr")[:] = 7
    assert mx.tolist() == [0] * 5 + [0, -1] * 3 + [7] * 4


def test_bad_layouts_and_names_are_refused() -> None:
    with pytest.raises(StateLayoutError, match="'q' of -1 words"):
        StateLayout(2, {"q": -1})
    with pytest.raises(StateLayoutError, match="no region 'x'; regions: a"):
        StateLayout(0, {"a": 1})["x"]
