"""Layering guard: the Qt-free packages import no Qt or pyqtgraph (checked in a fresh process)."""

import subprocess
import sys

import pytest

QT_FREE = ["fabricstudio.model", "fabricstudio.formats", "fabricstudio.topology",
           "fabricstudio.sim", "fabricstudio.interop", "fabricstudio.cli"]


@pytest.mark.parametrize("package", QT_FREE)
def test_package_imports_no_qt(package):
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module({package!r})\n"
        "for info in pkgutil.walk_packages(getattr(pkg, '__path__', []), pkg.__name__ + '.'):\n"
        "    importlib.import_module(info.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph') or m.startswith('fabricstudio.ui'))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{package} pulled in: {out.stdout.strip()}"


def test_model_imports_no_engines():
    code = ("import sys, fabricstudio.model, fabricstudio.model.commands\n"
            "print(','.join(m for m in ('networkx', 'simpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_gui_start_does_not_load_the_interop_formats():
    """YAML, XML and the format registry load when File > Export to first opens."""
    code = ("import sys, fabricstudio.ui.main_window\n"
            "print(','.join(m for m in ('yaml', 'fabricstudio.interop.api') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == ""


#: Attribute probes the UI may keep: a bound-method check (weak slots) and a Qt-version
#: feature test.  Everything else it reads through typed interfaces (ItemScene for canvas
#: items, the SimulationSource protocol, the analysis report's models, ...).
ALLOWED_PROBES = {("hasattr", "__self__"), ("hasattr", "setFeature")}


def test_the_ui_does_not_probe_attributes_by_name():
    import ast
    from pathlib import Path

    import fabricstudio.ui

    found = []
    for path in sorted(Path(fabricstudio.ui.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
                    and isinstance(node.args[1], ast.Constant)
                    and (node.func.id, node.args[1].value) not in ALLOWED_PROBES):
                found.append(f"{path.name}:{node.lineno} {node.func.id}(..., "
                             f"{node.args[1].value!r})")
    assert not found, "attribute probing instead of a typed interface: " + ", ".join(found)


#: Process-global switches and the one module allowed to flip each: the collector's on/off
#: state (model/bulk.py pause_collector/resume_collector, counting pauses from any thread)
#: and the file-creation mask (nobody: files get their modes explicitly).
PROCESS_SWITCHES = {("gc", "disable"): {"bulk.py"}, ("gc", "enable"): {"bulk.py"},
                    ("os", "umask"): set()}


def test_process_global_switches_have_one_owner():
    import ast
    from pathlib import Path

    import fabricstudio

    found = []
    for path in sorted(Path(fabricstudio.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)):
                owners = PROCESS_SWITCHES.get((node.func.value.id, node.func.attr))
                if owners is not None and path.name not in owners:
                    found.append(f"{path.relative_to(path.parents[1])}:{node.lineno} "
                                 f"{node.func.value.id}.{node.func.attr}()")
    assert not found, "process-global switch flipped outside its owner: " + ", ".join(found)


def test_the_ui_listens_to_the_model_and_works_in_the_background_one_way_each():
    """Model signals are connected only through ui.model_signals.ModelSignals (whose
    connections die with their widget), and background work runs only in ui.background's
    Worker (no other QThread subclass, thread pool or bare thread, except the comparison's
    waiting threads inside its own Worker)."""
    import ast
    from pathlib import Path

    import psygnal

    import fabricstudio.ui
    from fabricstudio.model import Design

    signals = {n for n in dir(Design) if isinstance(getattr(Design, n, None), psygnal.Signal)}
    threads_allowed = {"background.py", "worker.py"}
    found = []
    for path in sorted(Path(fabricstudio.ui.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.name}:{getattr(node, 'lineno', 0)}"
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "connect" and isinstance(node.func.value, ast.Attribute)
                    and node.func.value.attr in signals
                    and ast.unparse(node.func.value.value).endswith("design")
                    and path.name != "model_signals.py"):
                found.append(f"{where} {ast.unparse(node.func.value)}.connect")
            if isinstance(node, ast.ClassDef) and path.name != "background.py" and any(
                    isinstance(b, ast.Name) and b.id in ("QThread", "QRunnable")
                    for b in node.bases):
                found.append(f"{where} class {node.name}")
            if (isinstance(node, ast.Attribute) and node.attr in ("Thread", "QThreadPool",
                                                                   "ThreadPoolExecutor")
                    and path.name not in threads_allowed):
                found.append(f"{where} {node.attr}")
    assert not found, "model signal or background work outside the one helper: " + ", ".join(
        found)
