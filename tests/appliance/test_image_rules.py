"""The card image's first boot and access-point rules, without a card: the boot partition's files, the
watcher's decisions over any sequence of networks, the Wi-Fi page, with the shipped fake network."""

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.appliance import bootfiles, firstboot, hotspot
from companion.appliance.network import FakeNetwork, seen_from
from companion.errors import BadInput

WIFI = "# home\nssid=Our home\npassword=correct horse\ncountry=jp\n"


def test_the_wifi_file_is_read_and_its_password_blanked():
    wifi = bootfiles.read_wifi(WIFI)
    assert (wifi.ssid, wifi.password, wifi.country) == ("Our home", "correct horse", "JP")
    left = bootfiles.blanked(WIFI)
    assert "correct horse" not in left and "ssid=Our home" in left and "password=\n" in left
    assert "correct horse" not in repr(wifi)


@pytest.mark.parametrize("text, field, code", [
    ("ssid=a\ncountry=XX\n", "companion-wifi.txt.country", "errors.wifi.country"),
    ("ssid=a\npassword=short\ncountry=JP\n", "companion-wifi.txt.password", "errors.wifi.password"),
    ("ssid=" + "é" * 17 + "\ncountry=JP\n", "companion-wifi.txt.ssid", "errors.wifi.ssid"),
    ("ssid=a\nssid=b\ncountry=JP\n", "companion-wifi.txt.ssid", "errors.wifi.twice"),
    ("ssid=a\ncountry=JP\npsk=12345678\n", "companion-wifi.txt.psk", "errors.unknown_field"),
    ("country=JP\n", "companion-wifi.txt.ssid", "errors.missing"),
    ("ssid a\n", "companion-wifi.txt:1", "errors.wifi.line"),
])
def test_a_wrong_wifi_file_is_refused_naming_its_field(text, field, code):
    with pytest.raises(BadInput) as refused:
        bootfiles.read_wifi(text)
    assert (refused.value.field, refused.value.error_code) == (field, code)


def test_a_hex_key_and_an_open_network_are_wifi_passwords():
    assert bootfiles.read_wifi("ssid=a\npassword=" + "ab" * 32 + "\ncountry=GB").password == "ab" * 32
    assert "wifi-security" not in bootfiles.keyfile(bootfiles.read_wifi("ssid=a\ncountry=GB"))


def test_first_boot_applies_the_cards_files(tmp_path):
    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (root / "etc").mkdir(parents=True)
    (root / "etc/hostname").write_text("companion\n")
    (boot / bootfiles.WIFI_FILE).write_text(WIFI)
    (boot / bootfiles.NAME_FILE).write_text("Red-Table\n")
    (boot / "ssh").write_text("")
    commands, names = [], []
    done = firstboot.apply(boot, root, run=lambda c, **kw: commands.append(c), set_hostname=names.append)
    connection = root / "etc/NetworkManager/system-connections/companion-wifi.nmconnection"
    assert "psk=correct horse" in connection.read_text() and connection.stat().st_mode & 0o777 == 0o600
    assert not (boot / bootfiles.WIFI_FILE).exists()
    assert "correct horse" not in (boot / bootfiles.WIFI_USED).read_text()
    assert (root / "etc/hostname").read_text() == "red-table\n" and names == ["red-table"]
    assert "ssid=red-table-setup" in (root / "etc/NetworkManager/system-connections/companion-hotspot.nmconnection").read_text()
    assert ("ssh-keygen", "-A") in commands and not (boot / "ssh").exists()
    assert (root / "etc/modprobe.d/companion-wifi-country.conf").read_text() == "options cfg80211 ieee80211_regdom=JP\n"
    # The next boot finds nothing new to do.
    assert firstboot.apply(boot, root, run=lambda c, **kw: commands.append(c), set_hostname=names.append) == []


