"""The compiled engine's layout and hook points: columns declared once, statistics reading declared
counters, mechanisms found without the core naming them."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import ndpgpu
from ndpgpu.timing import engine as E
from ndpgpu.timing.engine import hooks, layout

# the package under test, where it was imported from: the cache stamps cover that copy's files (a checkout's
# src/ndpgpu, or an installed package, or another tree on PYTHONPATH), and its text is what these tests read
SRC = Path(ndpgpu.__file__).resolve().parent
TABLES = {"CFG_NAMES": ("C_", "NCFG"), "G_NAMES": ("G_", "NG"), "PCT_NAMES": ("P_", "NPCT"),
          "REC_NAMES": ("RC_", "NREC"), "WT_NAMES": ("W_", "NWT"), "SM_NAMES": ("S_", "NSMT"),
          "SUB_NAMES": ("SB_", "NSUBT"), "CTA_NAMES": ("CT_", "NCTAT"), "MSHR_NAMES": ("M_", "NMSHR"),
          "LD_NAMES": ("L_", "NLD"), "RQ_NAMES": ("R_", "NRQ"), "BANK_NAMES": ("B_", "NBANKT"),
          "CH_NAMES": ("H_", "NCHT"), "MAP_NAMES": ("MD_", "NMAPD"), "NET_NAMES": ("N_", "NNETT"),
          "CTR_NAMES": ("T_", "NCTR")}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_each_column_constant_is_its_position_in_the_declared_names(table):
    prefix, count = TABLES[table]
    names = getattr(E, table)
    assert getattr(E, count) == len(names) == len(set(names))
    for i, name in enumerate(names):
        assert getattr(E, prefix + name) == i, f"{prefix}{name}"


def test_a_column_declared_twice_is_refused():
    with pytest.raises(ValueError, match="declared twice"):
        layout.columns("C_", "NSM")


def test_every_counter_the_statistics_read_is_declared():
    """``c("NAME")`` in the statistics and in the mechanisms' metrics names a declared counter."""
    hooks.bind()
    declared = set(E.CTR_NAMES)
    for mod in hooks.MECHANISMS.values():
        declared |= set(getattr(mod, "COUNTER_NAMES", ()))
    files = [SRC / "timing" / "stats.py", SRC / "timing" / "policies.py", *SRC.glob("timing/engine/*.py"),
             *SRC.glob("mechanisms/*/*.py")]
    text = "\n".join(f.read_text() for f in files)
    exact = set(re.findall(r'\bc\(\s*"([A-Z0-9_]+)"\s*\)', text))
    prefixes = set(re.findall(r'\bc\(\s*"([A-Z0-9_]+)"\s*\+', text))  # c("BO_NO_" + name)
    assert len(exact) > 20 and prefixes, "no counter reads found: the pattern is stale"
    assert not exact - declared
    for p in prefixes:
        assert any(d.startswith(p) for d in declared), p


def test_each_component_declares_its_own_rows():
    """The statistics are composed from the components' declarations, each naming its own paths."""
    from ndpgpu.timing import stats

    for component in stats.COMPONENT_METRICS:
        assert callable(getattr(E, component).metrics), component
    src = (SRC / "timing" / "stats.py").read_text()
    assert 'put("dram"' not in src and 'put("l2"' not in src and 'put("kernel"' not in src


def test_launch_stats_counters_are_the_declared_ones():
    from ndpgpu.timing.stats import combine

    st = combine([], machine="m")
    assert list(st.counters()) == list(E.CTR_NAMES)
    assert st.c("WARP_INSTS") == 0


def test_every_hook_point_has_a_default_a_dispatcher_and_a_cfg_column():
    for point in hooks.HOOK_POINTS:
        assert callable(getattr(hooks, f"_default_{point}")) and callable(getattr(hooks, point))
    columns = [getattr(E, f"C_HK_{p.upper()}") for p in hooks.HOOK_POINTS]
    assert columns == list(range(E.C_HK_DECIDE, E.C_HK_DECIDE + len(hooks.HOOK_POINTS)))
    assert not hooks.pointers(None).any()  # no mechanism: every point takes its default


def test_importing_the_timing_package_imports_no_mechanism():
    code = ("import sys, ndpgpu.timing; bad = [m for m in sys.modules if m.startswith('ndpgpu.mechanisms') "
            "or m.startswith('ndpgpu.timing.engine')]; print(bad); sys.exit(1 if bad else 0)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("first", ["ndpgpu.mechanisms.tom.hardware", "ndpgpu.mechanisms.tom.policy",
                                   "ndpgpu.timing.engine.l2"])
