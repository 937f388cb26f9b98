"""The address phones can open: the LAN addresses, the start-up line, the QR code, and mDNS that never stops the table."""

import logging
import re
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from companion.web import create_app
from companion.web.address import ALLOW_PHONES, Advertisement, Listening, lan_addresses, mdns_name
from companion.web.show.pages import qr_svg
from conftest import cannot_run, free_port

LAN = ["192.168.1.20", "10.0.0.5"]


def adapter(*ips):
    return SimpleNamespace(ips=[SimpleNamespace(ip=ip) for ip in ips])


def test_lan_addresses_leave_out_loopback_link_local_and_ipv6():
    adapters = [adapter("127.0.0.1", ("::1", 0, 0)), adapter("192.168.1.20", ("fd00::2", 0, 0), "169.254.3.4"),
                adapter("10.0.0.5", "192.168.1.20")]
    assert lan_addresses(adapters) == LAN


def test_a_sandbox_without_netlink_costs_the_addresses_not_the_start(monkeypatch, caplog):
    """A service whose address families leave out AF_NETLINK cannot list its addresses: it carries on."""
    import ifaddr

    def refused():
        raise OSError(97, "Address family not supported by protocol")
    monkeypatch.setattr(ifaddr, "get_adapters", refused)
    assert lan_addresses() == []
    assert len(caplog.records) == 1 and "Address family not supported" in caplog.records[0].getMessage()


def test_lan_addresses_of_this_machine_are_never_loopback():
    assert all(not a.startswith("127.") for a in lan_addresses())


@pytest.mark.parametrize(("host", "links"), [
    ("0.0.0.0", ["http://192.168.1.20:8000/", "http://10.0.0.5:8000/", "http://pi.local:8000/"]),
    ("::", ["http://192.168.1.20:8000/", "http://10.0.0.5:8000/", "http://pi.local:8000/"]),
    ("10.0.0.5", ["http://10.0.0.5:8000/", "http://pi.local:8000/"]),
    ("127.0.0.1", []),
    ("localhost", []),
])
def test_the_links_honour_the_host_the_server_is_bound_to(host, links):
    assert Listening(host, 8000).links(LAN, "pi.local") == links


def test_the_mdns_name_comes_second_and_only_with_an_address():
    assert Listening("0.0.0.0", 80).links([], "pi.local") == []
    assert Listening("0.0.0.0", 80).links(LAN, None)[-1] == "http://10.0.0.5:80/"
    assert mdns_name("tablepi") == "tablepi.local"


def test_the_startup_line_on_all_addresses_names_the_lan_address_first():
    lines = Listening("0.0.0.0", 8000).startup_lines(LAN, "pi.local", "4321")
    assert lines[0].startswith("Open http://192.168.1.20:8000/ on a phone") and "PIN is 4321" in lines[0]
    assert lines[1] == "Also: http://10.0.0.5:8000/  http://pi.local:8000/"


def test_the_startup_line_on_loopback_says_phones_cannot_reach_it_and_how_to_allow_them():
    lines = Listening("127.0.0.1", 8000).startup_lines(LAN, "pi.local", "4321")
    assert lines[0].startswith("Open http://127.0.0.1:8000/ on this computer")
    assert "Phones cannot reach it" in lines[1] and "--host 0.0.0.0" in lines[1] and ALLOW_PHONES in lines[1]


def test_the_startup_line_without_any_network_says_so():
    lines = Listening("0.0.0.0", 8000).startup_lines([], "pi.local", "4321")
    assert "http://127.0.0.1:8000/" in lines[0] and "No network address" in lines[1]


# ---- the page's QR code -----------------------------------------------------------------

@pytest.fixture
def app(table):
    return create_app(table, testing=True, config={"LAN_ADDRESSES": LAN, "MDNS_NAME": "pi.local"})


