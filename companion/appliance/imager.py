"""What Raspberry Pi Imager's OS customisation leaves on the card, read as data (pure: text in, values out).

For a custom image Imager writes cloud-init's `user-data` (hostname, a user with a password hash or public keys,
ssh on, password login), `network-config` (one Wi-Fi network with its country) and `meta-data`; for an image
listed with the systemd format it writes `firstrun.sh`, a shell script. The script is never run: its lines that
call Raspberry Pi OS's helpers (`imager_custom set_hostname`, `enable_ssh`, `set_wlan`, `userconf`) are read
as words. Every value goes through the field readers; anything Imager writes that the table cannot use is
refused by name, so nothing is applied in part.

>>> settings = read_user_data("#cloud-config\\nhostname: red-table\\nenable_ssh: true\\nusers:\\n- name: ann\\n"
...                           "  lock_passwd: true\\n  ssh_authorized_keys:\\n    - ssh-ed25519 AAAAC3Nz ann@home\\n")
>>> settings.hostname, settings.user.name, settings.user.keys, settings.ssh, settings.password_login
('red-table', 'ann', ('ssh-ed25519 AAAAC3Nz ann@home',), True, False)
"""

import re
import shlex
from dataclasses import dataclass, field, replace

from companion.appliance import bootfiles
from companion.appliance.cloudyaml import SIZE_LIMIT, read as read_yaml
from companion.errors import BadInput
from companion.fields import at, items, line, mapping, record, shown

USER_DATA, NETWORK_CONFIG, META_DATA, FIRSTRUN = "user-data", "network-config", "meta-data", "firstrun.sh"
USER_NAME_LIMIT = 32  # Debian's adduser rule for a login name: these characters, at most 32
USER_NAME = re.compile(rf"[a-z_][a-z0-9_-]{{0,{USER_NAME_LIMIT - 1}}}")
TAKEN_NAMES = frozenset({"root", "companion"})  # the system's, and the table's own user (no shell)
# A crypt(3) hash as Imager makes one ($6$ SHA-512, $5$, $y$ yescrypt), never a password itself.
HASH = re.compile(r"\$(?:1|2[aby]|5|6|7|gy|y)\$[./0-9A-Za-z$=,]{8,}")
HASH_LIMIT = 256  # characters: a yescrypt or SHA-512 hash with its settings is about 110
KEY_TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521",
             "sk-ssh-ed25519@openssh.com", "sk-ecdsa-sha2-nistp256@openssh.com")
KEY_LIMIT = 16384  # characters of one public key line: an RSA key of 16384 bits is under 3000
KEYS_LIMIT = 32
LINE_LIMIT = 1024  # one of Imager's lines: a runcmd entry, the list of groups
LIST_LIMIT = 32  # entries of one of Imager's lists (packages, runcmd)
INSTANCE_ID_LIMIT = 128
SUDO_ALL = "ALL=(ALL) NOPASSWD:ALL"  # what Imager gives a user with keys (and no password to give sudo)
FLAGS = {"true": True, "True": True, "false": False, "False": False}
USER_DATA_KEYS = ("hostname", "manage_etc_hosts", "packages", "apt", "timezone", "keyboard", "enable_ssh", "users",
                  "ssh_pwauth", "rpi", "runcmd")
USER_KEYS = ("name", "groups", "shell", "lock_passwd", "passwd", "ssh_authorized_keys", "sudo")
NOT_USED = ("rpi",)  # read, and left: the table has its own SPI overlay
KEYBOARD_KEYS = ("layout", "model", "variant", "options")  # cloud-init's keyboard module; Imager writes two
# A time zone as tzdata names it (Europe/London, America/Argentina/Buenos_Aires, Etc/GMT+5), never a path out of it.
ZONE = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_][A-Za-z0-9_+-]*){0,2}")
ZONE_LIMIT = 64  # characters: tzdata's longest name is 32
# An xkb name (a layout, model or variant: gb, jp, pc105, dvorak) and xkb options (ctrl:nocaps,compose:ralt).
# Nothing else: console-setup's shell sources the file they are written into.
XKB_NAME = re.compile(r"(?:[a-z0-9][a-z0-9_-]{0,31})?")
XKB_OPTIONS = re.compile(r"(?:[a-z0-9_]+:[a-z0-9_]+(?:,[a-z0-9_]+:[a-z0-9_]+)*)?")
# The commands Imager itself puts in runcmd: the radio unblocked, the country for crda, the keymap. Read, not run.
IMAGER_COMMANDS = (re.compile(r"rfkill unblock wifi"),
                   re.compile(r"sh -c for f in /var/lib/systemd/rfkill/\*:wlan; do echo 0 > \"\$f\"; done"),
                   re.compile(r"sed -i 's/\^\\s\*REGDOMAIN=\\S\*/REGDOMAIN=(?P<country>[A-Za-z]{2})/' "
                              r"/etc/default/crda \|\| true"),
                   re.compile(r"localectl set-x11-keymap \"[\w-]+\" pc105"),
                   re.compile(r"setupcon -k --force \|\| true"),
                   re.compile(r"rm -f /etc/xdg/autostart/piwiz.desktop"))
