"""Machine overlays: ``PRESET+OVERLAY`` and ``overlays: [...]`` change exactly the overlay's fields, and the
``gpgpusim`` overlay's DRAM model moves a whole burst per 32-B sector read (GPGPU-Sim's), writes unchanged."""

from __future__ import annotations

import pytest
from tracegen import streaming_read

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.spec import MachineConfigError, list_overlays


def _flat(tree: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _diff(a, b) -> set[str]:
    fa, fb = _flat(a.model_dump(mode="json")), _flat(b.model_dump(mode="json"))
    return {k for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k)}


GPGPUSIM_FIELDS = {"icnt.allocator", "dram.read_burst_per_sector",
                   "dram.refresh", "dram.timing.tFAW", "l1c.latency", "core.ibuffer",
                   "core.fetch_at_barrier", "core.branch_refetch", "l1c.kernel_params", "l1c.keep_across_launches",
                   "l1i.enabled",
                   "l1i.fill_to_fetch", "core.pipeline_depth", "core.pipeline_depth_mem", "l1d.allocate",
                   "l2.sector_requests", "l2.sector_acks", "l2.data_port_bytes", "l1d.miss_after_hit_latency",
                   "dram.scheduler.impl", "core.atomic_segment_bytes", "l2.sector_mshrs", "core.atomic_wait",
                   "l2.sector_replies", "core.scheduler_rotation", "core.cta_dispatch.carry_round_robin",
                   "core.latency_table", "l2.lazy_fetch_on_read", "core.mem_queue", "icnt.output_buffer"}


@pytest.mark.parametrize("preset", ["gtx480", "v100", "llc-mesh", "ipndp-base8", "tom-baseline"])
def test_the_gpgpusim_overlay_changes_only_its_fields_on_any_preset(preset):
    base, over = load_machine(preset), load_machine(f"{preset}+gpgpusim")
    assert over.name == f"{preset}+gpgpusim"
    assert _diff(base, over) - {"name"} <= GPGPUSIM_FIELDS
    assert over.dram.read_burst_per_sector and not over.dram.refresh and over.dram.timing.tFAW == 0


def test_the_gtx480_gpgpusim_preset_is_gtx480_with_the_overlay_and_sm2_gtx480s_address_decoding():
    assert "gpgpusim" in list_overlays()
    preset, named = load_machine("gtx480-gpgpusim"), load_machine("gtx480+gpgpusim")
    assert _diff(preset, named) == {"name", "description", "dram.mapping.fields"}  # SM2_GTX480's own decoding
    assert _diff(load_machine("gtx480"), preset) == GPGPUSIM_FIELDS | {"name", "description", "dram.mapping.fields"}


def test_the_v100_gpgpusim_preset_adds_sm7_qv100s_kernel_launch_latency():
    """v100-gpgpusim is v100+gpgpusim with SM7_QV100's -gpgpu_kernel_launch_latency 5000, the one value of that
    configuration the overlay cannot carry (SM2_GTX480 keeps GPGPU-Sim's default 0)."""
    preset, named = load_machine("v100-gpgpusim"), load_machine("v100+gpgpusim")
    assert _diff(named, preset) == {"name", "description", "core.cta_dispatch.kernel_launch_latency", "l1i.enabled",
                                    "l1c.kernel_params", "core.pipeline_depth", "core.pipeline_depth_mem",
                                    "l1d.allocate", "dram.mapping.fields", "core.mem_queue",
                                    "icnt.output_buffer"}
    assert not preset.inst_cache_on and not preset.params_in_const_cache  # -gpgpu_perfect_inst_const_cache 1
    assert preset.core.cta_dispatch.kernel_launch_latency == 5000
    # SM7_QV100's operand collector steps twice a cycle and its L1 streams (allocates on fill)
    assert (preset.core.pipeline_depth, preset.core.pipeline_depth_mem, preset.l1d.allocate) == (5, 3, "fill")
    assert load_machine("gtx480-gpgpusim").core.cta_dispatch.kernel_launch_latency == 0


def test_overlays_in_a_user_preset_and_errors(tmp_path):
    f = tmp_path / "mine.yaml"
    f.write_text("extends: v100\noverlays: [gpgpusim]\nname: mine\nl2:\n  size_kb: 192\n")
    m = load_machine(f)
    assert (m.name, m.l2.size_kb, m.dram.refresh) == ("mine", 192, False)
    with pytest.raises(MachineConfigError, match="unknown overlay 'nope'; overlays: gpgpusim"):
        load_machine("gtx480+nope")
    f.write_text("extends: gtx480+gpgpusim\nname: mine2\n")
    assert not load_machine(f).dram.refresh


def test_sector_reads_each_take_a_burst_and_writes_do_not():
    """A coalesced read-and-write stream: with the overlay every 32-B sector read is one 64-B burst (twice the
    read bursts of gtx480, where a line's four sectors share two bursts); write-backs keep whole atoms."""
    trace = streaming_read(15, 256, 4, store=True)
    plain = TimingSession("gtx480").run_launch(trace)
    gs = TimingSession("gtx480+gpgpusim", {"l1i.enabled": False}).run_launch(trace)  # no code lines read
    read_bytes = plain.get("dram", "read_bytes")
    assert read_bytes == gs.get("dram", "read_bytes") == 15 * 8 * 4 * 128
    assert plain.get("dram", "read_bursts") == read_bytes // 64
    assert gs.get("dram", "read_bursts") == read_bytes // 32
    assert gs.get("dram", "write_bursts") == plain.get("dram", "write_bursts")
    assert gs.get("dram", "refreshes") == 0
