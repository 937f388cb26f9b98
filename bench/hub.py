"""The serial sensor hub: frames parsed per second, frame -> pose -> phone beside the tilt path, beam accuracy.

Prints figures; asserts nothing.

- frames parsed per second on this machine, by the Pi's reader (hub_frames) and
  by the firmware's own decoder (which the board runs);
- hub frame -> pose event -> phone p99 (a fake hub on a pty -> table -> SSE client),
  beside the tilt-pair path (mock pin -> table -> SSE client) measured in the same run;
- model vs beam: how far a calibrated model's run-out instant lies from the true
  one a neck beam sees, over simulated shows, before and after the beams refine
  each glass's duration per direction.

    python bench/hub.py [--frames 50000] [--turns 300] [--shows 5]
"""

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.hardware.firmware import firmware_module  # noqa: E402
from companion.hardware.hub_frames import read_message  # noqa: E402
from companion.skyrockets.beams import DurationEstimate  # noqa: E402
from companion.skyrockets.colours import COLOURS, NOMINAL_S  # noqa: E402

sys.path.insert(0, str(ROOT / "bench"))
from runtime import SIX, edges_to_table  # noqa: E402  (the tilt path, measured the same way)
from sse import Phone, p99  # noqa: E402


def sample_lines(count: int) -> list[bytes]:
    core = firmware_module("hubcore").HubCore(6, beams=range(6))
    rng = random.Random(1)
    lines, ms = core.start(0), 0
    while len(lines) < count:
        ms += rng.randrange(1, 400)
        ch = rng.randrange(6)
        if rng.random() < 0.6:
            lines += core.set_pose(ch, rng.choice(("a_up", "b_up", "side")), ms)
        else:
            lines += core.set_beam(ch, rng.choice(("flowing", "stopped")), ms) or core.tick(ms + 600)
    return lines[:count]


def frames_per_second(lines: list[bytes], read) -> float:
    start = time.perf_counter()
    for line in lines:
        read(line)
    return len(lines) / (time.perf_counter() - start)


def model_vs_beam(shows: int, runs_per_show: int = 12, seed: int = 7) -> list[tuple[float, float]]:
    """Mean and max |model - beam| run-out error (s) in each of `shows` simulated shows.

    Each glass's real duration differs from the box's by up to 4 %, and from
    one direction to the other by up to 1 %; the model starts from the box's
    durations and refines each direction from every beam-timed full run.
    """
    rng = random.Random(seed)
    real = {c: {p: NOMINAL_S[c] * (1 + rng.uniform(-0.04, 0.04)) * (1 + rng.uniform(-0.005, 0.005))
                for p in ("a_up", "b_up")} for c in COLOURS}
    estimate = {c: {p: DurationEstimate(NOMINAL_S[c]) for p in ("a_up", "b_up")} for c in COLOURS}
    figures = []
    for _ in range(shows):
        errors = []
        for _ in range(runs_per_show):
            for colour in COLOURS:
                pose = rng.choice(("a_up", "b_up"))
                beam_s = real[colour][pose] + rng.gauss(0, 0.02)  # a grain's worth of jitter
                errors.append(abs(estimate[colour][pose].seconds - beam_s))
                estimate[colour][pose] = estimate[colour][pose].observe(beam_s)
        figures.append((statistics.mean(errors), max(errors)))
    return figures


def frames_to_phone(turns: int) -> list[float]:
    """Turn a glass on a fake hub `turns` times: milliseconds from the frame written on the pty to a
    phone's SSE stream delivering the new pose (the hub's own debounce happens before the frame)."""

    from companion.config import Config, TiltConfig, TimerConfig, default_timers
    from companion.hardware.hub import HubConfig
    from companion.hardware.hub_fake import FakeHub
    from companion.hardware.mock import mock_pin_factory
    from companion.records import Store
    from companion.table import Table
    from companion.web.server import ServerThread, make_server

    with tempfile.TemporaryDirectory() as tmp:
        hub = FakeHub(6, poses=["a_up"] * 6)
        timers = dict(default_timers("tilt"), red=TimerConfig(source="hub"))
        config = Config(database=Path(tmp) / "b.sqlite3", timers=timers, hub=HubConfig(hub.path),
                        tilt=TiltConfig(start_window_s=0.0, remind_every_s=3600))
        table = Table(config, Store(config.database), mock_pin_factory(), pin="1234").start()
        server = ServerThread(make_server(table))
        phone = Phone(server.server.effective_port, "/api/show/events")
        try:
            snap = table.desk.start_show(SIX)
            while snap["timers"]["red"]["fault"] is not None:  # until the hub's first snapshot
                snap = table.desk.wait_for_change(snap["seq"], 5)
            delivered = []
            for i in range(turns):
                before = snap["timers"]["red"]["pose"]
                start = time.perf_counter()
                hub.turn("red", "b_up" if i % 2 == 0 else "a_up")
                while snap["timers"]["red"]["pose"] == before:
                    snap = table.desk.wait_for_change(snap["seq"], 5)
                delivered.append((phone.arrival(snap["seq"]) - start) * 1000)
                time.sleep(0.005)
            return delivered
        finally:
            phone.close()
            server.close()
            table.stop()
            hub.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=50_000)
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--shows", type=int, default=5)
    args = parser.parse_args()

    lines = sample_lines(args.frames)
    decode = firmware_module("hubframe").decode
    print(f"frames parsed per second over {len(lines)} frames:")
    print(f"  the Pi's reader (checked messages)   {frames_per_second(lines, read_message):10,.0f}")
    print(f"  the firmware's decoder, under CPython {frames_per_second(lines, decode):9,.0f}")

    print("model vs beam run-out error over simulated shows (s), the beams refining durations per direction:")
    for number, (mean, worst) in enumerate(model_vs_beam(args.shows), 1):
        print(f"  show {number}: mean {mean:.3f}   max {worst:.3f}")

    hub = frames_to_phone(args.turns)
    tilt = edges_to_table(args.turns)[1]
    print(f"pose -> phone over {args.turns} turns (ms):")
    for label, values in (("hub frame -> phone's SSE stream", hub), ("tilt pin edge -> phone, debounce excluded", tilt)):
        print(f"  {label:<44} p50 {statistics.median(values):6.2f}   p99 {p99(values):6.2f}")
    print(f"  p99 hub / tilt: {p99(hub) / p99(tilt):.2f}x")


if __name__ == "__main__":
    main()