HELPER = "/usr/lib/raspberrypi-sys-mods/imager_custom"
USERCONF = "/usr/lib/userconf-pi/userconf"


@dataclass(frozen=True)
class Login:
    """A person's account on the table: a name, a password hash only if Imager gave one, public keys."""

    name: str
    password_hash: str | None = None
    keys: tuple[str, ...] = ()
    sudo: bool = False  # sudo without a password: Imager's grant to a user who logs in with a key

    def __repr__(self) -> str:  # the hash never reaches a log by a repr
        return (f"Login(name={self.name!r}, password_hash={'***' if self.password_hash else None}, "
                f"keys={len(self.keys)}, sudo={self.sudo})")


@dataclass(frozen=True)
class Keyboard:
    """A keyboard as console-setup reads it from /etc/default/keyboard (xkb's names)."""

    layout: str
    model: str = "pc105"
    variant: str = ""
    options: str = ""

    def __str__(self) -> str:
        return f"{self.layout}{f' {self.variant}' if self.variant else ''} ({self.model})"


@dataclass(frozen=True)
class ImagerSettings:
    """What the card's Imager files ask for; None or empty where they say nothing."""

    hostname: str | None = None
    wifi: bootfiles.WifiSetting | None = None
    user: Login | None = None
    ssh: bool = False
    password_login: bool = False
    country: str | None = None  # a Wi-Fi country given apart from the network (cmdline.txt, runcmd)
    timezone: str | None = None  # tzdata's name of the owner's zone: a night on the progress pages starts in it
    keyboard: Keyboard | None = None  # the layout of a keyboard on the table's screen
    where: dict[str, str] = field(default_factory=dict)  # where the time zone and layout were read, for a refusal
    left: tuple[str, ...] = field(default=())  # settings read and deliberately left, for the journal


def flag(value, where: str) -> bool:
    if value not in FLAGS:
        raise BadInput(where, f"expected true or false, got {shown(value)}", code="errors.imager.flag")
    return FLAGS[value]


def hostname(value, where: str) -> str:
    return bootfiles.read_name(line(value, where, bootfiles.NAME_LIMIT), where)


def user_name(value, where: str) -> str:
    name = line(value, where, USER_NAME_LIMIT)
    if not USER_NAME.fullmatch(name) or name in TAKEN_NAMES:
        raise BadInput(where, f"a user name has lower-case letters, digits, _ and - (at most {USER_NAME_LIMIT}), "
                              "and is not root or companion", code="errors.imager.user",
                       params={"limit": USER_NAME_LIMIT})
    return name


def password_hash(value, where: str) -> str:
    if not HASH.fullmatch(line(value, where, HASH_LIMIT)):
        raise BadInput(where, "expected a password hash as Imager writes it ($6$...), never a password itself",
                       code="errors.imager.hash")
    return value


def zone(value, where: str) -> str:
    """A time zone's name as tzdata spells it; whether the table has it is first boot's to ask."""
    name = line(value, where, ZONE_LIMIT)
    if not ZONE.fullmatch(name) or ".." in name:
        raise BadInput(where, f"expected a time zone as Imager lists it (Europe/London), got {shown(name)}",
                       code="errors.imager.timezone", params={"zone": name})
    return name


def xkb(value, where: str, pattern=XKB_NAME, empty: bool = False) -> str:
    name = line(value, where, LINE_LIMIT, empty=empty)  # a layout and a model are never empty: line() says so
    if not pattern.fullmatch(name):
        raise BadInput(where, f"expected a keyboard layout as Imager lists it (gb, jp, us), got {shown(name)}",
                       code="errors.imager.keyboard", params={"layout": name})
    return name


