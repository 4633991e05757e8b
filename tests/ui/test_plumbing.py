"""The one way to listen to the model (ModelSignals) and the one background helper (Worker)."""

import gc
import threading

import shiboken6
from PySide6.QtWidgets import QWidget

from fabricstudio.model import Design, Leaf
from fabricstudio.ui.background import (
    Call,
    Reported,
    Stopped,
    Worker,
    abandon,
    running_workers,
    wait_for_background_work,
)
from fabricstudio.ui.model_signals import ModelSignals


class _Listener(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list = []

    def on_any(self) -> None:
        self.seen.append("changed")

    def on_id(self, device_id: str) -> None:
        self.seen.append(device_id)


def test_slots_get_the_arguments_they_take_until_disconnected(qtbot):
    design, widget = Design(), _Listener()
    qtbot.addWidget(widget)
    signals = ModelSignals(widget)
    signals.connect(design.changed, widget.on_any)
    signals.connect(design.device_added, widget.on_id)
    design.add_device(Leaf(id="leaf1"))
    assert widget.seen == ["leaf1", "changed"]
    signals.disconnect_all()
    design.add_device(Leaf(id="leaf2"))
    assert widget.seen == ["leaf1", "changed"]


def test_a_deleted_widget_is_never_called(qtbot):
    design, widget = Design(), _Listener()
    ModelSignals(widget).connect(design.changed, widget.on_any)
    seen = widget.seen
    shiboken6.delete(widget)
    design.add_device(Leaf(id="leaf1"))  # no RuntimeError from a dead C++ object
    assert seen == []


def test_a_worker_ends_with_a_result_an_error_or_a_stop(qtbot):
    done = Call(lambda: 42)
    with qtbot.waitSignal(done.succeeded) as blocker:
        done.start()
    assert blocker.args == [42]
    broken = Call(lambda: 1 / 0)
    with qtbot.waitSignal(broken.failed) as blocker:
        broken.start()
    assert blocker.args == ["ZeroDivisionError: division by zero"]

    def reported():
        raise Reported("the child process ended unexpectedly")

    told = Call(reported)
    with qtbot.waitSignal(told.failed) as blocker:
        told.start()
    assert blocker.args == ["the child process ended unexpectedly"]

    class Spin(Worker):
        def work(self):
            while True:
                self.check_stop()

    spin = Spin()
    spin.start()
    spin.request_stop()
    assert spin.wait(5000) and spin.stopped
    for worker in (done, broken, told):
        worker.wait()
    assert issubclass(Stopped, Exception)


def test_garbage_is_collected_on_the_gui_thread_while_a_worker_runs(qtbot):
    """An automatic collection started by a worker's allocations would destroy the GUI's
    unreachable Qt objects on the worker thread (a crash); while workers run, the GUI
    thread collects instead."""
    gc.collect()
    collected_on: list[bool] = []

    class Cycle:
        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            collected_on.append(threading.current_thread() is threading.main_thread())

    def allocate() -> int:
        kept = [[] for _ in range(50_000)]  # far past the collector's allocation threshold
        return len(kept)

    worker = Call(allocate)
    with qtbot.waitSignal(worker.succeeded):
        Cycle()  # garbage (an unreachable cycle) for the next collection
        worker.start()
    assert wait_for_background_work(10) and not running_workers()
    assert gc.isenabled()  # handed back once no worker runs
    gc.collect()
    assert collected_on == [True]


def test_the_collector_comes_back_when_a_finished_notice_never_arrives(qtbot):
    """The registry hands the collector back once no worker runs, also when a worker's
    queued ``finished`` reaches it without its sender (or not at all): it used to trust
    ``sender()`` alone and then kept the collector paused for the rest of the session."""
    from fabricstudio.ui import background

    release = threading.Event()
    worker = Call(lambda: release.wait(10))
    worker.start()
    assert not gc.isenabled()
    worker.finished.disconnect(background._registry()._on_finished)  # the notice is lost
    release.set()
    assert worker.wait(10_000)
    assert wait_for_background_work(10) and not running_workers()
    assert gc.isenabled()


def test_a_parent_may_let_go_of_a_running_worker(qtbot):
    parent = QWidget()
    release = threading.Event()
    worker = Call(lambda: release.wait(10), parent)
    worker.start()
    abandon(worker)
    assert worker.parent() is None
    shiboken6.delete(parent)  # a running QThread dying with its parent would abort
    assert worker in running_workers()
    release.set()
    assert wait_for_background_work(10) and worker not in running_workers()


def test_a_worker_its_owner_deletes_when_it_finishes_is_forgotten(qtbot):
    """The owner's ``finished`` slot deletes the worker before the registry hears of it (the
    sweep and comparison panels do): the registry forgets it and hands the collector back."""
    owner = QWidget()
    worker = Call(lambda: 1, owner)

    def done() -> None:
        worker.wait()
        shiboken6.delete(worker)  # what a deleteLater may do before the registry's slot runs

    worker.finished.connect(done)
    worker.start()
    qtbot.waitUntil(lambda: not shiboken6.isValid(worker), timeout=10_000)
    assert running_workers() == []  # not: "Internal C++ object already deleted"
    assert wait_for_background_work(10)
    assert gc.isenabled()