def test_the_wifi_files_secret_is_overwritten_where_it_lay_before_the_file_is_removed(tmp_path):
    """FAT does not wipe what it deletes: the password's bytes are overwritten in the file's own place first
    (read here through the file as it was opened before first boot: the same place on the card)."""
    import os

    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (root / "etc").mkdir(parents=True)
    (boot / bootfiles.WIFI_FILE).write_text(WIFI)
    where_it_lay = os.open(boot / bootfiles.WIFI_FILE, os.O_RDONLY)
    try:
        firstboot.apply(boot, root, run=lambda c, **kw: None, set_hostname=lambda n: None)
        left = os.pread(where_it_lay, 4096, 0)
    finally:
        os.close(where_it_lay)
    assert not (boot / bootfiles.WIFI_FILE).exists()
    assert len(left) == len(WIFI.encode()) and b"correct horse" not in left and b"ssid=" not in left


@pytest.mark.parametrize("file, error", [(bootfiles.WIFI_FILE, firstboot.WIFI_ERROR),
                                         (bootfiles.NAME_FILE, firstboot.NAME_ERROR)])
def test_a_file_that_is_not_utf8_is_kept_as_it_is_with_the_reason_beside_it(tmp_path, file, error):
    """Windows-1252 `ssid=Café` is never a profile for `Caf\ufffd`: nothing is mangled, nothing removed."""
    boot, root = tmp_path / "boot", tmp_path / "root"
    boot.mkdir()
    (root / "etc").mkdir(parents=True)
    (root / "etc/hostname").write_text("companion\n")
    raw = ("ssid=Café\npassword=correct horse\ncountry=FR\n" if file == bootfiles.WIFI_FILE else "Café\n")
    (boot / file).write_bytes(raw.encode("cp1252"))
    done = firstboot.apply(boot, root, run=lambda c, **kw: None, set_hostname=lambda n: None)
    assert (boot / file).read_bytes() == raw.encode("cp1252")
    reason = (boot / error).read_text()
    assert reason.startswith(f"{file}: not UTF-8 text") and "\n" == reason[-1] and reason.count("\n") == 1
    assert not (root / "etc/NetworkManager/system-connections/companion-wifi.nmconnection").exists()
    assert (root / "etc/hostname").read_text() == "companion\n"
    assert any(line.startswith(f"refused {file}") for line in done)


def test_a_refused_wifi_file_stays_with_its_reason_beside_it(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / bootfiles.WIFI_FILE).write_text("ssid=a\ncountry=XX\n")
    firstboot.apply(tmp_path, tmp_path, run=lambda c, **kw: None, set_hostname=lambda n: None)
    assert (tmp_path / bootfiles.WIFI_FILE).exists()
    assert "companion-wifi.txt.country" in (tmp_path / firstboot.WIFI_ERROR).read_text()


looks = st.lists(st.tuples(st.booleans(), st.booleans(), st.floats(0.5, 400)), max_size=60)


# Drawing a list is timed by the wall clock: on a busy machine it is slow, and that says nothing of the rule.
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(looks)
def test_the_access_point_never_stays_open_beside_a_network_and_opens_only_after_the_grace(steps):
    """Over any sequence of networks coming and going, the access point following each decision."""
    watch, now, offline_since = hotspot.Watch(), 0.0, None
    state = {"ap_on": False}
    for online, known, dt in steps:
        now += dt
        seen = hotspot.Seen(online=online, ap_on=state["ap_on"], known=known)
        watch, do = hotspot.decide(watch, seen, now)
        offline_since = None if online else (offline_since if offline_since is not None else now)
        if online:
            assert do == (hotspot.STOP_AP if state["ap_on"] else None)
        if do == hotspot.START_AP:
            assert not online and now - offline_since >= hotspot.OFFLINE_GRACE_S
        state["ap_on"] = {hotspot.START_AP: True, hotspot.STOP_AP: False}.get(do, state["ap_on"])


