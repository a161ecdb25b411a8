"""The build is reproducible: every package the code imports is declared in pyproject.toml, every
declaration caps its major version, and the lock files pin a version each declaration allows."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# Our own top-level packages and the modules bench/ and tests/ import from beside themselves.
OURS = (
    {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()}
    | {"bench"}
    | {p.stem for p in (ROOT / "bench").glob("*.py")}
)


def _requirements(group: str | None) -> list[Requirement]:
    lines = PYPROJECT["project"]["dependencies"] if group is None else PYPROJECT["dependency-groups"][group]
    return [Requirement(line) for line in lines]


def _locked(path: Path) -> dict[str, list[Version]]:
    """Name -> the versions the lock file pins (one per platform marker)."""
    pins: dict[str, list[Version]] = {}
    for match in re.finditer(r"^([A-Za-z0-9_.\-]+)==([^\s;\\]+)", path.read_text(), re.MULTILINE):
        pins.setdefault(canonicalize_name(match[1]), []).append(Version(match[2]))
    return pins


def _imported_top_levels() -> set[str]:
    names: set[str] = set()
    for folder in [*(ROOT / p for p in OURS if (ROOT / p).is_dir()), ROOT / "bench"]:
        for path in folder.rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in OURS and n != "__future__"}


def test_every_imported_package_is_declared():
    declared = {canonicalize_name(r.name) for r in _requirements(None) + _requirements("dev")}
    providers = packages_distributions()
    missing = {}
    for name in sorted(_imported_top_levels()):
        dists = {canonicalize_name(d) for d in providers.get(name, [])}
        assert dists, f"`import {name}`: no installed distribution provides it"
        if not dists & declared:
            missing[name] = sorted(dists)
    assert not missing, f"imported but not declared in pyproject.toml: {missing}"


def test_every_declaration_caps_its_major():
    for requirement in _requirements(None) + _requirements("dev"):
        operators = {spec.operator for spec in requirement.specifier}
        assert operators & {"<", "==", "~="}, f"{requirement} has no upper bound"


def test_the_lock_files_pin_what_pyproject_allows():
    for group, lock in ((None, "base.txt"), ("dev", "dev.txt")):
        pins = _locked(ROOT / "requirements" / lock)
        wanted = _requirements(None) + (_requirements(group) if group else [])
        for requirement in wanted:
            versions = pins.get(canonicalize_name(requirement.name))
            assert versions, f"{requirement.name} is not in requirements/{lock}: run `make lock`"
            for version in versions:
                assert requirement.specifier.contains(version, prereleases=True), (
                    f"requirements/{lock} pins {requirement.name}=={version},"
                    f" outside {requirement.specifier}: run `make lock`"
                )


def test_the_lock_files_carry_hashes():
    for lock in ("base.txt", "dev.txt"):
        text = (ROOT / "requirements" / lock).read_text()
        pins = re.findall(r"^[A-Za-z0-9_.\-]+==", text, re.MULTILINE)
        hashed = re.findall(r"^[A-Za-z0-9_.\-]+==[^\n]*\\\n\s+--hash=sha256:", text, re.MULTILINE)
        assert pins and len(hashed) == len(pins), f"requirements/{lock}: every pin needs its hashes"
