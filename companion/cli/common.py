"""What every command shares: one-line refusals, and options checked by the config's own rules."""

import argparse

from companion.errors import BadInput, printable

MOCK_HELP = "use mock pins (no GPIO needed)"  # every command that can run without the GPIO says so alike


class Refusal(Exception):
    """The command cannot go on; the message says why in one line (exit status `code`)."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(printable(message))  # one line, whatever the file or field it names holds
        self.code = code


def checked_option(check, name: str):
    """An argparse type that checks a value with the config's own rule (`check_host`, `check_pin`,
    `check_port`, named: the config is imported only when an option is given) or with `check` itself, so that
    a command's option and the config's key refuse the same values, naming the option."""

    def convert(text: str):
        if isinstance(check, str):
            from companion import config

            rule = getattr(config, check)
        else:
            rule = check
        value = text
        if check == "check_port":
            try:
                value = int(text)
            except ValueError:
                raise argparse.ArgumentTypeError(
                    f"expected a port number from 1 to 65535 (or 0: any free one), got {text[:20]!r}") from None
            if value == 0:
                return 0  # asked for on purpose: any free port, and the start-up line says which
        try:
            return rule(value, name)
        except BadInput as e:
            raise argparse.ArgumentTypeError(e.problem) from None
    return convert
