"""The standing fuzz suite at the setup door and the Host check.

The setup door: any mix of strangers' wrong setup codes and PINs from many
addresses, retried at the end of every wait, never keeps out a phone that got
in before or the table's own screen; no body, PIN header or missing token at
the setup routes gets a 500, and one without the token and the right PIN
changes nothing. The Host check: any Host header or request target is
answered 2xx, 400 or 421, never a 500, and only the table's own names pass.
Counts print with -s.
"""

import ipaddress

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from companion.clock import FakeClock
from companion.table import Table, demo_table
from companion.web import create_app
from companion.web.hosts import split_host
from conftest import csrf_in, installed_table

BASE = dict(deadline=None, suppress_health_check=list(HealthCheck), database=None)
DOOR_EXAMPLES = 60
SETUP_EXAMPLES = 300
HOST_EXAMPLES = 600
OWN = ("localhost", "127.0.0.1", "[::1]", "192.168.1.20", "pi", "pi.local")
OWNER = {"REMOTE_ADDR": "192.168.1.50"}


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def first_run_table(tmp_path) -> Table:
    return installed_table(tmp_path)


def phone(app):
    client = app.test_client()
    client.csrf = csrf_in(client.get("/setup/").get_data(as_text=True))
    return client


# ---- the setup door -----------------------------------------------------------------------------------

MOVES = st.lists(st.one_of(
    st.tuples(st.just("code"), st.integers(1, 40)),  # a stranger's wrong setup code from 10.0.0.N
    st.tuples(st.just("pin"), st.integers(1, 40)),  # a stranger's wrong PIN from 10.0.0.N
    st.tuples(st.just("wait"), st.floats(0, 400)),
), min_size=1, max_size=40)


def test_no_mix_of_strangers_guesses_keeps_out_the_owner_or_the_tables_screen(tmp_path):
    table = first_run_table(tmp_path)
    thrown = {"sequences": 0, "guesses": 0}

    @settings(max_examples=DOOR_EXAMPLES, **BASE)
    @given(MOVES)
    @example([("code", n) for n in range(1, 13)] * 3)  # the review's twelve addresses, retrying at each wait's end
    @example([("pin", n) for n in range(1, 13)] * 3)
    def throw(moves):
        thrown["sequences"] += 1
        app = create_app(table, testing=True)
        clock = Clock()
        app.extensions["setup_guard"].clock = app.extensions["pin_guard"].clock = clock
        owner, screen = phone(app), phone(app)
        code = table.first_run.code
        assert owner.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": owner.csrf},
                          environ_base=OWNER).status_code == 200
        strangers = {}
        for kind, value in moves:
            if kind == "wait":
                clock.now += value
                continue
            thrown["guesses"] += 1
            stranger = strangers.setdefault(value, phone(app))
            address = {"REMOTE_ADDR": f"10.0.0.{value}"}
            if kind == "code":
                answer = stranger.post("/api/setup/code", json={"code": "WRONGCODE1"},
                                       headers={"X-CSRF-Token": stranger.csrf}, environ_base=address)
            else:
                answer = stranger.post("/api/show/abort", headers={"X-Table-Pin": "000000"}, environ_base=address)
            assert answer.status_code in (403, 429)
            clock.now += float(answer.headers.get("Retry-After", 0))  # the guesser retries when told it may
        again = owner.post("/api/setup/code", json={"code": code}, headers={"X-CSRF-Token": owner.csrf},
                           environ_base=OWNER)
        assert again.status_code == 200, again.json
        assert owner.get("/api/setup/settings", environ_base=OWNER).status_code == 200
        assert screen.post("/api/setup/code", json={"code": code},
                           headers={"X-CSRF-Token": screen.csrf}).status_code == 200

    try:
        throw()
    finally:
        table.stop()
    print(f"\nsetup door fuzz: {thrown}")


ROUTES = st.sampled_from(["/api/setup/code", "/api/setup/settings", "/api/setup/wiring/strip",
                          "/api/setup/wiring/buzzer", "/api/setup/timing", "/api/setup/timing/save",
                          "/api/setup/done"])
BODIES = st.one_of(st.just({}), st.just({"web": {"pin": "2468"}}), st.just({"code": "WRONGCODE1"}),
                   st.dictionaries(st.sampled_from(["code", "part", "timer", "runs", "web", "x"]),
                                   st.none() | st.booleans() | st.integers() | st.text(max_size=8), max_size=3))