def keyboard(value, where: str) -> Keyboard:
    found = record(mapping(value, where), where, KEYBOARD_KEYS, required=("layout",))
    return Keyboard(layout=xkb(found["layout"], at(where, "layout")),
                    model=xkb(found.get("model", "pc105"), at(where, "model")),
                    variant=xkb(found["variant"], at(where, "variant"), empty=True) if "variant" in found else "",
                    options=xkb(found["options"], at(where, "options"), XKB_OPTIONS, empty=True)
                    if "options" in found else "")


def public_key(value, where: str) -> str:
    key = line(value, where, KEY_LIMIT).strip()
    kind, _, rest = key.partition(" ")
    body = rest.split(" ", 1)[0]
    if kind not in KEY_TYPES or not re.fullmatch(r"[A-Za-z0-9+/]+={0,3}", body):
        raise BadInput(where, "expected a public key line like ssh-ed25519 AAAA... you@computer",
                       code="errors.imager.key")
    return key


def public_keys(lines, where: str) -> tuple[str, ...]:
    return tuple(public_key(key, at(where, i)) for i, key in enumerate(items(lines, where, 0, KEYS_LIMIT)))


def authorized_keys(text: str, source: str = "authorized_keys") -> tuple[str, ...]:
    """The keys of an `authorized_keys` file (blank lines and `#` comments skipped; no options before a key).

    >>> authorized_keys("# mine\\nssh-ed25519 AAAAC3Nz me@laptop\\n")
    ('ssh-ed25519 AAAAC3Nz me@laptop',)
    """
    keys = [raw for raw in text.lstrip("\ufeff").splitlines() if raw.strip() and not raw.lstrip().startswith("#")]
    return public_keys(keys, source)


def _user(value, where: str) -> Login:
    found = record(mapping(value, where), where, USER_KEYS, required=("name",))
    name = user_name(found["name"], at(where, "name"))
    locked = flag(found.get("lock_passwd", "true"), at(where, "lock_passwd"))
    given = found.get("passwd")
    hashed = password_hash(given, at(where, "passwd")) if given is not None else None
    if found.get("shell", "/bin/bash") not in ("/bin/bash", "/bin/sh"):
        raise BadInput(at(where, "shell"), "expected /bin/bash", code="errors.imager.unused")
    if "sudo" in found and found["sudo"] != SUDO_ALL:
        raise BadInput(at(where, "sudo"), f"expected {SUDO_ALL} (as Imager writes it)", code="errors.imager.unused")
    line(found.get("groups", ""), at(where, "groups"), LINE_LIMIT, empty=True)  # read; sudo follows the password
    keys = public_keys(found.get("ssh_authorized_keys", []), at(where, "ssh_authorized_keys"))
    # As cloud-init reads it: a locked password (its default) is no password, whatever hash is beside it.
    return Login(name, None if locked else hashed, keys, sudo="sudo" in found)


def _command(entry, where: str) -> str | None:
    """One of Imager's own runcmd entries, recognised (never run); the country it names, if any."""
    words = (" ".join(line(w, where, LINE_LIMIT) for w in entry) if isinstance(entry, list)
             else line(entry, where, LINE_LIMIT))
    for known in IMAGER_COMMANDS:
        if matched := known.fullmatch(words.strip()):
            return matched.groupdict().get("country")
    raise BadInput(where, "a command: the table runs no commands from the card", code="errors.imager.unused")


