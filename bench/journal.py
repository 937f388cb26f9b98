"""The journal off the runtime's path: sensor edge -> phone with and without a slow disk, in one run.

An SD card's fsync takes tens of milliseconds and spikes far longer. The
table journals on a writer thread of its own (group commit), so a slow disk
must not slow what the phones see. Prints figures; asserts nothing.

    python bench/journal.py [--edges 200] [--delay-ms 50]
"""

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime import edges_to_table  # noqa: E402
from sse import p99  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=50.0)
    args = parser.parse_args()
    print(f"sensor edges 5 ms apart -> phone's SSE stream, {args.edges} edges (ms):")
    for label, delay in (("disk as it is", 0.0), (f"every fsync {args.delay_ms:g} ms slower", args.delay_ms / 1000)):
        _, delivered = edges_to_table(args.edges, fsync_delay_s=delay)
        print(f"  {label:<32} p50 {statistics.median(delivered):6.2f}   p99 {p99(delivered):6.2f}")


if __name__ == "__main__":
    main()
