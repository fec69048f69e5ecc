"""numba's cache is stamped with each compiled function's import closure: edits to helpers take effect."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import ndpgpu
from ndpgpu import _numba_cache

SRC = Path(ndpgpu.__file__).parent

PROBE = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    from ndpgpu import _numba_cache
    _numba_cache.register_package("toypkg", sys.argv[1] + "/toypkg")
    from toypkg.main import outer
    print(outer(3), outer.stats.cache_hits.get(outer.signatures[0], 0) if outer.signatures else 0)
""")


def _write_toy(root: Path, helper_body: str) -> None:
    pkg = root / "toypkg"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "consts.py").write_text("OFFSET = 100\n")
    (pkg / "helper.py").write_text(textwrap.dedent(f"""
        from numba import njit
        from .consts import OFFSET

        @njit(cache=True)
        def inner(x):
            return {helper_body} + OFFSET
    """))
    (pkg / "main.py").write_text(textwrap.dedent("""
        from numba import njit
        from . import helper

        @njit(cache=True)
        def outer(x):
            return helper.inner(x) * 2
    """))


def _probe(root: Path) -> tuple[int, int]:
    out = subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_CACHE_DIR": ""})
    value, hits = out.stdout.split()
    return int(value), int(hits)


def test_helper_edit_in_another_module_recompiles(tmp_path):
    _write_toy(tmp_path, "x + 1")
    assert _probe(tmp_path) == (208, 0)           # cold: compiled, (3 + 1 + 100) * 2
    assert _probe(tmp_path) == (208, 1)           # warm: loaded from the cache
    _write_toy(tmp_path, "x * 10")                 # only the helper's file changes
    assert _probe(tmp_path)[0] == 260             # numba's per-file stamp would have returned 208 again
    (tmp_path / "toypkg" / "consts.py").write_text("OFFSET = 0\n")  # a constant two imports away
    assert _probe(tmp_path)[0] == 60
    assert _probe(tmp_path) == (60, 1)


def test_closure_of_the_functional_engine_covers_its_helpers():
    names = {p.name for p in _numba_cache.closure_files(str(SRC / "functional" / "engine.py"))}
    assert {"engine.py", "alu.py", "bits.py", "isa.py"} <= names
    stamp = _numba_cache.closure_stamp(str(SRC / "functional" / "engine.py"))
    assert stamp == _numba_cache.closure_stamp(str(SRC / "functional" / "engine.py"))
    assert stamp != _numba_cache.closure_stamp(str(SRC / "functional" / "alu.py"))


def test_alu_sees_an_edited_helper_in_a_copy_of_the_package(tmp_path):
    """Edit ``bits.f64`` (inlined into the ALU's compiled ``fval``) in a copy of the package: ``fval``, cached
    before the edit, returns the new result."""
    shutil.copytree(SRC, tmp_path / "ndpgpu", ignore=shutil.ignore_patterns("__pycache__"))
    probe = textwrap.dedent("""
        import sys
        sys.path.insert(0, sys.argv[1])
        import numpy as np
        import ndpgpu
        assert ndpgpu.__file__.startswith(sys.argv[1]), ndpgpu.__file__
        from ndpgpu.functional import alu, isa
        r = alu.fval(np.uint64(0x3FF8000000000000), isa.T_F64)
        print(r, alu.fval.stats.cache_hits.get(alu.fval.signatures[0], 0))
    """)

    def run() -> tuple[float, int]:
        out = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True,
                             check=True, env={**os.environ, "NUMBA_CACHE_DIR": ""})
        value, hits = out.stdout.split()
        return float(value), int(hits)

    assert run() == (1.5, 0)
    assert run() == (1.5, 1)
    bits_py = tmp_path / "ndpgpu" / "functional" / "bits.py"
    text = bits_py.read_text()
    line = "    return _bitcast_u64_f64(np.uint64(bits))\n"
    edited = text.replace(line, line.replace("return ", "return -"))
    assert edited != text
    bits_py.write_text(edited)
    assert run() == (-1.5, 0)


STAMP_PROBE = textwrap.dedent("""
    import ndpgpu.timing.engine.loop as loop
    from ndpgpu import _numba_cache
    from ndpgpu.timing.engine import hooks
    hooks.bind()
    tom = hooks.MECHANISMS["tom"]
    engine = {p.name + ":" + p.parent.name for p in _numba_cache.closure_files(loop.__file__)}
    hardware = {p.name + ":" + p.parent.name for p in _numba_cache.closure_files(tom.__file__)}
    print(loop.run_loop._cache._cache_file._source_stamp == _numba_cache.closure_stamp(loop.__file__),
          any(name.startswith("hardware.py") for name in engine),
          "layout.py:engine" in hardware, "hardware.py:llc" in hardware)
""")


