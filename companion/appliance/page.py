"""The Wi-Fi page's desk: what the table's own Wi-Fi page (companion.web.wifi) asks of the network watcher.

The watcher runs as root because it drives NetworkManager; the daemon, a user without privileges, cannot save
a network. So the privileged step stays in the watcher, behind this desk, and what faces a phone is the
table's web stack, not a second one (docs/design.md says why). The setup code is read from the card's copy,
which the table writes while setup is open; the network goes through the Wi-Fi file's own reader.
"""

from pathlib import Path

from companion.appliance.bootfiles import COUNTRY_LETTERS, PSK_HEX, SSID_BYTES, WIFI_KEYS, wifi_setting
from companion.table.firstrun import matches, read_code


class CardDesk:
    """The setup code as the card's copy holds it, and a network checked, then handed to `save`.

    >>> desk = CardDesk(Path("/nonexistent"), print)
    >>> desk.setup_code(), desk.accepts_setup_code("ABCDE-FGHJK")
    (None, False)
    >>> desk.join_wifi({"ssid": "Home", "password": "", "country": "jp"})  # doctest: +ELLIPSIS
    WifiSetting(ssid='Home', ...)
    'Home'
    """

    def __init__(self, code_file: Path, save):
        self.code_file = Path(code_file)
        self.save = save  # called with the checked WifiSetting

    def setup_code(self) -> str | None:
        return read_code(self.code_file)

    def accepts_setup_code(self, given: object) -> bool:
        code = self.setup_code()
        return code is not None and matches(given, code)

    def wifi_limits(self) -> dict[str, int]:
        return {"ssid": SSID_BYTES, "password": PSK_HEX, "country": COUNTRY_LETTERS}

    def join_wifi(self, form: dict[str, str]) -> str:
        wifi = wifi_setting({key: form.get(key, "") for key in WIFI_KEYS}, "wifi")
        self.save(wifi)
        return wifi.ssid
