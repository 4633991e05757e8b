"""Undo and Redo actions with fixed labels: the toolbar never changes width as commands come
and go; the command's plain-language name is in the tooltip and the status tip (and in the
Edit menu's tooltip), e.g. "Undo: Add 8 GPU servers (Ctrl+Z)"."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence, QUndoStack


def _keys(action: QAction) -> str:
    return action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)


def undo_redo_actions(parent, stack: QUndoStack) -> tuple[QAction, QAction]:
    """(Undo, Redo) actions following ``stack``."""
    undo = QAction("&Undo", parent)
    undo.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
    redo = QAction("&Redo", parent)
    # Both keys everywhere: QKeySequence.Redo is Ctrl+Shift+Z on Linux desktops (listing
    # it as well registered that key twice and left Ctrl+Y unbound) and Ctrl+Y on Windows.
    redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    undo.triggered.connect(lambda _=False: stack.undo())
    redo.triggered.connect(lambda _=False: stack.redo())

    def follow(*_args) -> None:
        try:
            states = ((undo, "Undo", stack.canUndo(), stack.undoText()),
                      (redo, "Redo", stack.canRedo(), stack.redoText()))
        except RuntimeError:  # the stack is being destroyed with its window
            return
        for action, verb, can, text in states:
            action.setEnabled(can)
            tip = f"{verb}: {text}" if can and text else f"Nothing to {verb.lower()}"
            action.setToolTip(f"{tip}  ({_keys(action)})")
            action.setStatusTip(tip)

    for signal in (stack.canUndoChanged, stack.canRedoChanged, stack.undoTextChanged,
                   stack.redoTextChanged, stack.indexChanged):
        signal.connect(follow)
    follow()
    parent.addAction(undo)
    parent.addAction(redo)
    return undo, redo
