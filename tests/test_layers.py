"""The package's layers: a module imports only from its own layer or lower ones.

Lowest first: ``engine`` (the rules and the compiled batch simulator) < ``ingest`` (log
formats, validation, the archive and its row builders) < ``simulation`` (simulation runs
into the archive or log files, Dask) < ``analytics`` < ``reports`` < ``web`` < the CLI
(``skatlog.cli``, ``skatlog.commands``, ``skatlog.__main__``). The package root
``skatlog/__init__.py`` (``__version__``) sits below them all.

Every import counts: at module level, inside functions, under ``if TYPE_CHECKING``,
relative or absolute, and ``importlib.import_module`` with a literal name. See
``docs/architecture.md``.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "skatlog"
#: Layer names, lowest first; ``root`` is the package's own ``__init__``.
LAYERS = ("root", "engine", "ingest", "simulation", "analytics", "reports", "web", "cli")
#: The first name below ``skatlog`` -> its layer (``skatlog.cli`` and friends are the CLI).
TOP = {"engine": "engine", "ingest": "ingest", "simulation": "simulation",
       "analytics": "analytics", "reports": "reports", "web": "web", "cli": "cli",
       "commands": "cli", "__main__": "cli"}


@dataclass(frozen=True)
class Violation:
    """One import of a higher layer's module."""

    path: str
    line: int
    layer: str
    imported: str
    imported_layer: str

    def __str__(self) -> str:
        return (f"{self.path}:{self.line}: {self.layer} imports {self.imported} "
                f"({self.imported_layer}, a higher layer)")


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``skatlog.engine.batch.kernel`` for ``<package>/engine/batch/kernel.py``."""
    parts = list(path.relative_to(package).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["skatlog", *parts])


def layer_of(module: str) -> str | None:
    """The layer of a ``skatlog.*`` module name, or None for a module outside skatlog."""
    parts = module.split(".")
    if parts[0] != "skatlog":
        return None
    if len(parts) == 1 or (parts[1] not in TOP and parts[1].startswith("__")):
        return "root"  # the package root or one of its attributes (``__version__``)
    return TOP.get(parts[1], "unknown")


def imported_modules(source: str, module: str, is_package: bool
                     ) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``source``, anywhere in the tree.

    ``from skatlog import name`` yields ``skatlog.name`` too, since ``name`` may be a
    layer's package (``from skatlog import ingest``); below the root, ``X.name`` is in X's
    layer anyway."""
    package = module if is_package else module.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                up = node.level - 1
                if up >= len(base):
                    raise ValueError(f"{module}: line {node.lineno}: relative import "
                                     "beyond the package")
                base = base[:len(base) - up] if up else base
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.append((node.lineno, target))
            if target == "skatlog":  # the name may be a layer's package
                found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and _call_name(node.func) in ("import_module", "importlib.import_module",
                                            "__import__")):
            found.append((node.lineno, node.args[0].value))
    return found


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""


def violations(path: Path, source: str, module: str, shown: str) -> list[Violation]:
    """The imports in ``source`` (module ``module``, file ``shown``) of higher layers."""
    layer = layer_of(module)
    assert layer in LAYERS, f"{shown}: module {module} belongs to no layer"
    rank = LAYERS.index(layer)
    out = []
    for line, target in imported_modules(source, module, path.name == "__init__.py"):
        other = layer_of(target)
        if other is None:
            continue
        if other not in LAYERS:
            raise AssertionError(f"{shown}:{line}: imports {target}, which belongs to no "
                                 f"layer (add it to LAYERS in tests/test_layers.py)")
        if LAYERS.index(other) > rank:
            out.append(Violation(shown, line, layer, target, other))
    return out


def package_files(package: Path = PACKAGE) -> list[Path]:
    """Every ``.py`` file of the package, through its symbolic links."""
    files = [Path(folder, name) for folder, _dirs, names in os.walk(package, followlinks=True)
             for name in names if name.endswith(".py")]
    return sorted(f for f in files if "__pycache__" not in f.parts)


def shown_path(path: Path, package: Path = PACKAGE) -> str:
    """The file as the repository names it (``engine/simulate.py``, not the link)."""
    rel = path.relative_to(package)
    top = package / rel.parts[0]
    if top.is_symlink():
        return str(Path(rel.parts[0], *rel.parts[1:]))
    return str(Path("src", "skatlog", rel))


def test_every_module_imports_only_its_own_layer_or_lower() -> None:
    files = package_files()
    assert len(files) > 50  # the links were followed
    found: list[Violation] = []
    for path in files:
        found += violations(path, path.read_text(encoding="utf-8"), module_name(path),
                            shown_path(path))
    assert not found, "imports from a higher layer:\n" + "\n".join(map(str, found))


def test_every_top_level_package_has_a_layer() -> None:
    for entry in PACKAGE.iterdir():
        if entry.name in ("__pycache__", "py.typed") or entry.name.endswith(".pyc"):
            continue
        name = entry.name.removesuffix(".py")
        assert name == "__init__" or name in TOP, \
            f"src/skatlog/{entry.name} belongs to no layer: add it to tests/test_layers.py"


@pytest.mark.parametrize(("module", "is_package", "source", "expected"), [
    # a function-level absolute import from engine into ingest
    ("skatlog.engine.simulate", False,
     "def f():\n    from skatlog.ingest.schema import x\n",
     ["engine/x.py:2: engine imports skatlog.ingest.schema (ingest, a higher layer)"]),
    # a relative import two packages up, from engine.batch into ingest
    ("skatlog.engine.batch.encode", False, "from ...ingest import rows\n",
     ["engine/x.py:1: engine imports skatlog.ingest (ingest, a higher layer)"]),
    # from the package root, a higher layer by the imported name; import_module by name
    ("skatlog.ingest", True,
     "from skatlog import __version__, simulation\nimport importlib\n"
     "importlib.import_module('skatlog.web.app')\n",
     ["engine/x.py:1: ingest imports skatlog.simulation (simulation, a higher layer)",
      "engine/x.py:3: ingest imports skatlog.web.app (web, a higher layer)"]),
    # the same or lower layers, and other packages, are fine
    ("skatlog.simulation.runs", False,
     "import numpy\nfrom skatlog.engine import Card\nfrom ..ingest.rows import x\n"
     "from . import files\n", []),
])
def test_the_checker_finds_imports_of_every_kind(module: str, is_package: bool, source: str,
                                                 expected: list[str]) -> None:
    path = Path("x.py") if not is_package else Path("__init__.py")
    found = [str(v) for v in violations(path, source, module, "engine/x.py")]
    assert found == expected


def test_an_unknown_layer_is_an_error() -> None:
    with pytest.raises(AssertionError, match="belongs to no layer"):
        violations(Path("x.py"), "import skatlog.plugins.x\n", "skatlog.engine.cards",
                   "engine/cards.py")
