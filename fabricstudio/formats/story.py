"""The storyboard file: a guided demo, stepped with the arrow keys or a presentation clicker.

::

    {"format": "fabricstudio-story", "version": 1, "name": "...",
     "design": "demo-rail64.design.json", "scenario": "demo-training-incast.scenario.json",
     "steps": [
       {"caption": "64 GPUs train; a second job's burst arrives", "camera": "fit",
        "fabric": "roce", "event": "start", "play_speed": 0.0005},
       {"caption": "", "camera": {"objects": ["leaf1", "server1"]},
        "fabric": "ethernet", "event": "first_drop"},
       {"caption": "Same run, four fabrics", "fabric": ["infiniband", "roce", "roce-pfc",
        "ethernet"], "event": "end"}]}

A step says what to show: ``caption`` (empty: the run's own caption at that moment), ``camera``
(``"fit"``, ``{"objects": [device ids]}`` or ``{"rectangle": [x, y, width, height]}`` in canvas
units), ``fabric`` (one of :data:`FABRICS`, or a list of 2 or 4 for a side-by-side view;
omitted: as the previous step), the moment (``time_s`` or ``event``, not both; neither: where
the previous step left off), ``play_speed`` (simulated seconds per wall second to play from
there; 0 holds still) and ``hold_s`` (wall seconds the step stays up in a kiosk loop or a
recording).  ``design`` and ``scenario`` are plain file names next to the story file (or in
the bundled demos); a story never reaches elsewhere.

Loading trusts nothing: size, encoding, JSON syntax (duplicate keys, NaN and Infinity are
refused), the envelope and every field are checked, and a failure raises :class:`StoryError`
with one line naming the file and the problem.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from fabricstudio.formats.envelope import (
    EnvelopeError,
    FileError,
    FileKind,
    body_of,
    check_envelope,
)
from fabricstudio.formats.reading import InputError, decode_json, read_input
from fabricstudio.model import format_validation_error
from fabricstudio.model.strict import StrictNumbers

FORMAT_NAME = "fabricstudio-story"
CURRENT_VERSION = 1
#: How the envelope check names story files.
STORY_FILE = FileKind(noun="story", format_name=FORMAT_NAME, current_version=CURRENT_VERSION,
                      version_label="story version",
                      newer="written by a newer FabricStudio ({label} {version}; this version "
                            "reads {current})")
#: Largest story file accepted (a story is a few KB; this leaves room for long ones).
MAX_FILE_BYTES = 1024 * 1024
MAX_STEPS = 500
MAX_CAPTION = 400
#: Fabric choices of a step: the four of the comparison.
FABRICS = ("infiniband", "roce", "roce-pfc", "ethernet")
#: Moments a step can jump to (the live view's bookmarks, sim.metrics.MOMENTS, plus the
#: run's start and end).
Event = Literal["start", "first_pause", "peak_queue", "first_drop", "first_ecn", "end"]
EVENTS: tuple[str, ...] = get_args(Event)
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._ -]{0,200}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")

Fabric = Literal["infiniband", "roce", "roce-pfc", "ethernet"]
Text = Annotated[str, Field(max_length=MAX_CAPTION)]


class StoryError(FileError):
    """A story file could not be read; ``str()`` is the one-line message for the user."""


class _Strict(StrictNumbers):
    """Numbers are numbers (no ``true``, no ``"6"``), nothing unknown, nothing infinite."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class ObjectsCamera(_Strict):
    """Frame these devices (ids of the design)."""

    objects: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        min_length=1, max_length=10_000)


class RectangleCamera(_Strict):
    """Frame this rectangle of the canvas: x, y, width, height (canvas units)."""

    rectangle: tuple[float, float, float, float]

    @field_validator("rectangle", mode="before")
    @classmethod
    def _numbers(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)) and any(isinstance(v, (bool, str)) for v in value):
            raise ValueError("expected four numbers [x, y, width, height], found a boolean or "
                             "text")
        return value

    @field_validator("rectangle")
    @classmethod
    def _positive(cls, value: tuple[float, float, float, float]
                  ) -> tuple[float, float, float, float]:
        if not all(math.isfinite(v) and abs(v) <= 1e7 for v in value):
            raise ValueError("coordinates must be finite numbers within 1e7")
        if value[2] <= 0 or value[3] <= 0:
            raise ValueError("width and height must be positive")
        return value