def test_engine_and_mechanism_hardware_are_stamped_apart():
    """The engine calls a mechanism's hooks at run-time addresses, so its cache stamp covers no mechanism's
    hardware (an edit there recompiles that mechanism's hook functions, not the engine), while a mechanism's
    stamp covers the engine modules it compiles in (layout's columns) and no other mechanism."""
    out = subprocess.run([sys.executable, "-c", STAMP_PROBE], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False", "True", "False"]


RACE_PROBE = textwrap.dedent("""
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from ndpgpu import _numba_cache
    _numba_cache.register_package("toypkg", sys.argv[1] + "/toypkg")
    import toypkg.consts  # the constant is in memory before ...
    Path(sys.argv[1], "toypkg", "consts.py").write_text("OFFSET = 0\\n")  # ... its file is edited ...
    from toypkg.main import outer  # ... and before the compiled functions are decorated and compiled
    print(outer(3))
""")


def test_code_compiled_from_sources_edited_during_the_run_is_not_cached(tmp_path):
    """A process that imported a module before its file was edited compiles with the old constants; stored
    under the new file's stamp, that code would be loaded by every later process. It is kept out of the
    cache: the next process compiles the edited source."""
    _write_toy(tmp_path, "x + 1")
    out = subprocess.run([sys.executable, "-c", RACE_PROBE, str(tmp_path)], capture_output=True, text=True,
                         check=True, env={**os.environ, "NUMBA_CACHE_DIR": ""})
    assert int(out.stdout) == 208  # this process: the constant it had imported, (3 + 1 + 100) * 2
    assert _probe(tmp_path) == (8, 0)  # the next: compiled from the edited file, (3 + 1 + 0) * 2
    assert _probe(tmp_path) == (8, 1)


def _cache_dirs(root: Path) -> list[Path]:
    return sorted(p for p in (root / "toypkg" / "__pycache__").iterdir() if p.is_dir())


def test_each_source_version_caches_in_its_own_directory(tmp_path):
    """Two versions of a module never share a cache file: the first version's files are untouched by the
    second's compilation, and going back to the first loads them again."""
    _write_toy(tmp_path, "x + 1")
    assert _probe(tmp_path) == (208, 0)
    first = {p: p.read_bytes() for d in _cache_dirs(tmp_path) for p in d.iterdir()}
    assert first and all(p.parent.name.rsplit("-", 1)[0] in ("main", "helper") for p in first)
    _write_toy(tmp_path, "x * 10")
    assert _probe(tmp_path) == (260, 0)
    assert {p: p.read_bytes() for p in first} == first  # numba alone would have renumbered and overwritten
    _write_toy(tmp_path, "x + 1")
    assert _probe(tmp_path) == (208, 1)


WRITER = textwrap.dedent("""
    import sys
    from numba.core import caching
    from ndpgpu import _numba_cache  # noqa: F401  (installs the data-file naming)
    f = caching.IndexDataCacheFile(cache_path=sys.argv[1], filename_base="f-1.py311", source_stamp="s")
    f.save(sys.argv[2], sys.argv[3])
    print(f.load(sys.argv[2]))
""")


def test_processes_that_found_an_empty_index_write_different_files(tmp_path):
    """Two processes that both read an empty index (the second before the first saved its own) each
    write their overload: neither overwrites the file the other's index entry names."""
    def write(key: str, value: str) -> str:
        return subprocess.run([sys.executable, "-c", WRITER, str(tmp_path), key, value], capture_output=True,
                              text=True, check=True).stdout.strip()

    assert write("sig-a", "code-a") == "code-a"
    index = tmp_path / "f-1.py311.nbi"
    saved_a = index.read_bytes()
    index.unlink()  # what the second process saw: no index yet
    assert write("sig-b", "code-b") == "code-b"
    data = sorted(tmp_path.glob("*.nbc"))
    assert len(data) == 2
    index.write_bytes(saved_a)  # the first process's index, as if it had been written last
    out = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys
        from numba.core import caching
        from ndpgpu import _numba_cache  # noqa: F401
        f = caching.IndexDataCacheFile(cache_path=sys.argv[1], filename_base="f-1.py311", source_stamp="s")
        print(f.load("sig-a"))
    """), str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "code-a"


def test_unused_directories_of_other_stamps_are_pruned(tmp_path):
    here = tmp_path / "engine-aaaa"
    old, recent, other_module = tmp_path / "engine-bbbb", tmp_path / "engine-cccc", tmp_path / "engine_x-dddd"
    for d in (here, old, recent, other_module):
        d.mkdir()
    now = 1_000_000.0
    os.utime(old, (now - 2 * _numba_cache.PRUNE_AFTER_S,) * 2)
    os.utime(recent, (now - 60,) * 2)
    os.utime(other_module, (now - 2 * _numba_cache.PRUNE_AFTER_S,) * 2)
    assert _numba_cache.prune_stamp_directories(str(here), now=now) == [str(old)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["engine-aaaa", "engine-cccc", "engine_x-dddd"]