def test_bound_to_all_the_qr_code_and_link_carry_the_lan_address(app, table, monkeypatch):
    monkeypatch.setattr(table.door, "listening", ("0.0.0.0", 8000))
    page = app.test_client().get("/", base_url="http://127.0.0.1:8000").get_data(as_text=True)
    assert re.search(r'<a id="share-link" href="http://192.168.1.20:8000/">http://192.168.1.20:8000/</a>', page)
    with app.test_request_context(headers={"Accept-Language": "en"}):
        from companion.web.i18n import translate

        assert qr_svg("http://192.168.1.20:8000/", translate("share.qr_title")) in page
    also = re.search(r'<ul class="also" id="share-also">(.*?)</ul>', page, re.S)[1]
    assert "http://10.0.0.5:8000/" in also and "http://pi.local:8000/" in also
    assert "127.0.0.1" not in also


def test_the_port_is_the_one_the_page_was_opened_on(app, table, monkeypatch):
    monkeypatch.setattr(table.door, "listening", ("0.0.0.0", 0))
    page = app.test_client().get("/", base_url="http://127.0.0.1:41234").get_data(as_text=True)
    assert 'href="http://192.168.1.20:41234/"' in page


def test_bound_to_loopback_the_page_says_phones_cannot_reach_it(app, table, monkeypatch):
    monkeypatch.setattr(table.door, "listening", ("127.0.0.1", 8000))
    page = app.test_client().get("/", base_url="http://127.0.0.1:8000").get_data(as_text=True)
    assert 'id="share-local"' in page and "--host 0.0.0.0" in page
    assert 'class="qr-code"' not in page


def test_a_phone_gets_the_address_it_came_by(app, table, monkeypatch):
    monkeypatch.setattr(table.door, "listening", ("0.0.0.0", 8000))
    page = app.test_client().get("/", base_url="http://pi.local:8000",
                                 environ_base={"REMOTE_ADDR": "192.168.1.30"}).get_data(as_text=True)
    assert 'id="share-link" href="http://pi.local:8000/"' in page


def test_the_loopback_note_is_in_japanese_too(app, table, monkeypatch):
    monkeypatch.setattr(table.door, "listening", ("127.0.0.1", 8000))
    page = app.test_client().get("/", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    assert "このコンピューターからしか開けません" in page


# ---- mDNS: optional, never in the way ---------------------------------------------------

def test_no_announcement_when_phones_cannot_reach_the_table(monkeypatch):
    import zeroconf

    monkeypatch.setattr(zeroconf, "Zeroconf", lambda **kw: pytest.fail("no announcement on loopback"))
    advert = Advertisement(Listening("127.0.0.1", 8000), LAN).start()
    advert.close()
    assert advert.addresses == []


def test_a_network_without_multicast_does_not_stop_the_table(monkeypatch, caplog):
    import zeroconf

    def refuse(**kwargs):
        raise OSError(19, "No such device")

    monkeypatch.setattr(zeroconf, "Zeroconf", refuse)
    with caplog.at_level(logging.WARNING, logger="companion.web.address"):
        advert = Advertisement(Listening("0.0.0.0", 8000), LAN, hostname="tablepi").start()
        advert.close()
    assert "not announced on mDNS" in caplog.text and "No such device" in caplog.text


def test_the_announcement_is_an_http_service_on_the_lan_addresses(monkeypatch):
    import zeroconf

    seen = {}

    class Responder:
        def __init__(self, interfaces):
            seen["interfaces"] = interfaces

        def register_service(self, info, allow_name_change):
            seen["info"], seen["rename"] = info, allow_name_change

        def unregister_service(self, info):
            seen["goodbye"] = info

        def close(self):
            seen["closed"] = True

    monkeypatch.setattr(zeroconf, "Zeroconf", Responder)
    advert = Advertisement(Listening("0.0.0.0", 8123), LAN, hostname="tablepi").start()
    advert.close()
    info = seen["info"]
    assert info.type == "_http._tcp.local." and info.port == 8123 and info.server == "tablepi.local."
    assert info.parsed_addresses() == LAN and seen["interfaces"] == LAN and seen["rename"] is True
    assert seen["goodbye"] is info and seen["closed"] is True


# ---- the start-up line of a real demo ---------------------------------------------------

def test_the_demo_on_loopback_says_where_to_open_it_and_that_phones_cannot(tmp_path):
    port = free_port()
    daemon = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--port", str(port), "--pin", "2468",
                               "--db", str(tmp_path / "demo.sqlite3")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        lines = [daemon.stdout.readline() for _ in range(3)]
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)
    assert lines[1].startswith(f"Open http://127.0.0.1:{port}/ on this computer; the table PIN is 2468."), lines
    assert lines[2].startswith("Phones cannot reach it") and "--host 0.0.0.0" in lines[2]
    assert daemon.returncode == 0

