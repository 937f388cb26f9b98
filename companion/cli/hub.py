"""`companion hub fake` and `companion hub check`: the serial sensor hub without and with hardware."""

import queue
import sys
import threading
import time

from companion.cli.common import Refusal

ANSWER_S = 7.0  # the client says hello three times, two seconds apart, and gives up 2 s after the third

ORDER = 60  # place in `companion --help`


def cmd_fake(args) -> int:
    from companion.hardware.hub_fake import DEMO_LINK, FakeHub
    from companion.skyrockets.colours import COLOURS

    try:
        hub = FakeHub(args.timers, seed=args.seed, link=DEMO_LINK)
    except FileNotFoundError as e:
        raise Refusal(str(e), code=1) from None
    print(f"hub on {hub.path}", flush=True)
    names = COLOURS[:args.timers]
    try:
        for number, line in enumerate(sys.stdin, 1):
            words = line.split()
            if not words:
                continue
            problem = _fake_command(hub, names, words)
            if problem:
                print(f"companion hub fake: stdin:{number}: {problem}", file=sys.stderr, flush=True)
        threading.Event().wait()  # stdin closed: go on serving until interrupted
    finally:
        hub.close()
    return 0


def _fake_command(hub, names, words) -> str | None:
    """Carry out one stdin line (`red b_up`, `red flowing`); the problem with it, or None."""
    if len(words) != 2 or words[0] not in names:
        return f"expected a colour ({', '.join(names)}) and a pose or beam state, got {' '.join(words)!r}"
    colour, what = words
    if what in ("a_up", "b_up", "side"):
        hub.turn(colour, what)
    elif what in ("flowing", "stopped"):
        hub.beam(colour, what)
    else:
        return f"{what!r} is not a pose (a_up, b_up, side) or a beam state (flowing, stopped)"
    return None


def cmd_check(args) -> int:
    from companion.hardware.hub import HubConfig, HubSource
    from companion.hardware.hub_link import HELLO_TRIES
    from companion.hardware.source import BeamChange, FaultChange, PoseChange
    from companion.skyrockets.colours import COLOURS

    items = queue.SimpleQueue()
    hub = HubSource.open(HubConfig(args.port), COLOURS, items.put, time.monotonic)
    deadline = time.monotonic() + ANSWER_S
    try:
        while hub.counts["snapshots"] == 0:
            try:
                item = items.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise Refusal(f"{args.port}: the hub does not answer (no hello in {ANSWER_S:g} s)", code=1) from None
            hub.take(item)
            if item.what == "lost" and str(item.data).startswith("cannot open"):
                raise Refusal(f"{args.port}: {item.data}", code=1)
            if item.what == "lost" and item.data == "not answering":
                raise Refusal(f"{args.port}: the hub does not answer (no hello after {HELLO_TRIES} tries)", code=1)
            if hub.link.refusal:
                raise Refusal(f"{args.port}: {hub.link.refusal}", code=2)
        hello = hub.hello
        print(f"hello: firmware {hello['fw']}, protocol {hello['proto']}, {hello['timers']} timers")
        names = COLOURS[:hello["timers"]]
        print("snapshot: " + ", ".join(f"{c} {hub.pose[c].value}" + ("" if hub.beam[c] == "none" else f" (beam {hub.beam[c]})")
                                       for c in names), flush=True)
        hub.update(time.monotonic())
        gone = hub.counts["gone"]
        while not args.once:
            hub.take(items.get())
            if hub.counts["gone"] > gone:
                gone = hub.counts["gone"]
                print("frames lost: the hub no longer kept them; its snapshot stands in", flush=True)
            for change in hub.update(time.monotonic()):
                if change.name not in names:
                    continue
                if isinstance(change, PoseChange):
                    print(f"{change.name} {change.pose.value}" + (" (from a snapshot)" if change.resync else ""), flush=True)
                elif isinstance(change, BeamChange):
                    print(f"{change.name} beam {'flowing' if change.flowing else 'stopped'}", flush=True)
                elif isinstance(change, FaultChange):
                    print(f"{change.name} " + (f"fault: {change.fault}" if change.fault else "sensor well again"), flush=True)
    finally:
        hub.close()
    return 0


def register(sub) -> None:
    hub = sub.add_parser("hub", help="the serial sensor hub: a fake one to try, and a check of a real one")
    commands = hub.add_subparsers(dest="hub_command", required=True, metavar="HUB_COMMAND")
    fake = commands.add_parser("fake", help="run the hub's firmware core behind a pseudo-terminal")
    fake.add_argument("--timers", type=int, default=6, choices=range(1, 7), metavar="N", help="channels (1-6)")
    fake.add_argument("--seed", type=int, metavar="S", default=None,
                      help="start the glasses in random poses from this seed")
    fake.set_defaults(func=cmd_fake)
    check = commands.add_parser("check", help="open a hub, check its hello and print its poses")
    check.add_argument("port", metavar="PORT", help="the hub's serial device, e.g. /dev/serial/by-id/usb-...")
    check.add_argument("--once", action="store_true", help="exit after the snapshot")
    check.set_defaults(func=cmd_check)
