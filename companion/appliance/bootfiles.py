"""The files an owner puts on the card's boot partition, read by one set of rules (pure: text in, values out).

`companion-wifi.txt` holds the home Wi-Fi, one `key=value` a line (`#` starts a comment)::

    ssid=Our home
    password=correct horse battery
    country=JP

>>> wifi = read_wifi("ssid=Our home\\npassword=correct horse\\ncountry=jp\\n")
>>> wifi.ssid, wifi.country
('Our home', 'JP')
>>> print(blanked("ssid=Our home\\npassword=correct horse\\ncountry=jp\\n"), end="")
# Read by the table: the password was removed from this copy.
ssid=Our home
password=
country=jp
"""

import re
from dataclasses import dataclass

from companion.errors import BadInput
from companion.fields import at, line, record

WIFI_FILE = "companion-wifi.txt"
WIFI_USED = "companion-wifi-used.txt"  # the Wi-Fi file once read, its password blanked: never read again
NAME_FILE = "companion-name.txt"
SSH_FILES = ("ssh", "ssh.txt")  # as on Raspberry Pi OS: an empty file by that name switches ssh on
AUTHORIZED_KEYS = "authorized_keys"  # public keys for root's login over ssh
IMAGER_SETTINGS = "Imager's settings"  # Raspberry Pi Imager's files, as one: the name the screen and journal give
DEFAULT_NAME = "companion"  # the table answers as companion.local until a name file says otherwise
WIFI_KEYS = ("ssid", "password", "country")
SSID_BYTES = 32  # 802.11: an SSID is at most 32 bytes
PASSPHRASE = (8, 63)  # WPA2-PSK: a passphrase of 8 to 63 characters (or the key itself, 64 hex digits)
PSK_HEX = 64
COUNTRY_LETTERS = 2  # ISO 3166 alpha-2
NAME_LIMIT = 63  # one DNS label
FILE_LIMIT = 4096  # a settings file of a few lines; anything longer is not one
WIFI_CONNECTION = "companion-wifi"  # NetworkManager's name for the home network the file gave
# The ISO 3166 country codes a Wi-Fi radio accepts for its rules (wireless-regdb's list).
COUNTRIES = frozenset(
    "AD AE AF AI AL AM AN AR AS AT AU AW AZ BA BB BD BE BF BG BH BL BM BN BO BR BS BT BY BZ CA CF CH CI CL "
    "CN CO CR CU CX CY CZ DE DK DM DO DZ EC EE EG ES ET FI FM FR GB GD GE GF GH GL GP GR GT GU GY HK HN HR "
    "HT HU ID IE IL IN IR IS IT JM JO JP KE KH KN KP KR KW KY KZ LB LC LI LK LS LT LU LV MA MC MD ME MF MH "
    "MK MN MO MP MQ MR MT MU MV MW MX MY NG NI NL NO NP NZ OM PA PE PF PG PH PK PL PM PR PT PW PY QA RE RO "
    "RS RU RW SA SE SG SI SK SN SR SV SY TC TD TG TH TN TR TT TW TZ UA UG US UY UZ VC VE VI VN VU WF WS YE "
    "YT ZA ZW".split())


@dataclass(frozen=True)
class WifiSetting:
    """A home network: its name, its password ("" for an open network) and the country its radio obeys."""

    ssid: str
    password: str
    country: str
    hidden: bool = False  # a network that does not announce its name (Imager's "hidden SSID")

    def __repr__(self) -> str:  # the password never reaches a log by a repr
        return f"WifiSetting(ssid={self.ssid!r}, password={'***' if self.password else ''!r}, country={self.country!r})"


def settings(text: str, source: str) -> dict[str, str]:
    """The `key=value` lines of a boot-partition file (blank lines and `#` comments skipped), by key.

    >>> settings("a=1\\nb = 2 \\n", "f")
    {'a': '1', 'b': '2'}
    >>> settings("a\\n", "f")
    Traceback (most recent call last):
    companion.errors.BadInput: f:1: expected key=value
    """
    if len(text) > FILE_LIMIT:
        raise BadInput(source, f"longer than {FILE_LIMIT} characters", code="errors.file.too_long",
                       params={"limit": FILE_LIMIT})
    found: dict[str, str] = {}
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):  # a BOM from a Windows editor
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        key, equals, value = raw.partition("=")
        key = key.strip().lower()
        if not equals or not key:
            raise BadInput(f"{source}:{number}", "expected key=value", code="errors.wifi.line")
        if key in found:
            raise BadInput(at(source, key), "given twice", code="errors.wifi.twice")
        found[key] = value.strip()
    return found


def read_wifi(text: str, source: str = WIFI_FILE) -> WifiSetting:
    """The home network a Wi-Fi file (or the page's form, as the same keys) names, checked.

    >>> read_wifi("ssid=Home\\npassword=short\\ncountry=JP")
    Traceback (most recent call last):
    companion.errors.BadInput: companion-wifi.txt.password: a Wi-Fi password has 8 to 63 characters
    """
    return wifi_setting(settings(text, source), source)


