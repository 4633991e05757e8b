"""Demos shipped inside the package: a story with the design and scenario it tells about.

Every ``fabricstudio/resources/demos/*.story.json`` is a demo named after its file
(``training-incast``); its ``design`` and ``scenario`` fields name files in the same folder.
They are read with :mod:`importlib.resources`, so an installed wheel finds them anywhere.
Stories on disk resolve their design and scenario next to the story file the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from fabricstudio.formats import parse_design
from fabricstudio.formats.design_file import DesignFileError
from fabricstudio.formats.story import Story, StoryError, load_story, parse_story
from fabricstudio.model import Design
from fabricstudio.sim.scenario import Scenario, ScenarioError, parse_scenario

STORY_SUFFIX = ".story.json"


class DemoError(ValueError):
    """A demo or a story's files could not be found or read (one line for the user)."""


@dataclass(frozen=True)
class Demo:
    """A story with its design and scenario, ready to present."""

    name: str
    story: Story
    design: Design
    scenario: Scenario | None
    #: Where the story came from (a package resource or a file path), for messages.
    source: str

    @property
    def title(self) -> str:
        """The story's name (the demo's file name when it has none)."""
        return self.story.name or self.name


def demos_folder() -> Traversable:
    """The bundled demos (``fabricstudio/resources/demos``)."""
    return resources.files("fabricstudio").joinpath("resources", "demos")


def demo_names() -> list[str]:
    """Names of the bundled demos, sorted."""
    return sorted(entry.name[:-len(STORY_SUFFIX)] for entry in demos_folder().iterdir()
                  if entry.name.endswith(STORY_SUFFIX) and entry.is_file())


def load_demo(name: str | None = None) -> Demo:
    """A bundled demo by name (None: the first); DemoError naming the choices when unknown."""
    names = demo_names()
    if not names:
        raise DemoError("this installation has no bundled demos")
    name = names[0] if name is None else name.removesuffix(STORY_SUFFIX)
    if name not in names:
        raise DemoError(f"no demo named {name!r}; the demos are: {', '.join(names)}")
    folder = demos_folder()
    entry = folder.joinpath(name + STORY_SUFFIX)
    source = f"demo {name}"
    try:
        story = parse_story(entry.read_bytes(), source=source)
    except StoryError as exc:
        raise DemoError(str(exc)) from None
    return _with_files(name, story, folder, source)


def load_story_file(path: str | Path) -> Demo:
    """A story file from disk with the design and scenario named next to it."""
    path = Path(path)
    try:
        story = load_story(path)
    except StoryError as exc:
        raise DemoError(str(exc)) from None
    name = path.name.removesuffix(STORY_SUFFIX).removesuffix(".json")
    return _with_files(name, story, path.parent, str(path))


def _with_files(name: str, story: Story, folder: Traversable | Path, source: str) -> Demo:
    if story.design is None:
        raise DemoError(f"{source}: the story names no design file")
    design_entry = folder.joinpath(story.design)
    try:
        design = parse_design(_read(design_entry, source, "design"), source=story.design)
    except DesignFileError as exc:
        raise DemoError(f"{source}: {exc}") from None
    scenario = None
    if story.scenario is not None:
        scenario_entry = folder.joinpath(story.scenario)
        try:
            scenario = parse_scenario(_read(scenario_entry, source, "scenario"),
                                      source=story.scenario)
        except ScenarioError as exc:
            raise DemoError(f"{source}: {exc}") from None
    return Demo(name, story, design, scenario, source)


def _read(entry: Traversable | Path, source: str, what: str) -> bytes:
    if not entry.is_file():
        raise DemoError(f"{source}: its {what} file {entry.name!r} is missing")
    try:
        return entry.read_bytes()
    except OSError as exc:
        raise DemoError(f"{source}: cannot read its {what} file {entry.name!r}: "
                        f"{exc.strerror or exc}") from None
