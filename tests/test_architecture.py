"""The layout holds: the import-linter contracts are kept, no module is in an import cycle (imports
inside functions counted), every module of the project has a place in the layers, nobody imports
another module's private names, and no module grows past about 500 lines."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support import ROOT

CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
PACKAGES = CONFIG["root_packages"]
MAX_LINES = 520  # "about 500": a module longer than that is usually two concepts


def project_modules() -> dict[str, Path]:
    """Every module of the root packages (migrations aside: Django writes those), by dotted name."""
    modules = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if "migrations" in parts:
                continue
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            modules[name] = path
    return modules


MODULES = project_modules()


def imports_of(name: str, path: Path) -> set[str]:
    """The project modules `name` imports, wherever the import stands (a function's body included)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([node.module] if node.module else [])])
            # `from package import module` imports the module; `from module import name`, the module.
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def test_the_import_linter_contracts_are_kept():
    # Its own process, as `make lint` runs it: the test run's imports are not the project's.
    done = subprocess.run(
        [str(Path(sys.executable).with_name("lint-imports")), "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_module_is_in_an_import_cycle():
    graph = {name: imports_of(name, path) for name, path in MODULES.items()}
    # Tarjan's strongly connected components: a component of two or more modules is a cycle.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    assert cycles == []


def _layer_modules() -> list[str]:
    main = CONFIG["contracts"][0]
    names = []
    for layer in main["layers"]:
        for part in layer.replace("|", ":").replace("\\", " ").split(":"):
            names.append(part.strip())
    return names


def test_every_module_has_a_place_in_the_layers():
    """A module outside every layer would be checked by no contract: each one is in a layer (or is a
    package, an app's configuration, or a command's entry point)."""
    layers = _layer_modules()
    unplaced = [
        name
        for name in MODULES
        if name not in PACKAGES
        and not name.endswith(".apps")
        and not any(name == layer or name.startswith(f"{layer}.") for layer in layers)
    ]
    assert unplaced == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_imports_another_modules_private_names(name):
    tree = ast.parse(MODULES[name].read_text())
    private = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and not node.level and node.module in MODULES
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert private == []


def test_no_module_is_over_about_500_lines():
    long = {
        name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert long == {}
