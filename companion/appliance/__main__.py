"""python -m companion.appliance boot|watch|show-code: the card image's services (companion-firstboot,
companion-network, companion-setup-code).

    boot  --boot DIR      apply the boot partition's files (Wi-Fi, name, Imager's settings, ssh, a request to
                          reopen setup), then exit
    watch [--grace S]     open the access point when there is no home network, leave it when one is back;
                          serve the Wi-Fi page. COMPANION_NETWORK=fake:PATH drives a fake network (tests).
    show-code             put the table's setup code on the boot partition, where a computer reads it
                          (or take it away once setup is done)
"""

import argparse
import logging
import os
import threading
import time
from dataclasses import replace
from pathlib import Path

from companion.appliance import firstboot, hotspot
from companion.appliance.network import PAGE_PORT, ApUnavailable, network_from
from companion.appliance.page import CardDesk
from companion.appliance.setupcode import show_code
from companion.web.server import ServerThread, make_server
from companion.web.wifi import create_wifi_app

SETUP_CODE_FILE = Path("/boot/firmware/companion-setup-code.txt")  # the owner's copy, on the card
KEPT_CODE = Path("/var/lib/companion/setup-code")  # the table keeps its code here (firstrun.KEPT_CODE_FILE)
PAGE_THREADS = 2  # a phone or two on the access point at once; the table's server bounds the rest


def watch(network, timing: hotspot.Timing, code_file: Path, port: int, clock=time.monotonic) -> None:
    asked = threading.Event()

    def save(wifi):
        network.save(wifi)
        asked.set()

    page, server = create_wifi_app(CardDesk(code_file, save), clock=clock), None
    state, said = hotspot.Watch(), None
    try:
        while True:
            seen = replace(network.seen(), asked=asked.is_set())
            asked.clear()
            state, do = hotspot.decide(state, seen, clock(), timing)
            ap_on = seen.ap_on
            if do == hotspot.START_AP:
                try:
                    network.start_ap()
                    logging.info("no home network for %.0f s: the access point is open", timing.grace_s)
                    ap_on, said = True, None
                except ApUnavailable as e:
                    # A table with no Wi-Fi radio (a cable only) waits for its network: said once, tried again later.
                    state = hotspot.refused(state, clock())
                    if str(e) != said:
                        logging.warning("the access point cannot open (%s): waiting for a network, trying again "
                                        "every %.0f s", e, timing.retry_s)
                    said = str(e)
            elif do == hotspot.STOP_AP:
                logging.info("leaving the access point: %s", "a network is back" if seen.online else "trying the home network")
                network.stop_ap()
                ap_on = False
            server = _page_while(ap_on, server, page, network.page_address, port)
            asked.wait(timing.look_s)
    finally:
        _page_while(False, server, page, network.page_address, port)


def _page_while(ap_on: bool, server, page, host: str, port: int):
    """The Wi-Fi page served on the access point's address while it is up, and not at all otherwise (so no one on
    the home network reaches it); the server now. An address not there yet is tried again at the next look."""
    if ap_on and server is None:
        try:
            return ServerThread(make_server(None, host, port, threads=PAGE_THREADS, app=page))
        except OSError as e:
            logging.warning("the Wi-Fi page cannot listen on %s:%s yet (%s)", host, port, e.strerror or e)
            return None
    if not ap_on and server is not None:
        server.close()
        return None
    return server


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
    showing = commands.add_parser("show-code")
    showing.add_argument("--kept", type=Path, default=KEPT_CODE)
    showing.add_argument("--card", type=Path, default=SETUP_CODE_FILE)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.command == "boot":
        firstboot.apply(args.boot, args.root)
    elif args.command == "show-code":
        logging.info("%s", show_code(args.kept, args.card))
    else:
        watch(network_from(os.environ.get("COMPANION_NETWORK")), hotspot.Timing(args.grace, args.retry, args.look),
              args.setup_code_file, args.port)


if __name__ == "__main__":
    main()
