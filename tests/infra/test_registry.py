"""The one registry pattern (``ndpgpu.registry``): unique names, errors that list the valid ones, discovery
by package that fails loudly, and every registry of the package built on it still finding its contents."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import textwrap
from pathlib import Path

import pytest

from ndpgpu import cli as ndpgpu_cli
from ndpgpu.cliargs import Subcommands
from ndpgpu.registry import DuplicateName, Registry, UnknownName, discover, import_submodules, subpackages


def test_duplicate_names_are_rejected_naming_both() -> None:
    reg: Registry[object] = Registry("widget")

    def first() -> None: ...

    def second() -> None: ...

    reg.register("w", first)
    with pytest.raises(DuplicateName, match=r"widget 'w' is registered twice: by .*first and by .*second"):
        reg.register("w", second)
    assert reg.get("w") is first


def test_the_same_object_may_register_again() -> None:
    reg: Registry[type] = Registry("widget")

    @reg.register("w")
    class W: ...

    assert reg.register("w", W) is W
    assert reg.names() == ["w"] and reg.items() == [("w", W)]
    # a reloaded module defines the class again: same module and qualified name
    again = type("W", (), {"__module__": W.__module__, "__qualname__": W.__qualname__})
    assert reg.register("w", again) is again and reg.get("w") is again


def test_unknown_name_lists_the_valid_ones() -> None:
    reg: Registry[int] = Registry("widget")
    reg.register("b", 2)
    reg.register("a", 1)
    with pytest.raises(UnknownName, match=r"unknown widget 'c'; known widgets: a, b"):
        reg.get("c")
    with pytest.raises(KeyError):
        reg.get("c")
    assert "a" in reg and "c" not in reg and list(reg) == ["a", "b"] and len(reg) == 2
    assert reg.unregister("a") == 1 and reg.unregister("a") is None


def test_unknown_name_raises_the_callers_error_class() -> None:
    class MyError(ValueError):
        pass

    reg: Registry[int] = Registry("gadget", plural="gadgetry", error=MyError)
    with pytest.raises(MyError, match=r"unknown gadget 'x'; known gadgetry: \(none registered\)"):
        reg.get("x")


def test_load_runs_once_before_the_first_read_and_again_after_a_failure() -> None:
    calls: list[int] = []
    reg: Registry[int] = Registry("widget", load=lambda: calls.append(1) or reg.register("w", 7))
    assert calls == []
    assert reg.get("w") == 7 and reg.names() == ["w"] and calls == [1]

    attempts: list[int] = []

    def broken() -> None:
        attempts.append(1)
        raise ImportError("no module named 'missing'")

    flaky: Registry[int] = Registry("widget", load=broken)
    for _ in range(2):
        with pytest.raises(ImportError, match="missing"):
            flaky.names()
    assert len(attempts) == 2


def _package(root: Path, name: str, files: dict[str, str]) -> None:
    for rel, text in {"__init__.py": "", **files}.items():
        path = root / name / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def plugin_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("regplug")]:
        del sys.modules[name]


def test_discover_imports_the_module_of_every_subpackage(plugin_root: Path) -> None:
    _package(plugin_root, "regplug_a", {
        "found.py": "SEEN = []\n",
        "alpha/__init__.py": "",
        "alpha/policy.py": "from regplug_a.found import SEEN\nSEEN.append('alpha')\n",
        "beta/__init__.py": "raise RuntimeError('a package without the module is not imported')\n",
        "gamma/__init__.py": "",
        "gamma/policy.py": "from regplug_a.found import SEEN\nSEEN.append('gamma')\n",
        "policy.py": "raise RuntimeError('the package itself is not searched')\n",
    })
    modules = discover("regplug_a", "policy")
    assert [m.__name__ for m in modules] == ["regplug_a.alpha.policy", "regplug_a.gamma.policy"]
    assert discover("regplug_a", "policy") == modules  # once: each module imported a single time
    assert sys.modules["regplug_a.found"].SEEN == ["alpha", "gamma"]
    assert "regplug_a.beta" not in sys.modules
    assert subpackages("regplug_a") == ["regplug_a.alpha", "regplug_a.beta", "regplug_a.gamma"]


def test_import_submodules_imports_every_module_below_a_package(plugin_root: Path) -> None:
    _package(plugin_root, "regplug_b", {"one.py": "", "sub/__init__.py": "", "sub/two.py": ""})
    names = [m.__name__ for m in import_submodules("regplug_b")]
    assert names == ["regplug_b.one", "regplug_b.sub", "regplug_b.sub.two"]


def test_a_discovered_module_that_fails_to_import_raises(plugin_root: Path) -> None:
    _package(plugin_root, "regplug_c", {
        "good/__init__.py": "",
        "good/policy.py": "",
        "bad/__init__.py": "",
        "bad/policy.py": "import regplug_no_such_module\n",
    })
    for _ in range(2):  # not cached as discovered: it fails every time
        with pytest.raises(ImportError, match="regplug_no_such_module"):
            discover("regplug_c", "policy")
    _package(plugin_root, "regplug_d", {"broken.py": "raise ImportError('broken on purpose')\n"})
    with pytest.raises(ImportError, match="broken on purpose"):
        import_submodules("regplug_d")


# -- the command line -----------------------------------------------------------------------------------
def test_subcommand_names_are_unique_across_modules() -> None:
    subcommands = Subcommands(argparse.ArgumentParser().add_subparsers())
    subcommands.owned_by(argparse).add_parser("go", aliases=["g"])
    with pytest.raises(DuplicateName, match="CLI subcommand 'g' is registered twice: by argparse and by textwrap"):
        subcommands.owned_by(textwrap).add_parser("g")
    assert subcommands.registry.names() == ["g", "go"]


def test_a_subcommand_module_that_fails_to_import_fails_the_cli(
        plugin_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _package(plugin_root, "regplug_cli", {"cli.py": "import regplug_missing_dependency\n"})
    monkeypatch.setattr(ndpgpu_cli, "SUBCOMMAND_MODULES", (*ndpgpu_cli.SUBCOMMAND_MODULES, "regplug_cli.cli"))
    monkeypatch.delenv("NDPGPU_DEBUG", raising=False)
    assert ndpgpu_cli.main(["--help"]) == 2  # not a help text without the broken module's commands
    out, err = capsys.readouterr()
    assert out == "" and err.strip() == ("ndpgpu: error: ModuleNotFoundError: No module named "
                                         "'regplug_missing_dependency'")
    with pytest.raises(ModuleNotFoundError):
        ndpgpu_cli.build_parser()
    monkeypatch.setenv("NDPGPU_DEBUG", "1")
    with pytest.raises(ModuleNotFoundError):
        ndpgpu_cli.main(["workloads"])


def test_a_mechanism_cli_module_that_fails_to_import_fails_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    import ndpgpu.mechanisms.cli as mechanisms_cli

    def broken(package: str, module_name: str) -> list:
        raise ImportError(f"cannot import {package}.broken.{module_name}")

    monkeypatch.setattr(mechanisms_cli, "discover", broken)
    with pytest.raises(ImportError, match=r"ndpgpu\.mechanisms\.broken\.cli"):
        ndpgpu_cli.build_parser()


def test_a_subcommand_name_added_twice_fails_the_cli(plugin_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _package(plugin_root, "regplug_dup", {"cli.py": """
        def add_subcommands(subparsers):
            subparsers.add_parser("sweep")
    """})
    monkeypatch.setattr(ndpgpu_cli, "SUBCOMMAND_MODULES", (*ndpgpu_cli.SUBCOMMAND_MODULES, "regplug_dup.cli"))
    with pytest.raises(DuplicateName, match="'sweep' is registered twice: by ndpgpu.experiments.cli and by "
                                           "regplug_dup.cli"):
        ndpgpu_cli.build_parser()


# -- every registry still finds what it found -----------------------------------------------------------
def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_policy_prefixes_are_found_in_the_mechanism_packages() -> None:
    import pkgutil

    import ndpgpu.mechanisms
    from ndpgpu.mechanisms.policy import POLICIES, PolicyError, make_policy

    # every mechanism package with a policy module registers a prefix: found on disk, not listed here, so a
    # new mechanism package is covered without editing this test
    packages = sorted(info.name for info in pkgutil.iter_modules(ndpgpu.mechanisms.__path__)
                      if info.ispkg and importlib.util.find_spec(f"ndpgpu.mechanisms.{info.name}.policy"))
    assert len(packages) >= 5
    assert set(packages) <= set(POLICIES.names())
    assert make_policy("tom:ctrl+tmap") is not None and make_policy("llc:omni") is not None
    with pytest.raises(PolicyError, match=r"prefix one of " + ", ".join(sorted(POLICIES.names()))):
        make_policy("nope:x")


def test_reproductions_workloads_and_executors_are_found() -> None:
    from ndpgpu.experiments.executors import EXECUTORS, ExecutorError, get_executor_class
    from ndpgpu.experiments.report import REPRODUCTIONS, get_reproduction
    from ndpgpu.workloads.base import WORKLOADS, all_workloads, get_workload

    assert {"builtin", "characterization", "gpgpusim", "tom"} <= set(REPRODUCTIONS.names())
    assert get_reproduction("tom").name == "tom"
    assert {"saxpy", "vecadd", "sgemm_naive"} <= set(WORKLOADS.names())
    assert {cls.suite for cls in all_workloads().values()} >= {"builtin", "corpus", "tom"}
    assert get_workload("saxpy").name == "saxpy"
    assert EXECUTORS.names() == ["fake", "simulator"]
    with pytest.raises(ExecutorError, match="known executors: fake, simulator"):
        get_executor_class("nope")


def test_timing_implementations_are_found() -> None:
    from ndpgpu.timing import registry as timing

    assert {"gto", "lrr", "two_level"} <= set(timing.names("warp_scheduler"))
    assert {"round_robin", "greedy"} <= set(timing.names("cta_dispatch"))
    assert {"warp_scheduler", "cta_dispatch", "dram", "address_mapping"} <= set(timing.kinds())
    assert timing.lookup("warp_scheduler", "gto").impl_name == "gto"
    with pytest.raises(timing.UnknownImplementation, match="unknown warp_scheduler implementation 'nope'; "
                                                           "known warp_scheduler implementations: gto"):
        timing.lookup("warp_scheduler", "nope")


def test_cli_subcommands_are_found() -> None:
    commands = _choices(ndpgpu_cli.build_parser())
    assert {"workloads", "run", "main", "machines", "sweep", "results", "reproduce", "analyze"} <= set(commands)
    assert "tom" in _choices(commands["analyze"])


def test_an_unknown_name_among_many_names_how_many_and_how_to_list_them():
    reg = Registry("widget", listing="ndpgpu widgets")
    for i in range(25):
        reg.register(f"w{i:02d}", object())
    with pytest.raises(UnknownName,
                       match=r"^unknown widget .zz.; 25 known widgets \(list them with `ndpgpu widgets`\)$"):
        reg.get("zz")
    with pytest.raises(UnknownName, match=r"did you mean .*'w07'.*\? 25 known widgets"):
        reg.get("w7")
    plain = Registry("gadget")
    for i in range(25):
        plain.register(f"g{i:02d}", object())
    with pytest.raises(UnknownName, match=r"25 known gadgets: g00, g01, .*, g19, \.\.\.$"):
        plain.get("zz")


def test_an_outside_mechanisms_policy_module_is_found_beside_its_hardware(tmp_path, monkeypatch) -> None:
    from ndpgpu.registry import external_mechanisms, external_siblings

    pkg = tmp_path / "outside_mech_demo"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "hardware.py").write_text("raise AssertionError('the hardware is the engine\\'s to import')\n")
    (pkg / "policy.py").write_text("IMPORTED = True\n")
    lone = tmp_path / "outside_mech_lone"  # a hardware module with no policy beside it: skipped
    lone.mkdir()
    (lone / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NDPGPU_MECHANISMS", " outside_mech_demo.hardware, outside_mech_lone.hardware,"
                                            "outside_mech_demo.hardware")
    assert external_mechanisms()[:2] == ["outside_mech_demo.hardware", "outside_mech_lone.hardware"]
    found = external_siblings("policy")
    assert [m.__name__ for m in found] == ["outside_mech_demo.policy"] and found[0].IMPORTED
    (pkg / "cli.py").write_text("import no_such_module_here\n")  # one that exists but fails: raises
    with pytest.raises(ModuleNotFoundError, match="no_such_module_here"):
        external_siblings("cli")
