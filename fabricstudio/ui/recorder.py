"""Recordings: a GIF or MP4 of a run or of a story, rendered off-screen with the captions.

Each video frame is a :class:`Shot` (which runs, at which simulated time, which camera and
caption); :func:`run_shots` sweeps one run from one time to another, :func:`story_shots`
plays a storyboard (each step held for its ``hold_s``, played at its speed).  A
:class:`FrameRenderer` draws a shot the way the presenter shows it: the fabric with its link
state, markers and GPU rings, the fleet gauge, the legend and the caption, or 2 / 4 runs side
by side.  :func:`write_video` encodes the frames: GIF with Pillow, MP4 (H.264) with
imageio-ffmpeg, which brings its own ffmpeg; both are imported only here, only when recording.
Files are written through the safe output writer.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QImage, QPainter

from fabricstudio.formats.output import is_stale, write_output
from fabricstudio.formats.story import ObjectsCamera, RectangleCamera, Story
from fabricstudio.sim.moments import caption_at
from fabricstudio.sim.recorded import RecordedRun, story_moment
from fabricstudio.ui.canvas.scene import FabricScene
from fabricstudio.ui.canvas.view import largest_free_area
from fabricstudio.ui.simview.controller import MAX_SPAN, window_frame
from fabricstudio.ui.simview.controls import format_time
from fabricstudio.ui.simview.gpu_rings import GpuRings
from fabricstudio.ui.simview.overlay import SimOverlay
from fabricstudio.ui.simview.painters import (
    caption_layout,
    gauge_data,
    gauge_size,
    paint_caption,
    paint_gauge,
    paint_pane_header,
    pane_header_height,
)
from fabricstudio.ui.simview.source import FABRIC_VARIANTS
from fabricstudio.ui.simview.style import legend_size, paint_legend
from fabricstudio.ui.theme import DARK, Theme

#: Story fabric names -> comparison labels (as the presenter's player).
FABRIC_LABELS = {fabric: variant[0] for fabric, variant in FABRIC_VARIANTS.items()}
MARGIN = 14.0


class RecordingError(ValueError):
    """A recording cannot be made (one line for the user)."""


#: Most frames of one video (10 minutes at 60 fps, the command line's own limits).
MAX_FRAMES = 36_000
#: Most memory the GIF encoder may hold: Pillow keeps every quantised frame (one byte per
#: pixel) until the file is written; 960 x 540 at 10 fps for 10 minutes is 2.9 GiB.
MAX_GIF_BYTES = 1024 * 2**20


def check_video_size(kind: str, width: int, height: int, frames: int) -> None:
    """RecordingError, before anything is rendered, for a video too long to render or a GIF
    whose frames would not fit in memory (with the size it would need)."""
    if frames > MAX_FRAMES:
        raise RecordingError(f"{frames:,} frames is too long a video (at most {MAX_FRAMES:,}); "
                             "lower the frame rate or the length")
    held = frames * width * height
    if kind == "gif" and held > MAX_GIF_BYTES:
        raise RecordingError(f"a GIF of {frames:,} frames of {width} x {height} px would hold "
                             f"{held / 2**20:,.0f} MiB of frames in memory (the limit is "
                             f"{MAX_GIF_BYTES / 2**20:,.0f} MiB); lower the width, the frame "
                             "rate or the length, or record an MP4")


@dataclass(frozen=True)
class Shot:
    """One video frame: these runs at simulated time ``t``, the camera (scene rectangle or
    device ids; None: the whole design) and a caption (None: the run's own)."""

    runs: tuple[RecordedRun, ...]
    t: float
    camera: QRectF | tuple[str, ...] | None = None
    caption: str | None = None


def run_shots(record: RecordedRun, start_s: float, end_s: float, seconds: float,
              fps: float) -> Iterator[Shot]:
    """``record`` from ``start_s`` to ``end_s`` in ``seconds`` of video."""
    frames = max(1, round(seconds * fps))
    for k in range(frames):
        fraction = k / max(1, frames - 1)
        yield Shot((record,), start_s + (end_s - start_s) * fraction)


def story_shots(story: Story, runs: dict[str, RecordedRun], fps: float,
                seconds: float | None = None) -> Iterator[Shot]:
    """The story's steps, each for its ``hold_s`` (scaled so the whole lasts ``seconds`` when
    given), playing from its moment at its speed.  ``runs``: comparison label -> run."""
    scale = 1.0
    if seconds is not None:
        scale = seconds / sum(step.hold_s for step in story.steps)
    total = sum(max(1, round(step.hold_s * scale * fps)) for step in story.steps)
    if total > MAX_FRAMES:  # refused before a single shot exists
        raise RecordingError(f"the story lasts {total / fps:,.0f} s: {total:,} frames at "
                             f"{fps:g} fps is too long a video (at most {MAX_FRAMES:,}); give "
                             "it a length (--seconds) or shorter holds")
    fabrics: tuple[str, ...] = ("roce",)
    t = 0.0
    for step in story.steps:
        if step.fabrics:
            fabrics = step.fabrics
        try:
            chosen = tuple(runs[FABRIC_LABELS[f]] for f in fabrics)
        except KeyError as exc:
            raise RecordingError(f"the story shows {exc.args[0]}, which was not run") from None
        at = story_moment(step, chosen)
        t = t if at is None else at
        camera: QRectF | tuple[str, ...] | None = None
        if isinstance(step.camera, ObjectsCamera):
            camera = tuple(step.camera.objects)
        elif isinstance(step.camera, RectangleCamera):
            camera = QRectF(*step.camera.rectangle)
        frames = max(1, round(step.hold_s * scale * fps))
        end = max(r.end_s for r in chosen)
        for k in range(frames):
            shown = min(t + step.play_speed * k / fps, end)
            yield Shot(chosen, shown, camera, step.caption or None)
        t = min(t + step.play_speed * frames / fps, end)


class _RunScene:
    """A run drawn in its own scene: the design, the link overlay and the GPU rings."""

    def __init__(self, record: RecordedRun, theme: Theme) -> None:
        self.record = record
        self.scene = FabricScene(record.design.copy())
        self.scene.set_theme(theme)
        self.scene.set_port_badges(False)  # a replay: no editing chrome
        self.overlay = SimOverlay(self.scene, self.scene.design)
        self.overlay.bind(record.stream.links, record.stream.fabric)
        self.rings = GpuRings(self.scene)
        self.rings.bind(record.timeline)
        self.index = -1

    def show(self, t: float) -> None:
        stream = self.record.stream
        index = stream.index_at(t)
        if index != self.index:
            first = self.index + 1 if 0 <= self.index < index else index
            self.overlay.apply_frame(window_frame(stream, max(first, index - MAX_SPAN + 1),
                                                  index))
            self.index = index
        self.rings.show_frame(index, done=t >= self.record.end_s)  # (its last frame: over)

    def design_rect(self) -> QRectF:
        rect = QRectF()
        for item in self.scene.device_items.values():
            rect = rect.united(item.sceneBoundingRect())
        return rect.adjusted(-45, -45, 45, 45)

    def camera_rect(self, camera: QRectF | tuple[str, ...] | None) -> QRectF:
        if isinstance(camera, QRectF):
            return camera
        if camera:
            rect = QRectF()
            for device_id in camera:
                item = self.scene.device_items.get(device_id)
                if item is not None:
                    rect = rect.united(item.sceneBoundingRect())
            if not rect.isEmpty():
                return rect.adjusted(-45, -45, 45, 45)
        return self.design_rect()


class FrameRenderer:
    """Draws shots into images of ``width`` x ``height`` pixels."""

    def __init__(self, width: int, height: int, theme: Theme = DARK,
                 label: Callable[[RecordedRun], str] | None = None) -> None:
        self.width, self.height = width, height
        self.theme = theme
        self.scale = width / 1280.0  # overlays sized as the presenter's at 100 % on 1280
        self.label = label or (lambda record: record.label)
        self._scenes: dict[int, _RunScene] = {}
        self._last_t: dict[int, float] = {}

    def _scene(self, record: RecordedRun) -> _RunScene:
        key = id(record)
        if key not in self._scenes:
            self._scenes[key] = _RunScene(record, self.theme)
        return self._scenes[key]

    def render(self, shot: Shot, dt: float) -> QImage:
        """The image of one shot; ``dt`` wall seconds since the previous (animations)."""
        image = QImage(self.width, self.height, QImage.Format.Format_RGB888)
        image.fill(self.theme.canvas)
        painter = QPainter(image)
        try:
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
            if len(shot.runs) == 1:
                self._single(painter, shot, dt)
            else:
                self._side_by_side(painter, shot, dt)
        finally:
            painter.end()
        return image

    def _single(self, painter: QPainter, shot: Shot, dt: float) -> None:
        run = self._scene(shot.runs[0])
        run.show(shot.t)
        run.overlay.advance_animation(dt)
        record = run.record
        dark = self.theme.dark
        s = self.scale
        full = QRectF(0, 0, self.width, self.height)
        gauge = gauge_size(s)
        legend_w, legend_h = legend_size(s, collapsed=True)
        text = shot.caption or self._run_caption(record, shot.t)
        caption_size, _font = caption_layout(text or "x", self.width * 0.8, s)
        two_lines, _f = caption_layout("a\nb", self.width * 0.8, s)
        source = run.camera_rect(shot.camera)
        obstacles = [QRectF(0, 0, gauge.width() + 2 * MARGIN, gauge.height() + 2 * MARGIN),
                     QRectF(self.width - legend_w - 2 * MARGIN, 0, legend_w + 2 * MARGIN,
                            legend_h + 2 * MARGIN),
                     QRectF(0, self.height - max(caption_size, two_lines,
                                                 key=lambda z: z.height()).height()
                            - 2 * MARGIN, self.width, self.height)]
        area = largest_free_area(full.adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN), obstacles,
                                 source)
        self._draw_scene(painter, run, area, source)
        if record.timeline is not None and len(record.timeline):
            index = record.stream.index_at(shot.t)
            done = shot.t > record.end_s + record.stream.sample_period_s / 2
            paint_gauge(painter, QRectF(QPointF(MARGIN, MARGIN), gauge),
                        gauge_data(record.timeline, index, record.result, done), dark, s)
        header = f"t = {format_time(shot.t)} · {self.label(record)}"
        paint_legend(painter, QRectF(full.right() - legend_w - MARGIN, MARGIN, legend_w,
                                     legend_h), header, dark=dark, scale=s, collapsed=True)
        if text:
            box = QRectF((self.width - caption_size.width()) / 2,
                         self.height - caption_size.height() - MARGIN, caption_size.width(),
                         caption_size.height())
            paint_caption(painter, box, text, "story" if shot.caption else
                          self._run_caption_kind(record, shot.t), dark, s)

    def _side_by_side(self, painter: QPainter, shot: Shot, dt: float) -> None:
        runs = [self._scene(record) for record in shot.runs]
        s = self.scale
        dark = self.theme.dark
        banner_h = 0.0
        if shot.caption:
            size, _f = caption_layout(shot.caption, self.width - 2 * MARGIN, s)
            banner_h = size.height() + MARGIN
            paint_caption(painter, QRectF((self.width - size.width()) / 2,
                                          self.height - size.height() - MARGIN / 2,
                                          size.width(), size.height()), shot.caption, "story",
                          dark, s)
        columns = 2
        rows = (len(runs) + 1) // 2
        cell_w = (self.width - MARGIN) / columns
        cell_h = (self.height - banner_h - MARGIN) / rows
        for k, run in enumerate(runs):
            run.show(shot.t)
            run.overlay.advance_animation(dt)
            cell = QRectF(MARGIN / 2 + (k % columns) * cell_w, MARGIN / 2 + (k // columns) * cell_h,
                          cell_w - MARGIN / 2, cell_h - MARGIN / 2)
            record = run.record
            head = QRectF(cell.left(), cell.top(), cell.width(), pane_header_height(s * 0.8))
            index = record.stream.index_at(shot.t)
            done = shot.t > record.end_s + record.stream.sample_period_s / 2
            paint_pane_header(painter, head, self.label(record),
                              gauge_data(record.timeline, index, record.result, done), dark,
                              s * 0.8)
            text = self._run_caption(record, shot.t)
            size, _f = caption_layout(text or "x", cell.width() - 10, s * 0.6)
            area = QRectF(cell.left(), head.bottom() + 4, cell.width(),
                          cell.height() - head.height() - size.height() - 14)
            self._draw_scene(painter, run, area, run.design_rect())
            if text:
                paint_caption(painter, QRectF(cell.center().x() - size.width() / 2,
                                              cell.bottom() - size.height() - 4, size.width(),
                                              size.height()), text,
                              self._run_caption_kind(record, shot.t), dark, s * 0.6)

    @staticmethod
    def _draw_scene(painter: QPainter, run: _RunScene, target: QRectF, source: QRectF) -> None:
        if target.width() <= 1 or target.height() <= 1 or source.isEmpty():
            return
        zoom = min(target.width() / source.width(), target.height() / source.height())
        shown = QRectF(0, 0, target.width() / zoom, target.height() / zoom)
        shown.moveCenter(source.center())
        run.scene.set_view_scale(zoom)
        run.scene.render(painter, target, shown)

    @staticmethod
    def _run_caption(record: RecordedRun, t: float) -> str:
        caption = caption_at(record.captions, t)
        return caption.text if caption is not None else ""

    @staticmethod
    def _run_caption_kind(record: RecordedRun, t: float) -> str:
        caption = caption_at(record.captions, t)
        return caption.kind if caption is not None else ""


def frames(renderer: FrameRenderer, shots: Sequence[Shot], fps: float) -> Iterator[np.ndarray]:
    """RGB arrays (height x width x 3) of the shots."""
    for shot in shots:
        image = renderer.render(shot, 1.0 / fps)
        yield _rgb(image)


def _rgb(image: QImage) -> np.ndarray:
    width, height = image.width(), image.height()
    data = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    rows = data.reshape(height, image.bytesPerLine())
    return np.ascontiguousarray(rows[:, : width * 3].reshape(height, width, 3))


@dataclass(frozen=True)
class VideoStats:
    """What a recording took: frames, seconds of video, wall seconds, bytes written."""

    frames: int
    seconds: float
    wall_s: float
    bytes: int


def write_video(path: str | Path, kind: str, renderer: FrameRenderer, shots: Sequence[Shot],
                fps: float, progress: Callable[[int, int], None] | None = None,
                force: bool = False) -> VideoStats:
    """Render ``shots`` and write them as ``kind`` ("gif" or "mp4") to ``path``."""
    started = time.perf_counter()
    total = len(shots)
    check_video_size(kind, renderer.width, renderer.height, total)

    def counted() -> Iterator[np.ndarray]:
        for k, frame in enumerate(frames(renderer, shots, fps), start=1):
            if progress is not None:
                progress(k, total)
            yield frame

    data = _gif(counted(), fps) if kind == "gif" else _mp4(counted(), renderer, fps)
    write_output(path, data, force=force)
    return VideoStats(total, total / fps, time.perf_counter() - started, len(data))


def _gif(images: Iterator[np.ndarray], fps: float) -> bytes:
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - a dependency
        raise RecordingError(f"GIF needs Pillow ({exc})") from None
    pictures = [Image.fromarray(frame).quantize(colors=128, method=Image.Quantize.FASTOCTREE,
                                                dither=Image.Dither.NONE)
                for frame in images]
    if not pictures:
        raise RecordingError("nothing to record")
    out = io.BytesIO()
    pictures[0].save(out, format="GIF", save_all=True, append_images=pictures[1:],
                     duration=round(1000 / fps), loop=0, optimize=False, disposal=1)
    return out.getvalue()


#: Temporary folders of the MP4 encoder: ``fabricstudio-video-<pid>-<random>`` in the
#: system's temporary folder (ffmpeg needs a seekable file for ``+faststart``).
VIDEO_TEMP_PREFIX = "fabricstudio-video-"


def remove_stale_video_folders(parent: str | None = None) -> list[str]:
    """Remove the MP4 encoder's temporary folders left by recordings that crashed (their
    process is gone, or they are a day old); returns those removed."""
    parent = parent or tempfile.gettempdir()
    pattern = re.compile(re.escape(VIDEO_TEMP_PREFIX) + r"(\d+)-")
    removed = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = pattern.match(entry.name)
        if match is None or not entry.is_dir(follow_symlinks=False):
            continue
        try:
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except OSError:
            continue
        if is_stale(int(match.group(1)), age):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


def _mp4(images: Iterator[np.ndarray], renderer: FrameRenderer, fps: float) -> bytes:
    try:
        import imageio_ffmpeg
    except ImportError as exc:  # pragma: no cover - a dependency
        raise RecordingError(f"MP4 needs imageio-ffmpeg ({exc})") from None
    remove_stale_video_folders()
    with tempfile.TemporaryDirectory(prefix=f"{VIDEO_TEMP_PREFIX}{os.getpid()}-") as folder:
        target = str(Path(folder) / "video.mp4")
        writer = imageio_ffmpeg.write_frames(
            target, (renderer.width, renderer.height), fps=fps, codec="libx264",
            pix_fmt_in="rgb24", pix_fmt_out="yuv420p", quality=7, macro_block_size=2,
            output_params=["-preset", "veryfast", "-movflags", "+faststart"])
        writer.send(None)
        try:
            for frame in images:
                writer.send(frame)
        finally:
            writer.close()
        return Path(target).read_bytes()
