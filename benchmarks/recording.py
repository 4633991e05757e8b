"""How long a recording of the demo takes: simulation and rendering measured apart.

    python benchmarks/recording.py [--seconds 20] [--width 1280] [--fps 30] [--repeat 2]

Simulates the bundled demo (demo-rail64 + demo-training-incast) on RoCE + DCQCN once, then
renders and encodes a ``--seconds`` MP4 at ``--width`` x 9/16 (the run swept from 0 to its
end) ``--repeat`` times and prints each time, the median and the per-frame cost, plus a GIF of
the same run at 960 px / 10 fps.  Wall-clock figures on a shared machine are noisy: repeat and
read the median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _cpu() -> tuple[float, float]:
    """(CPU seconds of this process, of its finished children: ffmpeg)."""
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    from fabricstudio.model import Technology
    from fabricstudio.sim.demos import load_demo
    from fabricstudio.sim.recorded import record_run
    from fabricstudio.ui.app import ensure_app
    from fabricstudio.ui.recorder import FrameRenderer, run_shots, write_video

    ensure_app()
    demo = load_demo("training-incast")
    scenario = demo.scenario.model_copy(update={"technology": Technology.ROCE, "dcqcn": True})
    started = time.perf_counter()
    record = record_run(demo.design, scenario, "RoCE + DCQCN")
    simulated = time.perf_counter() - started
    print(f"simulation (RoCE + DCQCN, {len(record.stream)} frames): {simulated:.1f} s")
    height = round(args.width * 9 / 16 / 2) * 2
    shots = list(run_shots(record, 0.0, record.end_s, args.seconds, args.fps))
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for k in range(args.repeat):
            cpu = _cpu()
            stats = write_video(Path(folder) / f"demo{k}.mp4", "mp4",
                                FrameRenderer(args.width, height), shots, args.fps)
            render_cpu, ffmpeg_cpu = (a - b for a, b in zip(_cpu(), cpu, strict=True))
            times.append(stats.wall_s)
            print(f"MP4 {args.width}x{height}, {stats.frames} frames ({stats.seconds:.0f} s at "
                  f"{args.fps:g} fps): rendered and encoded in {stats.wall_s:.1f} s wall "
                  f"(CPU: {render_cpu:.1f} s rendering, {ffmpeg_cpu:.1f} s ffmpeg), "
                  f"{stats.bytes / 1e6:.1f} MB; load average {os.getloadavg()[0]:.1f}")
        gif_shots = list(run_shots(record, 0.0, record.end_s, args.seconds, 10.0))
        stats = write_video(Path(folder) / "demo.gif", "gif", FrameRenderer(960, 540),
                            gif_shots, 10.0)
        print(f"GIF 960x540, {stats.frames} frames: {stats.wall_s:.1f} s, "
              f"{stats.bytes / 1e6:.1f} MB")
    median = statistics.median(times)
    print(f"MP4 median {median:.1f} s ({1000 * median / len(shots):.0f} ms per frame); "
          f"simulation {simulated:.1f} s")


if __name__ == "__main__":
    main()