PIN_HEADERS = st.sampled_from([None, "wrong", "", "0000", "\u00e9", "RIGHT"])


def test_no_setup_request_gets_a_500_and_none_without_the_token_or_the_right_pin_changes_the_config(tmp_path):
    table = first_run_table(tmp_path)
    app = create_app(table, testing=True)
    holder = phone(app)
    assert holder.post("/api/setup/code", json={"code": table.first_run.code},
                       headers={"X-CSRF-Token": holder.csrf}).status_code == 200
    config = table.configured.now.path
    thrown = {"inputs": 0, "refused": 0}

    @settings(max_examples=SETUP_EXAMPLES, **BASE)
    @given(ROUTES, BODIES, PIN_HEADERS, st.booleans(), st.booleans())
    def throw(route, body, pin, token, from_a_phone):
        thrown["inputs"] += 1
        headers = {"X-CSRF-Token": holder.csrf} if token else {}
        if pin is not None:
            headers["X-Table-Pin"] = table.door.pin if pin == "RIGHT" else pin
        before = config.read_text(encoding="utf-8")
        answer = holder.post(route, json=body, headers=headers,
                             environ_base={"REMOTE_ADDR": "192.168.1.50"} if from_a_phone else {})
        assert answer.status_code < 500, (route, body, answer.get_data(as_text=True)[:300])
        if answer.status_code >= 400:
            thrown["refused"] += 1
            assert {"error", "field", "code"} <= set(answer.json)
        if not token and pin != "RIGHT":
            assert answer.status_code >= 400 and config.read_text(encoding="utf-8") == before, (route, pin, body)
        if table.first_run.code is None:  # done went through: open the door again for the next input
            table.setup.reopen_setup()
            assert holder.post("/api/setup/code", json={"code": table.first_run.code},
                               headers={"X-CSRF-Token": holder.csrf}).status_code == 200
        table.pump()

    try:
        throw()
    finally:
        table.stop()
    print(f"\nsetup route fuzz: {thrown}")


# ---- the Host check -------------------------------------------------------------------------------------

NAMES = st.sampled_from([*OWN, "evil.example", "8.8.8.8", "[2001:db8::1]", "::1", "", "PI.LOCAL.", "[::1",
                         "[evil]"]) | st.text(max_size=12)
PORTS = st.none() | st.integers(0, 99999).map(str) | st.text(max_size=6)
USERINFO = st.none() | st.sampled_from(["x", "localhost:1", "user:pass", ""]) | st.text(max_size=6)


@st.composite
def hosts(draw) -> str:
    name, port, userinfo = draw(NAMES), draw(PORTS), draw(USERINFO)
    return (f"{userinfo}@" if userinfo is not None else "") + name + (f":{port}" if port is not None else "")


TARGETS = st.one_of(st.just("/api/show"), hosts().map(lambda h: f"http://{h}/api/show"),
                    st.sampled_from(["https://", "ftp://localhost/api/show", "evil.example/api/show",
                                     "http:///api/show", "//evil.example/api/show", "http://[::1/api/show"]),
                    st.text(max_size=20))


def test_no_host_or_target_gets_a_500_and_only_the_tables_own_names_pass(tmp_path):
    table = demo_table(tmp_path / "t.sqlite3", clock=FakeClock())
    client = create_app(table, testing=True, config={"LAN_ADDRESSES": ["192.168.1.20"],
                                                    "HOSTNAME": "pi"}).test_client()
    thrown = {"inputs": 0, "refused": 0}

    @settings(max_examples=HOST_EXAMPLES, **BASE)
    @given(hosts(), TARGETS)
    def throw(host, target):
        thrown["inputs"] += 1
        if any(ord(c) < 32 or ord(c) > 126 for c in host):
            return  # not a header a server would pass on (waitress refuses it itself)
        answer = client.get("/api/show", headers={"Host": host}, environ_overrides={"REQUEST_URI": target})
        assert answer.status_code in (200, 400, 421), (host, target, answer.status_code)
        name = split_host(host)
        if answer.status_code == 200:
            assert name is not None and (name in {"localhost", "pi", "pi.local", "192.168.1.20"}
                                         or ipaddress.ip_address(name).is_loopback), host
            assert "@" not in host
        else:
            thrown["refused"] += 1
            assert answer.json["code"] in ("errors.bad_host", "errors.wrong_host")

    try:
        throw()
    finally:
        table.stop()
    print(f"\nhost fuzz: {thrown}")
