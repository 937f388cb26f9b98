"""`companion setup`: whether the table is set up, and opening its setup page again (`--reopen`)."""

from companion.cli.common import Refusal

ORDER = 25  # place in `companion --help`: after check-hw and calibrate


def cmd_setup(args) -> int:
    from companion.config import load_config, load_or_fresh, mark_set_up

    # A file named on the command line must be there (a typo is not a new table); the default one may not be yet.
    config = load_config(args.config) if args.config else load_or_fresh(None)
    if args.reopen:
        try:
            mark_set_up(config, False)
        except PermissionError as e:
            raise Refusal(f"{config.path}: cannot write it ({e.strerror}): run it as the table's user or with sudo",
                          code=1) from None
        print(f"{config.path}: setup reopened. A running table shows a new setup code on its screen and in its "
              "journal (journalctl -u companion); a stopped one at its next start.")
        return 0
    state = "set up" if config.set_up else "not set up: its setup page opens for the setup code on its start-up lines"
    print(f"{config.path}: {state}")
    return 0


def register(sub) -> None:
    setup = sub.add_parser("setup", help="say whether the table is set up; --reopen opens its setup page again")
    setup.add_argument("--config", metavar="FILE", help="config file (default /etc/companion/config.toml)")
    setup.add_argument("--reopen", action="store_true",
                       help="open the setup page again, behind a new setup code (the running table sees it at once)")
    setup.set_defaults(func=cmd_setup)
