"""The Qt adapter of the model's commands: one QUndoStack for every change of the design.

A model command is applied *before* it is pushed, so a refused change (DesignError) never
reaches the stack and leaves the design untouched; the wrapper skips the first ``redo`` that
QUndoStack.push performs.  Consecutive commands that :meth:`Command.merge` accepts (edits of
the same field of the same objects) become one undo step.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import contextmanager

from PySide6.QtGui import QUndoCommand, QUndoStack

from fabricstudio.model import Design
from fabricstudio.model.commands import Command

#: QUndoCommand.id of the commands that may merge (the model decides in Command.merge).
MERGEABLE = 1


class DesignUndoCommand(QUndoCommand):
    """A QUndoCommand wrapping one Qt-free :class:`Command` already applied to ``design``."""

    def __init__(self, design: Design, command: Command) -> None:
        super().__init__(command.label)
        self.design = design
        self.command = command
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False
            return
        self.command.do(self.design)

    def undo(self) -> None:
        self.command.undo(self.design)

    def id(self) -> int:  # noqa: A003 - QUndoCommand API
        """Commands that can merge share one id; QUndoStack then offers them mergeWith."""
        return MERGEABLE if type(self.command).merge is not Command.merge else -1

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - QUndoCommand API
        if not isinstance(other, DesignUndoCommand) or not self.command.merge(other.command):
            return False
        self.setText(self.command.label)
        return True


class DesignUndoStack(QUndoStack):
    """The window's undo stack; :meth:`run` applies a command and records it."""

    def __init__(self, design: Design, parent=None) -> None:
        super().__init__(parent)
        self.design = design

    def run(self, command: Command) -> None:
        """Apply ``command`` (DesignError propagates, nothing recorded) and push it."""
        command.do(self.design)
        self.push(DesignUndoCommand(self.design, command))

    def run_all(self, commands: Iterable[Command], label: str) -> None:
        """Apply several commands as ONE undo step; all or nothing."""
        done: list[Command] = []
        try:
            for command in commands:
                command.do(self.design)
                done.append(command)
        except Exception:
            for command in reversed(done):
                command.undo(self.design)
            raise
        if not done:
            return
        if len(done) == 1:
            self.push(DesignUndoCommand(self.design, done[0]))
            return
        with self.macro(label):
            for command in done:
                self.push(DesignUndoCommand(self.design, command))

    @contextmanager
    def macro(self, label: str):
        """beginMacro/endMacro as a context manager."""
        self.beginMacro(label)
        try:
            yield
        finally:
            self.endMacro()
