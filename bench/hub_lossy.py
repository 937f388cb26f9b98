"""Turns lost between the hub and the Pi on lossy lines: the firmware's core and the Pi's hub source joined by
lines that spoil frames (lost whole, cut short, a byte changed), on a simulated clock.

Prints a table; asserts nothing (tests/hub/test_hub_lossy.py does). With `--before REV` it also runs the Pi's
source and the firmware's core as they were at git revision REV, in the same simulation.

    python bench/hub_lossy.py [--minutes 10] [--seed 1] [--before REV]
"""

import argparse
import subprocess
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from companion.hardware.firmware import firmware_module  # noqa: E402
from companion.hardware.hub_fake import lossy_run  # noqa: E402

LINES = ((0.01, 0.01), (0.05, 0.05), (0.20, 0.0), (0.20, 0.20))  # share of frames spoilt: to the Pi, to the hub


def module_at(revision: str, path: str, name: str) -> types.ModuleType:
    """The module in `path` as it was at git `revision`, loaded under `name` beside today's modules."""
    source = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout
    firmware_module("hubframe")  # puts the firmware's folder on sys.path, for the core's own imports
    module = types.ModuleType(name)
    module.__file__ = f"{revision}:{path}"
    sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--before", metavar="REV", help="also run the source and the core of this git revision")
    args = parser.parse_args()

    before = None
    if args.before:
        source = module_at(args.before, "companion/hardware/hub.py", "hub_before").HubSource
        core = module_at(args.before, "firmware/hubcore.py", "hubcore_before").HubCore
        before = {"source_class": source, "core_class": core}
    print(f"turns lost over {args.minutes:g} simulated minutes (seed {args.seed}); frames spoilt to the Pi / to the hub")
    print(f"  {'line':<10} {'turns':>6} {'before':>7} {'after':>6}   after: gaps, resends, gone, reconnects")
    for to_pi, to_hub in LINES:
        after = lossy_run(to_pi, to_hub, minutes=args.minutes, seed=args.seed)
        old = lossy_run(to_pi, to_hub, minutes=args.minutes, seed=args.seed, **before).lost if before else "-"
        counts = after.counts
        print(f"  {f'{to_pi:.0%} / {to_hub:.0%}':<10} {after.flips:>6} {old:>7} {after.lost:>6}   "
              f"{counts['gaps']}, {counts['resends']}, {counts['gone']}, {after.reconnects}"
              + (f"   ({after.wrong} poses that never happened!)" if after.wrong else ""))


if __name__ == "__main__":
    main()