def test_a_known_network_gets_its_turn_and_a_saved_one_at_once():
    watch, _ = hotspot.decide(hotspot.Watch(), hotspot.Seen(False, False, True), 0)
    watch, do = hotspot.decide(watch, hotspot.Seen(False, False, True), hotspot.OFFLINE_GRACE_S)
    assert do == hotspot.START_AP
    on = hotspot.Seen(False, True, True)
    watch, do = hotspot.decide(watch, on, hotspot.OFFLINE_GRACE_S + 1)
    assert do is None
    assert hotspot.decide(watch, on, hotspot.OFFLINE_GRACE_S + hotspot.RETRY_S)[1] == hotspot.STOP_AP
    assert hotspot.decide(watch, hotspot.Seen(False, True, False, asked=True), hotspot.OFFLINE_GRACE_S + 2)[1] \
        == hotspot.STOP_AP
    # With no home network known, the access point stays: there is nothing to try.
    assert hotspot.decide(watch, hotspot.Seen(False, True, False), 10**6)[1] is None


def test_nmcli_output_is_read():
    seen = seen_from("wifi:connected:companion-wifi\nwifi-p2p:disconnected:\n", "companion-wifi:802-11-wireless\n")
    assert (seen.online, seen.ap_on, seen.known) == (True, False, True)


def test_the_fake_network_keeps_what_the_watcher_did(tmp_path):
    fake = FakeNetwork(tmp_path / "net.json")
    fake.start_ap()
    fake.save(bootfiles.read_wifi(WIFI))
    assert fake.seen() == hotspot.Seen(online=False, ap_on=True, known=True)
    Path(tmp_path / "net.json").write_text('{"online": true, "ap_on": true}')
    assert fake.seen().online


def test_the_setup_code_reaches_the_card_as_a_code_and_nothing_else(tmp_path):
    """The daemon keeps its code in its own folder; root copies it to the card only if it reads as a code."""
    from companion.appliance.setupcode import show_code

    kept, card = tmp_path / "setup-code", tmp_path / "boot" / "companion-setup-code.txt"
    card.parent.mkdir()
    assert show_code(kept, card) == "setup is closed: no code on the card"
    kept.write_text("ABCDEFGHJK\n")
    assert show_code(kept, card).startswith("put the setup code on the card") and card.read_text() == "ABCDEFGHJK\n"
    assert show_code(kept, card).endswith("holds the setup code already")
    kept.write_text("dtoverlay=anything\n")  # a daemon taken over writes what it likes in its own file
    assert show_code(kept, card).startswith("setup is closed: removed") and not card.exists()
    assert [p.name for p in card.parent.iterdir()] == []


class NoRadio:
    """A network on a table without a Wi-Fi radio: offline, and its access point never opens (as nmcli refuses)."""

    page_address = "127.0.0.1"

    def __init__(self, clock, looks: int):
        self.clock, self.looks, self.tries = clock, looks, []

    def seen(self):
        if not self.looks:
            raise StopIteration  # the test's end of the watch, never the network's
        self.looks -= 1
        self.clock.now += 10
        return hotspot.Seen(online=False, ap_on=False, known=False)

    def start_ap(self):
        from companion.appliance.network import ApUnavailable

        self.tries.append(self.clock.now)
        raise ApUnavailable("Error: Connection activation failed: No suitable device found for this connection")


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_without_a_radio_the_watcher_stays_up_says_so_once_and_tries_again_after_a_while(tmp_path, caplog):
    """companion-network used to die on the access point's failure and restart every minute, forever."""
    from companion.appliance.__main__ import watch

    clock = Clock()
    network = NoRadio(clock, looks=int(2 * hotspot.RETRY_S / 10) + 10)
    with pytest.raises(StopIteration):
        watch(network, hotspot.Timing(look_s=0), tmp_path / "code.txt", 0, clock=clock)
    assert len(network.tries) == 3 and network.tries[1] - network.tries[0] == hotspot.RETRY_S
    warned = [r for r in caplog.records if "access point cannot open" in r.getMessage()]
    assert len(warned) == 1 and "No suitable device" in warned[0].getMessage()


def test_nmclis_refusal_to_open_the_access_point_is_read_as_no_access_point():
    import subprocess

    from companion.appliance.network import ApUnavailable, NetworkManager

    said = "Error: Connection activation failed: No suitable device found for this connection (device eth0 not available).\n"
    refused = NetworkManager(run=lambda command, **kw: subprocess.CompletedProcess(command, 4, "", said))
    with pytest.raises(ApUnavailable, match="No suitable device"):
        refused.start_ap()