def wifi_setting(values: dict, source: str) -> WifiSetting:
    """The checked home network from its three fields (a file's lines or a form's)."""
    record(values, source, WIFI_KEYS, required=("ssid", "country"))
    ssid = line(values["ssid"], at(source, "ssid"), SSID_BYTES)
    if len(ssid.encode()) > SSID_BYTES:
        raise BadInput(at(source, "ssid"), f"longer than {SSID_BYTES} bytes", code="errors.wifi.ssid",
                       params={"limit": SSID_BYTES})
    password = line(values.get("password", ""), at(source, "password"), PSK_HEX, empty=True)
    hex_key = len(password) == PSK_HEX and all(c in "0123456789abcdefABCDEF" for c in password)
    if password and not hex_key and not (PASSPHRASE[0] <= len(password) <= PASSPHRASE[1] and password.isascii()):
        raise BadInput(at(source, "password"), "a Wi-Fi password has 8 to 63 characters",
                       code="errors.wifi.password", params={"low": PASSPHRASE[0], "high": PASSPHRASE[1]})
    country = line(values["country"], at(source, "country"), COUNTRY_LETTERS).upper()
    if country not in COUNTRIES:
        raise BadInput(at(source, "country"), f"expected a two-letter country code like JP or GB, got {country!r}",
                       code="errors.wifi.country")
    return WifiSetting(ssid, password, country)


def blanked(text: str) -> str:
    """The Wi-Fi file as it is left on the card once read: every line kept but the password's value.

    >>> "secret" in blanked("ssid=a\\npassword=secret")
    False
    """
    kept = ["# Read by the table: the password was removed from this copy."]
    for raw in text.lstrip("\ufeff").splitlines():
        key, equals, _ = raw.partition("=")
        kept.append(f"{key.rstrip()}=" if equals and key.strip().lower() == "password" else raw)
    return "\n".join(kept) + "\n"


def read_name(text: str, source: str = NAME_FILE) -> str:
    """The table's name on the network (`<name>.local`): the file's first line, one DNS label, lower-cased.

    >>> read_name("Red-Table\\n")
    'red-table'
    >>> read_name("red table")
    Traceback (most recent call last):
    companion.errors.BadInput: companion-name.txt: a name has letters, digits and - (at most 63), not - first or last
    """
    first = next((raw for raw in text.lstrip("\ufeff").splitlines() if raw.strip() and not raw.startswith("#")), "")
    name = line(first.strip(), source, NAME_LIMIT).lower()
    if not re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", name):
        raise BadInput(source, f"a name has letters, digits and - (at most {NAME_LIMIT}), not - first or last",
                       code="errors.wifi.name", params={"limit": NAME_LIMIT})
    return name


def keyfile(wifi: WifiSetting) -> str:
    r"""NetworkManager's connection file for the home network (written mode 600: it holds the password).

    >>> print(keyfile(WifiSetting("Home", "", "JP")), end="")
    [connection]
    id=companion-wifi
    type=wifi
    autoconnect=true
    autoconnect-priority=10
    <BLANKLINE>
    [wifi]
    mode=infrastructure
    ssid=Home
    <BLANKLINE>
    [ipv4]
    method=auto
    <BLANKLINE>
    [ipv6]
    method=auto
    """
    hidden = "hidden=true\n" if wifi.hidden else ""  # NetworkManager then probes for it by name
    security = "" if not wifi.password else f"\n[wifi-security]\nkey-mgmt=wpa-psk\npsk={escaped(wifi.password)}\n"
    return (f"[connection]\nid={WIFI_CONNECTION}\ntype=wifi\nautoconnect=true\nautoconnect-priority=10\n\n"
            f"[wifi]\nmode=infrastructure\nssid={escaped(wifi.ssid)}\n{hidden}{security}\n"
            "[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n")


def escaped(value: str) -> str:
    r"""A value as a GLib key file holds it: backslash, and spaces at its ends, escaped.

    >>> escaped(" a\\b ")
    '\\sa\\\\b\\s'
    """
    value = value.replace("\\", "\\\\")
    if value.startswith(" "):
        value = "\\s" + value[1:]
    if value.endswith(" "):
        value = value[:-1] + "\\s"
    return value


def regulatory(wifi: WifiSetting) -> str:
    """The kernel's Wi-Fi rules for the country, as a modprobe option (read as the radio's driver loads).

    >>> regulatory(WifiSetting("a", "", "JP"))
    'options cfg80211 ieee80211_regdom=JP\\n'
    """
    return f"options cfg80211 ieee80211_regdom={wifi.country}\n"


def hosts(name: str) -> str:
    """/etc/hosts for a table by that name (as Debian writes it: the name on 127.0.1.1)."""
    return f"127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n127.0.1.1\t{name}\n"