def read_user_data(text: str, source: str = USER_DATA) -> ImagerSettings:
    """The settings of Imager's `user-data` (cloud-config), checked; BadInput naming the first that is not."""
    if not text.lstrip("\ufeff").startswith("#cloud-config"):
        raise BadInput(source, "expected #cloud-config on the first line", code="errors.imager.format")
    found = record(mapping(read_yaml(text, source), source), source, USER_DATA_KEYS)
    name = hostname(found["hostname"], at(source, "hostname")) if "hostname" in found else None
    for package in items(found.get("packages", []), at(source, "packages"), 0, LIST_LIMIT):
        if package != "avahi-daemon":  # Imager's one package is on the card already
            raise BadInput(at(source, "packages"), "the card installs no packages at boot",
                           code="errors.imager.unused")
    record(found.get("apt", {}), at(source, "apt"), ("conf",))  # Imager's apt clock setting: nothing to install
    countries = [c for i, entry in enumerate(items(found.get("runcmd", []), at(source, "runcmd"), 0, LIST_LIMIT))
                 if (c := _command(entry, at(at(source, "runcmd"), i)))]
    users = items(found.get("users", []), at(source, "users"), 0, 1, expected="one user, as Imager writes it")
    user = _user(users[0], at(at(source, "users"), 0)) if users else None
    keys_given = bool(user and user.keys)
    asked = flag(found.get("enable_ssh", "true" if keys_given else "false"), at(source, "enable_ssh"))
    password_login = flag(found.get("ssh_pwauth", "false"), at(source, "ssh_pwauth"))
    country = countries[-1].upper() if countries else None
    if country is not None and country not in bootfiles.COUNTRIES:
        raise BadInput(at(source, "runcmd"), f"expected a two-letter country code, got {country!r}",
                       code="errors.wifi.country")
    where = {**({"timezone": at(source, "timezone")} if "timezone" in found else {}),
             **({"layout": at(at(source, "keyboard"), "layout")} if "keyboard" in found else {})}
    return ImagerSettings(hostname=name, user=user, ssh=asked or password_login, password_login=password_login,
                          country=country,
                          timezone=zone(found["timezone"], where["timezone"]) if "timezone" in found else None,
                          keyboard=keyboard(found["keyboard"], at(source, "keyboard")) if "keyboard" in found else None,
                          where=where,
                          left=tuple(f"{source}: {key} left as it is" for key in NOT_USED if key in found))


def read_network_config(text: str, country: str | None, source: str = NETWORK_CONFIG) -> bootfiles.WifiSetting:
    """The one Wi-Fi network of Imager's `network-config` (netplan version 2), with its country (given here as
    `regulatory-domain`, or by `country` from elsewhere on the card)."""
    found = mapping(read_yaml(text, source), source)
    where = source
    if "network" in found:
        record(found, source, ("network",))
        found, where = mapping(found["network"], at(source, "network")), at(source, "network")
    record(found, where, ("version", "wifis"), required=("version", "wifis"))
    if found["version"] != "2":
        raise BadInput(at(where, "version"), "expected 2", code="errors.imager.format")
    radios = mapping(found["wifis"], at(where, "wifis"))
    record(radios, at(where, "wifis"), ("renderer", "wlan0"), required=("wlan0",))
    where = radio_at = at(at(where, "wifis"), "wlan0")
    radio = record(mapping(radios["wlan0"], where), where, ("dhcp4", "optional", "regulatory-domain", "access-points"),
                   required=("access-points",))
    if not flag(radio.get("dhcp4", "true"), at(where, "dhcp4")):
        raise BadInput(at(where, "dhcp4"), "the table takes its address from the network (true)",
                       code="errors.imager.unused")
    flag(radio.get("optional", "true"), at(where, "optional"))
    points = mapping(radio["access-points"], at(where, "access-points"))
    if len(points) != 1:
        raise BadInput(at(where, "access-points"), "expected one network, as Imager writes it",
                       code="errors.imager.format")
    (ssid, point), = points.items()
    where = at(where, "access-points")
    point = record(mapping(point or {}, at(where, ssid)), at(where, ssid), ("password", "hidden"))
    country = radio.get("regulatory-domain") or country
    if country is None:
        raise BadInput(at(radio_at, "regulatory-domain"), "missing: choose the Wi-Fi country in "
                       "Imager", code="errors.missing")
    wifi = bootfiles.wifi_setting({"ssid": ssid, "password": point.get("password", ""), "country": country}, where)
    return replace(wifi, hidden=flag(point.get("hidden", "false"), at(at(where, ssid), "hidden")))


def read_meta_data(text: str, source: str = META_DATA) -> str:
    """Imager's `meta-data`: the instance id it names this writing of the card by (nothing else is in it)."""
    found = record(mapping(read_yaml(text, source), source), source, ("instance-id", "local-hostname"))
    return line(found.get("instance-id", ""), at(source, "instance-id"), INSTANCE_ID_LIMIT, empty=True)