Camera = Literal["fit"] | ObjectsCamera | RectangleCamera


class StoryStep(_Strict):
    """One step of a story (see the module docstring)."""

    caption: Text = ""
    camera: Camera = "fit"
    fabric: Fabric | list[Fabric] | None = None
    time_s: float | None = Field(default=None, ge=0.0, le=1e4)
    event: Event | None = None
    play_speed: float = Field(default=0.0, ge=0.0, le=10.0,
                              description="simulated seconds per wall second; 0 holds still")
    hold_s: float = Field(default=6.0, gt=0.0, le=600.0)

    @field_validator("caption")
    @classmethod
    def _printable(cls, value: str) -> str:
        if _CONTROL.search(value):
            raise ValueError("control characters are not allowed")
        return value

    @field_validator("fabric")
    @classmethod
    def _fabric_count(cls, value: Any) -> Any:
        if isinstance(value, list):
            if len(value) not in (1, 2, 4):
                raise ValueError("a side-by-side step shows 2 or 4 fabrics")
            if len(set(value)) != len(value):
                raise ValueError("a fabric is listed twice")
            if len(value) == 1:
                return value[0]
        return value

    @model_validator(mode="after")
    def _one_moment(self) -> StoryStep:
        if self.time_s is not None and self.event is not None:
            raise ValueError("give time_s or event, not both")
        return self

    @property
    def fabrics(self) -> tuple[str, ...]:
        """The fabrics shown (empty: as before)."""
        if self.fabric is None:
            return ()
        return tuple(self.fabric) if isinstance(self.fabric, list) else (self.fabric,)


class Story(_Strict):
    """A storyboard: name, optional design and scenario files, and its steps."""

    name: Text = ""
    description: Annotated[str, Field(max_length=4000)] = ""
    design: str | None = None
    scenario: str | None = None
    loop: bool = Field(default=False, description="start again after the last step (kiosk)")
    steps: list[StoryStep] = Field(min_length=1, max_length=MAX_STEPS)

    @field_validator("design", "scenario")
    @classmethod
    def _plain_file_name(cls, value: str | None) -> str | None:
        if value is not None and (not _FILE_NAME.match(value) or ".." in value):
            raise ValueError("must be a plain file name next to the story (no folders)")
        return value

    @field_validator("name", "description")
    @classmethod
    def _no_control(cls, value: str) -> str:
        if _CONTROL.search(value):
            raise ValueError("control characters are not allowed")
        return value


# ---------------------------------------------------------------------- reading
def _decode(raw: bytes | str, source: str | os.PathLike[str]) -> Any:
    try:
        return decode_json(raw, source, MAX_FILE_BYTES)
    except InputError as exc:
        raise StoryError(source, exc.problem) from None


def parse_story(raw: bytes | str, source: str | os.PathLike[str] = "<input>") -> Story:
    """Parse story-file text or bytes into a validated :class:`Story`."""
    doc = _decode(raw, source)
    return story_from_dict(doc, source)


def story_from_dict(doc: Any, source: str | os.PathLike[str] = "<input>") -> Story:
    """Validate an already decoded story document (with its format and version)."""
    try:
        check_envelope(doc, STORY_FILE)
    except EnvelopeError as exc:
        raise StoryError(source, exc.problem) from None
    body = body_of(doc)
    try:
        return Story.model_validate(body)
    except ValidationError as exc:
        raise StoryError(source, format_validation_error(exc)) from None
    except RecursionError:
        raise StoryError(source, "data is nested too deeply") from None


def load_story(path: str | os.PathLike[str]) -> Story:
    """Read and validate a story file (regular files only)."""
    try:
        raw = read_input(path, MAX_FILE_BYTES)
    except InputError as exc:
        raise StoryError(path, exc.problem) from None
    return parse_story(raw, source=path)


def dump_story(story: Story) -> str:
    """The story as story-file JSON text (defaults left out)."""
    body = story.model_dump(mode="json", exclude_defaults=True)
    body["steps"] = [step.model_dump(mode="json", exclude_defaults=True)
                     for step in story.steps]
    doc = {"format": FORMAT_NAME, "version": CURRENT_VERSION, **body}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
