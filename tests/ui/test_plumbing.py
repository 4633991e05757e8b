"""The one way to listen to the model (ModelSignals) and the one background helper (Worker)."""

import shiboken6
from PySide6.QtWidgets import QWidget

from fabricstudio.model import Design, Leaf
from fabricstudio.ui.background import Call, Reported, Stopped, Worker
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