def test_a_hardware_module_imported_first_is_found_whole(first):
    """Whatever is imported first, the hooks find TOM's hardware fully imported (no partial module)."""
    code = (f"import {first}; from ndpgpu.timing import engine as E; E.run_loop; E.hooks.bind(); "
            "print(sorted(E.hooks.CODES))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and "'tom'" in r.stdout, r.stderr[-2000:]


def test_no_core_file_names_a_mechanism():
    mechanisms = [p.name for p in (SRC / "mechanisms").iterdir() if (p / "__init__.py").is_file()]
    assert "tom" in mechanisms
    words = re.compile(r"\b(" + "|".join(mechanisms) + r")\b", re.IGNORECASE)
    offenders = [f"{f.relative_to(SRC)}:{i}" for f in sorted((SRC / "timing").rglob("*.py"))
                 for i, line in enumerate(f.read_text().splitlines(), 1) if words.search(line)]
    assert not offenders


def test_mechanisms_are_found_by_package_and_coded_in_name_order():
    hooks.bind()
    assert "tom" in hooks.MECHANISMS
    assert hooks.MECHANISMS["tom"].__name__ == "ndpgpu.mechanisms.tom.hardware"
    assert list(hooks.CODES) == sorted(hooks.CODES)
    assert sorted(hooks.CODES.values()) == list(range(1, len(hooks.CODES) + 1))
    with pytest.raises(hooks.MechanismHardwareError, match="no hardware module"):
        hooks.code_of("no-such-mechanism")


def test_the_engine_and_each_mechanism_are_stamped_apart():
    """An edit to one mechanism's hardware recompiles its hook functions, not the engine (whose stamp holds
    no mechanism) nor another mechanism; an edit to an engine component a mechanism calls recompiles both."""
    from ndpgpu import _numba_cache

    hooks.bind()
    engine = _numba_cache.closure_files(str(SRC / "timing" / "engine" / "loop.py"))
    assert (SRC / "timing" / "engine" / "issue.py").resolve() in engine
    assert not [f for f in engine if "mechanisms" in f.parts]
    tom = _numba_cache.closure_files(hooks.MECHANISMS["tom"].__file__)
    assert (SRC / "timing" / "engine" / "ldst.py").resolve() in tom  # (it calls wake_warp)
    assert not [f for f in tom if "mechanisms" in f.parts and f.parts[-2] != "tom"]


def test_a_mechanisms_hook_addresses_are_its_declared_points():
    hooks.bind()
    declared = set(hooks.MECHANISMS["tom"].HOOKS)
    addresses = hooks.pointers("tom")
    assert len(addresses) == len(hooks.HOOK_POINTS)
    for point, address in zip(hooks.HOOK_POINTS, addresses, strict=True):
        assert (address != 0) == (point in declared), point
    assert (hooks.pointers("tom") == addresses).all()  # compiled once per process
    with pytest.raises(hooks.MechanismHardwareError, match="no hardware module"):
        hooks.pointers("no-such-mechanism")


def test_attaching_a_mechanism_without_hardware_is_refused():
    import numpy as np

    from ndpgpu.timing import MechanismHardware, TimingSession

    class Nowhere(MechanismHardware):
        mechanism = "no-such-mechanism"

        def launch_state(self, session, trace):
            return np.zeros(1, np.int64)

    sess = TimingSession("gtx480")
    with pytest.raises(hooks.MechanismHardwareError, match="no hardware module for mechanism 'no-such-mechanism'"):
        sess.attach(Nowhere())
    assert sess.mechanism is None


def _module(name: str, **attrs):
    import importlib.machinery
    import types

    mod = types.ModuleType(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


def test_a_hardware_module_must_name_itself_and_use_known_hook_points():
    with pytest.raises(hooks.MechanismHardwareError, match="names itself"):
        hooks._check(_module("anon.hardware"))
    with pytest.raises(hooks.MechanismHardwareError, match="unknown hook points \\['on_tuesday'\\]"):
        hooks._check(_module("odd.hardware", MECHANISM="odd", HOOKS=("decide", "on_tuesday")))
    assert hooks._check(_module("fine.hardware", MECHANISM="fine", HOOKS=("decide",))) == "fine"
    with pytest.raises(hooks.MechanismHardwareError, match="named after hook points but not listed"):
        hooks._check(_module("helper.hardware", MECHANISM="helper", HOOKS=("intercept",), decide=lambda: 0))


def test_a_hardware_module_still_importing_is_refused_with_the_rule():
    mod = _module("busy.hardware", MECHANISM="busy")
    mod.__spec__._initializing = True
    with pytest.raises(hooks.MechanismHardwareError, match="not engine.issue, dispatch, loop or hooks"):
        hooks._check(mod)


def test_two_hardware_modules_with_one_name_are_refused(monkeypatch):
    a, b = _module("a.hardware", MECHANISM="same"), _module("b.hardware", MECHANISM="same")
    monkeypatch.setattr(hooks, "discover", lambda package, name: [a, b])
    monkeypatch.setattr(hooks, "_external", lambda: [])
    with pytest.raises(hooks.MechanismHardwareError, match="same"):
        hooks._load()


def test_mechanisms_named_in_the_environment_are_loaded(monkeypatch):
    monkeypatch.setenv("NDPGPU_MECHANISMS", " x.hardware, ,y.hardware")
    assert hooks._external()[:2] == ["x.hardware", "y.hardware"]
