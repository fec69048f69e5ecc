"""Start-up: ``import ndpgpu`` and ``ndpgpu --version`` load no engine (numba is not even imported); the API's
names load on first use, and every numba-compiled module stamps its cache first, however it is reached."""

from __future__ import annotations

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return set(out)


def test_import_ndpgpu_loads_no_engine():
    mods = _modules_after("import ndpgpu\nassert ndpgpu.__version__")
    assert "numba" not in mods and "ndpgpu.api" not in mods and "ndpgpu.functional.engine" not in mods


def test_version_answers_before_any_subcommand_is_imported():
    mods = _modules_after("from ndpgpu.cli import main\nassert main(['--version']) == 0")
    assert "numba" not in mods and "pydantic" not in mods and "ndpgpu.experiments" not in mods


def test_the_api_loads_on_first_use_with_the_cache_stamps_first():
    mods = _modules_after("import ndpgpu\nndpgpu.Device")
    assert {"ndpgpu.api", "ndpgpu._numba_cache", "ndpgpu.functional.engine"} <= mods
    # a compiled module reached directly still installs the cache locators before numba decorates it
    mods = _modules_after("import ndpgpu.timing.engine.queues")
    assert "ndpgpu._numba_cache" in mods


def test_help_and_listings_load_no_engine_store_or_mechanism():
    # `ndpgpu --help` lists every subcommand (those of the experiment and mechanism modules too) from their
    # parsers alone; `workloads` lists the registry: neither needs numba, DuckDB or a mechanism's analyses
    for argv in (["--help"], ["workloads"]):
        code = ("import contextlib, io\nfrom ndpgpu.cli import main\n"
                f"with contextlib.redirect_stdout(io.StringIO()) as out:\n"
                f"    try:\n        main({argv!r})\n    except SystemExit:\n        pass\n"
                "assert out.getvalue()")
        mods = _modules_after(code)
        assert not {"numba", "duckdb", "ndpgpu.mechanisms.tom.cli", "ndpgpu.experiments.runner"} & mods, argv


def test_help_still_lists_the_subcommands_built_lightly():
    from ndpgpu.cli import build_parser

    light, full = build_parser(["--help"], complete=False), build_parser()
    names = lambda p: set(p._subparsers._group_actions[0].choices)  # noqa: E731
    assert names(light) == names(full) >= {"run", "sweep", "reproduce", "analyze", "explore", "machines"}
