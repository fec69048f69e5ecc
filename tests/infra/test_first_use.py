"""First use: a compiling engine says so on stderr; ``ndpgpu warmup`` and ``python -m ndpgpu`` work."""

from __future__ import annotations

import subprocess
import sys
import threading

from ndpgpu import _compile_notice
from ndpgpu.cli import main


def test_a_slow_first_call_is_announced_on_stderr_and_a_later_one_is_not(capsys):
    _compile_notice.forget("demo")
    announced = threading.Event()
    with _compile_notice.first_call("demo", "a while", delay=0.0, on_notice=announced.set):
        assert announced.wait(30)  # the body lasts until the notice is out: a slow compile
    err = capsys.readouterr()
    assert err.out == ""
    assert "ndpgpu: compiling the demo engine (first use only, usually a while; cached afterwards)" in err.err
    assert "ndpgpu: demo engine ready" in err.err
    with _compile_notice.first_call("demo", "a while", delay=0.0):
        pass  # no longer the first call in this process: silent
    assert capsys.readouterr().err == ""


def test_a_quick_first_call_is_silent(capsys):
    _compile_notice.forget("quick")
    with _compile_notice.first_call("quick", "a while", delay=3600.0):
        pass  # a cache load returns before the delay
    assert capsys.readouterr().err == ""


def _fake_engine(monkeypatch, tmp_path, cached: bool) -> None:
    """An engine ``fake`` whose entry point's numba cache index exists (``cached``) or not."""
    import types

    index = tmp_path / "run-1.py311.nbi"
    if cached:
        index.write_bytes(b"")
    cache = types.SimpleNamespace(_cache_file=types.SimpleNamespace(_index_path=str(index)))
    module = types.ModuleType("fake_engine_module")
    module.run = types.SimpleNamespace(_cache=cache)
    monkeypatch.setitem(sys.modules, "fake_engine_module", module)
    monkeypatch.setitem(_compile_notice._ENTRY, "fake", ("fake_engine_module", "run"))
    _compile_notice.forget("fake")


def test_a_compile_is_announced_at_once_and_a_slow_cache_load_as_a_load(monkeypatch, tmp_path, capsys):
    _fake_engine(monkeypatch, tmp_path, cached=False)
    assert _compile_notice.will_compile("fake") is True
    announced = threading.Event()
    with _compile_notice.first_call("fake", "a while", delay=3600.0, on_notice=announced.set):
        assert announced.wait(30)  # no cache index: announced without waiting for the delay
    assert "compiling the fake engine" in capsys.readouterr().err

    _fake_engine(monkeypatch, tmp_path, cached=True)
    assert _compile_notice.will_compile("fake") is False
    announced.clear()
    with _compile_notice.first_call("fake", "a while", delay=0.0, on_notice=announced.set):
        assert announced.wait(30)  # slow, but a load
    err = capsys.readouterr().err
    assert "loading the compiled fake engine from its cache" in err and "compiling" not in err
    assert _compile_notice.will_compile("never-loaded") is None


def test_an_entry_module_not_yet_imported_is_read_not_guessed(monkeypatch, tmp_path):
    # the timing engine's package imports its loop module on first attribute access, which the first call
    # itself makes; the notice must still tell a cache load from a compile (it used to say "compiling")
    index = tmp_path / "entry.nbi"
    index.write_bytes(b"")
    (tmp_path / "lazy_entry_module.py").write_text(
        "import types\n"
        f"run = types.SimpleNamespace(_cache=types.SimpleNamespace(_cache_file=types.SimpleNamespace("
        f"_index_path={str(index)!r})))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "lazy_entry_module", raising=False)
    monkeypatch.setitem(_compile_notice._ENTRY, "lazy", ("lazy_entry_module", "run"))
    assert _compile_notice.will_compile("lazy") is False
    index.unlink()
    assert _compile_notice.will_compile("lazy") is True
    monkeypatch.setitem(_compile_notice._ENTRY, "missing", ("no_such_module_here", "run"))
    assert _compile_notice.will_compile("missing") is None


def test_the_real_engines_entry_points_are_found():
    # both engines' entry points exist where _ENTRY says, so a first call is classified (True or False)
    assert _compile_notice.will_compile("timing") in (True, False)
    assert _compile_notice.will_compile("functional") in (True, False)


def test_warmup_compiles_or_loads_both_engines(capsys):
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "functional engine ready" in out and "timing engine ready" in out
    assert "mechanisms' hardware ready (" in out and "tom" in out


def test_the_shipped_warmup_trace_is_what_the_warmup_kernel_records():
    # the timing engine's concurrent warm-up compiles on the shipped trace; it must be the recorded one
    from ndpgpu.trace.format import KernelTrace
    from ndpgpu.warmup import SHIPPED_TRACE, _same_trace, warmup

    _, recorded = warmup()
    shipped = KernelTrace.load(SHIPPED_TRACE)
    assert _same_trace(shipped, recorded), "re-ship it: python -m ndpgpu.warmup --write-trace"
    assert recorded.warp_instructions() > 0


def test_python_dash_m_ndpgpu_is_the_cli():
    r = subprocess.run([sys.executable, "-m", "ndpgpu", "--version"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("ndpgpu ")