def read_firstrun(text: str, source: str = FIRSTRUN) -> ImagerSettings:
    """The settings in Imager's `firstrun.sh`, read from its calls of Raspberry Pi OS's helpers (never run)."""
    if len(text) > SIZE_LIMIT:
        raise BadInput(source, f"longer than {SIZE_LIMIT} characters", code="errors.file.too_long",
                       params={"limit": SIZE_LIMIT})
    settings, seen = ImagerSettings(), False
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{source}:{number}"
        words = raw.strip().split(None, 1)
        if not words or words[0] not in (HELPER, USERCONF):
            continue  # the script's shell around the helpers: its fallbacks say the same again
        try:
            words = shlex.split(line(raw, where, SIZE_LIMIT), comments=False, posix=True)
        except ValueError:
            raise BadInput(where, "a line of Imager's not closed", code="errors.imager.format") from None
        seen = True
        settings = _helper(settings, words, where)
    if not seen:
        raise BadInput(source, "none of Imager's settings in it", code="errors.imager.format")
    return settings


def _helper(settings: ImagerSettings, words: list[str], where: str) -> ImagerSettings:
    if words[0] == USERCONF and len(words) == 3:
        name = user_name(words[1], at(where, "user"))
        hashed = password_hash(words[2], at(where, "password")) if words[2] else None
        keys = settings.user.keys if settings.user else ()
        return replace(settings, user=Login(name, hashed, keys, sudo=bool(keys)))
    command, arguments = (words[1], words[2:]) if len(words) > 1 else ("", [])
    if command == "set_hostname" and len(arguments) == 1:
        return replace(settings, hostname=hostname(arguments[0], at(where, "hostname")))
    if command == "enable_ssh":
        key_only = arguments[:1] == ["-k"]
        keys = public_keys(arguments[1:] if key_only else arguments, at(where, "keys"))
        user = settings.user or Login("pi")  # Imager's first user when it names none
        return replace(settings, ssh=True, password_login=not key_only,
                       user=replace(user, keys=keys, sudo=bool(keys)))
    if command == "set_wlan":
        hidden = arguments[:1] == ["-h"]
        arguments = arguments[1:] if hidden else arguments
        if len(arguments) != 3:
            raise BadInput(at(where, "wlan"), "expected the network's name, key and country",
                           code="errors.imager.format")
        wifi = bootfiles.wifi_setting(dict(zip(("ssid", "password", "country"), arguments)), at(where, "wlan"))
        return replace(settings, wifi=replace(wifi, hidden=hidden))
    if command == "set_timezone" and len(arguments) == 1:
        return replace(settings, timezone=zone(arguments[0], at(where, "timezone")),
                       where={**settings.where, "timezone": at(where, "timezone")})
    if command == "set_keymap" and len(arguments) == 1:
        return replace(settings, keyboard=Keyboard(xkb(arguments[0], at(where, "layout"))),
                       where={**settings.where, "layout": at(where, "layout")})
    raise BadInput(where, f"{command or words[0]}: not one of Imager's settings the table reads",
                   code="errors.imager.unused")


def regulatory_domain(cmdline: str) -> str | None:
    """The Wi-Fi country Imager adds to cmdline.txt (`cfg80211.ieee80211_regdom=GB`), if it did.

    >>> regulatory_domain("console=tty1 root=LABEL=companion-root rootwait cfg80211.ieee80211_regdom=gb")
    'GB'
    """
    for word in cmdline.split():
        if word.startswith("cfg80211.ieee80211_regdom="):
            return word.partition("=")[2].upper() or None
    return None


def without_firstrun(cmdline: str) -> str:
    """cmdline.txt without the `systemd.run=...` Imager adds for firstrun.sh (as the script itself removes it).

    >>> without_firstrun("root=LABEL=r rootwait systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot\\n")
    'root=LABEL=r rootwait\\n'
    """
    kept = [w for w in cmdline.split() if not w.startswith(("systemd.run", "systemd.unit=kernel-command-line"))]
    return " ".join(kept) + "\n"


def merged(first: ImagerSettings, then: ImagerSettings) -> ImagerSettings:
    """Two files' settings as one: what `first` says, and what only `then` says."""
    return ImagerSettings(hostname=first.hostname or then.hostname, wifi=first.wifi or then.wifi,
                          user=first.user or then.user, ssh=first.ssh or then.ssh,
                          password_login=first.password_login or then.password_login,
                          country=first.country or then.country, timezone=first.timezone or then.timezone,
                          keyboard=first.keyboard or then.keyboard, where={**then.where, **first.where},
                          left=first.left + then.left)
