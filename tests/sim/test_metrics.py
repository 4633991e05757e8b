"""MetricStream: append, read by index and time, columnar series, event times."""

import numpy as np
import pytest

from fabricstudio.sim.metrics import DirectedLink, Frame, MetricStream, empty_link_arrays


def make_stream(n_frames: int) -> MetricStream:
    links = (DirectedLink(0, "l1", "a", 0, "b", 0, 100.0),
             DirectedLink(1, "l1", "b", 0, "a", 0, 100.0))
    stream = MetricStream(links, 1e-5)
    for i in range(n_frames):
        arrays = empty_link_arrays(2)
        arrays["utilisation"][:] = (i / n_frames, 0.0)
        arrays["pauses_sent"][1] = 1 if i == 70 else 0
        arrays["queue_bytes"][0] = 1000 if i == 90 else 10
        stream.append(Frame((i + 1) * 1e-5, arrays, {"delivered_bytes": np.array([i * 10.0]),
                                                     "rate_gbps": np.array([1.0])}, (7,)))
    return stream


def test_history_survives_growth_and_reads_by_time():
    stream = make_stream(100)
    assert len(stream) == 100 and stream.times[-1] == pytest.approx(1e-3)
    assert stream.frame_at(5.5e-5).t == pytest.approx(5e-5)
    assert stream.frame_at(0).t == pytest.approx(1e-5)
    assert stream.frame_at(1).t == pytest.approx(1e-3)
    assert stream.link_series("utilisation", 0)[50] == pytest.approx(0.5)
    assert stream.link_series("utilisation").shape == (100, 2)
    times, delivered = stream.flow_series("delivered_bytes", 7)
    assert delivered[-1] == 990 and len(times) == 100


def test_event_times():
    stream = make_stream(100)
    assert stream.first_time("pauses_sent") == pytest.approx(71e-5)
    assert stream.peak_time("queue_bytes") == pytest.approx(91e-5)
    assert stream.first_time("drops") is None
    assert stream.moment_time("first_pause") == pytest.approx(71e-5)
    assert stream.moment_time("peak_queue") == pytest.approx(91e-5)
    assert stream.moment_time("first_drop") is None


def test_story_steps_find_their_moment_in_the_runs():
    from fabricstudio.formats.story import EVENTS, StoryStep
    from fabricstudio.model import Design
    from fabricstudio.sim.metrics import MOMENTS
    from fabricstudio.sim.recorded import RecordedRun, story_moment

    assert set(MOMENTS) | {"start", "end"} == set(EVENTS)  # every story event is findable
    runs = [RecordedRun("a", Design("d"), make_stream(100)),
            RecordedRun("b", Design("d"), make_stream(50))]
    assert story_moment(StoryStep(event="first_pause"), runs) == pytest.approx(71e-5)
    assert story_moment(StoryStep(event="end"), runs) == pytest.approx(1e-3)
    assert story_moment(StoryStep(event="start"), runs) == 0.0
    assert story_moment(StoryStep(event="first_drop"), runs) is None  # the caller's time
    assert story_moment(StoryStep(), runs) is None
    assert story_moment(StoryStep(time_s=2e-4), runs) == 2e-4


def test_frames_must_move_forward():
    stream = make_stream(2)
    with pytest.raises(ValueError):
        stream.append(Frame(1e-5, empty_link_arrays(2)))


def test_empty_stream():
    stream = make_stream(0)
    assert stream.latest() is None and stream.frame_at(1.0) is None
    assert stream.peak_time("drops") is None


def test_the_metric_spec_drives_columns_sampler_windows_and_wording():
    from fabricstudio.sim.engine import sampler
    from fabricstudio.sim.metrics import (
        FLOW_FIELDS,
        LINK_FIELDS,
        LINK_METRICS,
        METRICS,
        chart_unit,
        combine,
        format_value,
    )

    assert list(LINK_FIELDS) == [f.name for f in LINK_METRICS] and "rate_gbps" in FLOW_FIELDS
    assert sampler._TIME_FIELDS == tuple(f.name for f in LINK_METRICS if f.kind == "fraction")
    assert sampler._COUNT_FIELDS == tuple(f.name for f in LINK_METRICS if f.kind == "count")
    periods = [np.array([0.2, 4], dtype=np.float32), np.array([0.4, 2], dtype=np.float32)]
    assert combine(METRICS["utilisation"], periods)[0] == np.float32(0.3)
    assert combine(METRICS["drops"], periods)[1] == 6
    assert combine(METRICS["queue_max_bytes"], periods)[1] == 4
    assert combine(METRICS["queue_bytes"], periods)[1] == 2
    assert format_value(METRICS["paused"], 0.25) == "25.0%"
    assert format_value(METRICS["queue_bytes"], 2048) == "2 KiB"
    assert chart_unit(METRICS["queue_bytes"]) == ("KiB", 1 / 1024)
    for field in LINK_METRICS:
        assert field.label and field.description and format_value(field, 1.0)
