"""python -m companion.appliance boot|watch: the card image's two services (companion-firstboot, companion-network).

    boot  --boot DIR      apply the boot partition's files (Wi-Fi, name, ssh), then exit
    watch [--grace S]     open the access point when there is no home network, leave it when one is back;
                          serve the Wi-Fi page. COMPANION_NETWORK=fake:PATH drives a fake network (tests).
"""

import argparse
import logging
import os
import threading
import time
from dataclasses import replace
from pathlib import Path

from companion.appliance import firstboot, hotspot
from companion.appliance.network import PAGE_PORT, network_from
from companion.appliance.page import WifiPage, serve

SETUP_CODE_FILE = Path("/boot/firmware/companion-setup-code.txt")  # the image's config names the same file


def watch(network, timing: hotspot.Timing, code_file: Path, port: int, clock=time.monotonic) -> None:
    asked = threading.Event()

    def save(wifi):
        network.save(wifi)
        asked.set()

    server = serve(WifiPage(code_file, save, clock), port)
    state = hotspot.Watch()
    try:
        while True:
            seen = replace(network.seen(), asked=asked.is_set())
            asked.clear()
            state, do = hotspot.decide(state, seen, clock(), timing)
            if do == hotspot.START_AP:
                logging.info("no home network for %.0f s: the access point is open", timing.grace_s)
                network.start_ap()
            elif do == hotspot.STOP_AP:
                logging.info("leaving the access point: %s", "a network is back" if seen.online else "trying the home network")
                network.stop_ap()
            asked.wait(timing.look_s)
    finally:
        server.shutdown()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m companion.appliance", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    boot = commands.add_parser("boot")
    boot.add_argument("--boot", type=Path, default=Path("/boot/firmware"))
    boot.add_argument("--root", type=Path, default=Path("/"))
    watching = commands.add_parser("watch")
    watching.add_argument("--grace", type=float, default=hotspot.TIMING.grace_s)
    watching.add_argument("--retry", type=float, default=hotspot.TIMING.retry_s)
    watching.add_argument("--look", type=float, default=hotspot.TIMING.look_s)
    watching.add_argument("--port", type=int, default=PAGE_PORT)
    watching.add_argument("--setup-code-file", type=Path, default=SETUP_CODE_FILE)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "boot":
        firstboot.apply(args.boot, args.root)
    else:
        watch(network_from(os.environ.get("COMPANION_NETWORK")), hotspot.Timing(args.grace, args.retry, args.look),
              args.setup_code_file, args.port)


if __name__ == "__main__":
    main()
