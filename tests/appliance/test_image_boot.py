"""The card image's root booted under systemd-nspawn, as a new owner's table boots: the Wi-Fi file on the boot
partition is used and its password blanked, the table opens its own access point when there is no network
(a fake network, the one the package ships) and leaves it when the network is back, its Wi-Fi page and its
setup page answer, and a zeroconf browse on the network finds it by name."""

import json
import os
import re
import subprocess
import time

import pytest

from companion.appliance.bootfiles import WIFI_FILE, WIFI_USED
from companion.table.firstrun import is_code

pytestmark = [pytest.mark.system, pytest.mark.timeout(3600), pytest.mark.xdist_group("heavy")]

MACHINE = "cardtest"  # the host's end of the container's network is ve-cardtest
HOST_ADDRESS, TABLE_ADDRESS = "10.213.7.1", "10.213.7.2"
FAKE = "/run/companion-fake-network.json"
WAIT_S = 120  # the longest any one step of the boot may take on a loaded machine
BOOT_S = 600  # the whole boot: with Imager's keyboard, first boot compiles its layout, minutes on a busy machine
SETUP_CODE = "482913"
WIFI = "ssid=Our home\npassword=correct horse\ncountry=JP\n"
# A phone on the setup page: its cookie, the page's CSRF token, the code, then the page again.
SETUP_WALK = """
import http.cookiejar, json, re, urllib.request
phone = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
page = phone.open("http://127.0.0.1/setup/", timeout=10).read().decode()
token = re.search(r'name="csrf-token" content="([^"]+)"', page)[1]
entered = urllib.request.Request("http://127.0.0.1/api/setup/code", data=json.dumps({"code": "CODE"}).encode(),
                                 headers={"Content-Type": "application/json", "X-CSRF-Token": token})
print(json.loads(phone.open(entered, timeout=10).read())["setup"])
page = phone.open("http://127.0.0.1/setup/", timeout=10).read().decode()
print("settings" if 'id="settings-form"' in page else "no settings")
"""


def until(what: str, test, timeout: float = WAIT_S, why=lambda: ""):
    deadline = time.monotonic() + timeout
    while True:
        found = test()
        if found:
            return found
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:.0f} s\n{why()}")
        time.sleep(0.5)  # polling the container's state; no verdict depends on this interval