ADDRESSES = st.lists(st.ip_addresses(v=4).map(str).filter(lambda a: not a.startswith(("127.", "169.254."))),
                     max_size=4, unique=True)


@settings(max_examples=60, deadline=None)
@given(host=st.sampled_from(["0.0.0.0", "::", "127.0.0.1", "localhost", "192.168.1.20"]), addresses=ADDRESSES,
       port=st.integers(1, 65535), mdns=st.sampled_from([None, "pi.local"]))
def test_links_never_lead_to_loopback_and_the_name_comes_last(host, addresses, port, mdns):
    links = Listening(host, port).links(addresses, mdns)
    assert not any("127.0.0.1" in link or "localhost" in link for link in links)
    assert all(link.endswith(f":{port}/") for link in links)
    if mdns and links:
        assert links[-1] == f"http://{mdns}:{port}/" and links.count(links[-1]) == 1
    if host in ("0.0.0.0", "::"):
        assert links[:len(addresses)] == [f"http://{a}:{port}/" for a in addresses]


# ---- the announcement of a real daemon, found by a browser of the network ---------------

@pytest.mark.xdist_group("heavy")  # on the host's own network: never beside a test whose booted system adds links to it
def test_a_zeroconf_browse_finds_the_running_table(tmp_path):
    """The daemon as started for phones announces itself: a service browser on the LAN finds its page.

    The port once reached zeroconf as waitress's text ('8123'), the announcement failed at every start,
    and only a log line said so: this browses for the table as a phone's browser would.
    """
    import threading

    from zeroconf import ServiceBrowser, ServiceStateChange, Zeroconf

    addresses = lan_addresses()
    cannot_run(None if addresses else "this machine has no LAN address to announce on")
    port = free_port()
    daemon = subprocess.Popen([sys.executable, "-m", "companion", "demo", "--host", "0.0.0.0", "--port", str(port),
                               "--db", str(tmp_path / "demo.sqlite3")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    found = threading.Event()
    seen = []
    browser_side = Zeroconf(interfaces=addresses)

    def on_change(zeroconf, service_type, name, state_change):
        if state_change is not ServiceStateChange.Added:
            return
        info = zeroconf.get_service_info(service_type, name, timeout=3000)
        if info is not None:
            seen.append((name, info.port, info.parsed_addresses(), info.properties))
            if info.port == port:
                found.set()

    try:
        browser = ServiceBrowser(browser_side, "_http._tcp.local.", handlers=[on_change])
        found.wait(timeout=60)  # an announcement probes for about two seconds; a loaded machine takes longer
        browser.cancel()
    finally:
        browser_side.close()
        daemon.send_signal(signal.SIGTERM)
        _, errors = daemon.communicate(timeout=30)
    assert found.is_set(), f"no table announced on port {port}; seen {seen}; the daemon said: {errors[-2000:]}"
    name, _, announced, properties = next(s for s in seen if s[1] == port)
    assert set(announced) & set(addresses) and properties.get(b"path") == b"/", seen
    assert "not announced on mDNS" not in errors