class Table:
    """The image's root, booted: commands run inside it through nsenter."""

    def __init__(self, root, boot, drop_in, log, machine=MACHINE):
        self.log = log
        self.process = subprocess.Popen(
            ["systemd-nspawn", "-D", str(root), "--volatile=overlay", "--keep-unit", "--register=no",
             f"--machine={machine}", "--network-veth", "--console=passive", f"--bind={boot}:/boot/firmware",
             f"--bind-ro={drop_in}:/etc/systemd/system/companion-network.service.d", "-b"],
            stdout=log.open("wb"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"})

        def leader():
            assert self.process.poll() is None, log.read_text()[-3000:]
            children = open(f"/proc/{self.process.pid}/task/{self.process.pid}/children").read().split()
            return int(children[0]) if children else None
        try:
            self.leader = until("the container's systemd", leader)
            until("the boot", lambda: self.run("systemctl", "is-system-running", check=False).stdout.strip()
                  in ("running", "degraded"), timeout=BOOT_S)
        except BaseException:
            self.close()  # a boot that failed its wait is no fixture's to stop: it kept running, and its veth
            raise  # then refused the next boot of the same machine name

    def run(self, *command, check=True, stdin=None) -> subprocess.CompletedProcess:
        done = subprocess.run(["nsenter", "-t", str(self.leader), "-a", "--", *command], capture_output=True,
                              text=True, timeout=120, input=stdin)
        assert not check or done.returncode == 0, f"{command}: {done.stdout}{done.stderr}"
        return done

    def get(self, url: str) -> str:
        script = ("import sys, urllib.request\n"
                  f"with urllib.request.urlopen({url!r}, timeout=10) as r: print(r.status); print(r.read().decode())")
        return self.run("python3", "-c", script, check=False).stdout

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def table(built, tmp_path_factory):
    boot = tmp_path_factory.mktemp("boot")
    # As fstab mounts the card's boot partition: root's alone (the setup code is put there by root).
    os.chown(boot, 0, 0)
    boot.chmod(0o700)
    (boot / "cmdline.txt").write_text("console=tty1 root=LABEL=companion-root rootwait\n")
    (boot / WIFI_FILE).write_text(WIFI)
    (boot / "companion-setup-code.txt").write_text(f"{SETUP_CODE}\n")
    drop_in = tmp_path_factory.mktemp("drop-in")
    (drop_in / "fake.conf").write_text(
        f"[Service]\nEnvironment=COMPANION_NETWORK=fake:{FAKE}\nReadWritePaths=/run\nExecStart=\n"
        "ExecStart=/opt/companion/current/bin/python -m companion.appliance watch --grace 2 --look 0.5\n")
    box = Table(built / "root-amd64", boot, drop_in, tmp_path_factory.mktemp("log") / "console.log")
    try:
        yield box, boot
    finally:
        box.close()


def test_first_boot_uses_the_wifi_file_and_blanks_its_password(table):
    box, boot = table
    until("companion-firstboot", lambda: box.run("systemctl", "is-active", "companion-firstboot.service",
                                                 check=False).stdout.strip() == "active")
    assert not (boot / WIFI_FILE).exists()
    used = (boot / WIFI_USED).read_text()
    assert "correct horse" not in used and "ssid=Our home" in used
    saved = box.run("cat", "/etc/NetworkManager/system-connections/companion-wifi.nmconnection").stdout
    assert "ssid=Our home" in saved and "psk=correct horse" in saved
    assert box.run("cat", "/etc/machine-id").stdout.strip()  # made at this boot, not baked in


def fake_network(box) -> dict:
    done = box.run("cat", FAKE, check=False)
    return json.loads(done.stdout) if done.returncode == 0 else {}


def test_no_network_opens_the_access_point_and_a_network_back_closes_it(table):
    box, _ = table
    box.run("sh", "-c", f"echo '{{\"online\": false}}' > {FAKE}")
    until("the access point opened", lambda: fake_network(box).get("ap_on") is True)
    # Root, but fenced in: read-only system, no new privileges, no capabilities but the network's.
    fenced = box.run("systemctl", "show", "-p", "ProtectSystem,NoNewPrivileges,CapabilityBoundingSet",
                     "companion-network.service").stdout
    assert "ProtectSystem=strict" in fenced and "NoNewPrivileges=yes" in fenced
    assert "CapabilityBoundingSet=cap_net_bind_service cap_net_admin" in fenced
    assert "200" in box.get("http://127.0.0.1:8081/").splitlines()[:1]  # the Wi-Fi page answers
    box.run("python3", "-c", f"import json; p='{FAKE}'; s=json.load(open(p)); s['online']=True; "
                             "json.dump(s, open(p + '.new', 'w')); __import__('os').replace(p + '.new', p)")
    until("the access point closed", lambda: fake_network(box).get("ap_on") is False)


def test_the_setup_page_answers_on_port_80(table):
    box, _ = table
    # A container has no GPIO chip, a Pi has: the pins are mocked here (in the throw-away layer), nothing else.
    box.run("sed", "-i", "s/^mock_pins = false/mock_pins = true/", "/etc/companion/config.toml")
    box.run("systemctl", "reset-failed", "companion.service")
    box.run("systemctl", "restart", "--no-block", "companion.service")
    until("companion.service", lambda: box.run("systemctl", "is-active", "companion.service",
                                               check=False).stdout.strip() == "active",
          why=lambda: box.run("systemctl", "status", "--no-pager", "-n", "20", "companion.service", check=False).stdout)
    answer = until("the page", lambda: box.get("http://127.0.0.1/"))
    assert answer.splitlines()[0] == "200"


def test_one_mdns_responder_answers_for_the_table(table):
    """Avahi, the system's, holds UDP 5353; the table's daemon (web.mdns = false) opens no second responder."""
    box, _ = table
    until("companion.service", lambda: box.run("systemctl", "is-active", "companion.service",
                                               check=False).stdout.strip() == "active")
    holders = box.run("ss", "-H", "-u", "-a", "-n", "-p", "sport", "=", ":5353").stdout
    assert set(re.findall(r'users:\(\("([^"]+)"', holders)) == {"avahi-daemon"}, holders


def test_the_owner_enters_the_setup_code_from_the_card_and_reaches_the_settings(table):
    """As a new owner does: the code read from the card's boot partition, typed into the setup page."""
    box, boot = table
    card = boot / "companion-setup-code.txt"
    code = until("the table's setup code on the card",
                 lambda: card.exists() and is_code(text := card.read_text().strip()) and text)
    script = SETUP_WALK.replace("CODE", code)
    assert box.run("python3", "-c", script).stdout.split() == ["open", "settings"]


def test_the_tables_user_can_neither_write_the_boot_files_nor_read_the_wifi_file(table):
    """Whoever takes the daemon over does not own the Pi at its next boot, nor learn the Wi-Fi password."""
    box, boot = table
    for attempt in ("echo init=/bin/sh >> /boot/firmware/cmdline.txt", "touch /boot/firmware/config.txt",
                    "cat /boot/firmware/companion-setup-code.txt", "ls /boot/firmware"):
        done = box.run("runuser", "-u", "companion", "--", "sh", "-c", attempt, check=False)
        assert done.returncode != 0, attempt
    assert "init=/bin/sh" not in (boot / "cmdline.txt").read_text()


def test_a_zeroconf_browse_on_the_network_finds_the_table(table):
    from zeroconf import ServiceBrowser, Zeroconf

    box, _ = table
    box.run("ip", "address", "add", f"{TABLE_ADDRESS}/24", "dev", "host0")
    box.run("ip", "link", "set", "host0", "up")
    subprocess.run(["ip", "address", "add", f"{HOST_ADDRESS}/24", "dev", f"ve-{MACHINE}"], check=True)
    subprocess.run(["ip", "link", "set", f"ve-{MACHINE}", "up"], check=True)
    found = []

    class Listener:
        def add_service(self, zc, kind, name):
            info = zc.get_service_info(kind, name, timeout=3000)
            if info:
                found.append((info.server, info.port, info.parsed_addresses()))

        update_service = remove_service = lambda *args: None

    zc = Zeroconf(interfaces=[HOST_ADDRESS])
    try:
        ServiceBrowser(zc, "_http._tcp.local.", Listener())
        until("the table on mDNS", lambda: any(server == "companion.local." for server, *_ in found), timeout=60)
    finally:
        zc.close()
    server, port, addresses = next(f for f in found if f[0] == "companion.local.")
    assert port == 80 and TABLE_ADDRESS in addresses


def test_without_a_wifi_radio_the_network_watcher_stays_up(table):
    """The container has no radio, as a table on a cable alone: NetworkManager cannot open the access point, and
    companion-network says so once and keeps watching (it used to die and restart every minute)."""
    box, _ = table
    box.run("mkdir", "-p", "/run/systemd/system/companion-network.service.d")
    box.run("sh", "-c", "printf '[Service]\\nEnvironment=COMPANION_NETWORK=\\nExecStart=\\nExecStart=/opt/companion/"
                        "current/bin/python -m companion.appliance watch --grace 1 --look 0.5\\n' > "
                        "/run/systemd/system/companion-network.service.d/zz-no-radio.conf")
    box.run("systemctl", "daemon-reload")
    box.run("systemctl", "restart", "companion-network.service")
    said = lambda: box.run("journalctl", "-b", "-u", "companion-network", "-o", "cat", check=False).stdout
    until("the watcher's word on the access point", lambda: "the access point cannot open" in said(), why=said)
    shown = box.run("systemctl", "show", "-p", "ActiveState,NRestarts", "companion-network.service").stdout
    assert "ActiveState=active" in shown and "NRestarts=0" in shown, shown + said()
    assert said().count("the access point cannot open") == 1
