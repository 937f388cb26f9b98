"""The PIN cannot be guessed from many addresses, and a locked session stays locked."""

import random

import pytest

from companion.web import create_app
from companion.web.security import CLIENT_FREE_TRIES, MAX_WAIT_S, SESSION_MAX_AGE_S, TABLE_FREE_TRIES, PinGuard
from conftest import csrf_in

PIN = "1234"
SIMULATED_HOUR_S = 3600.0
REQUEST_S = 0.001  # what one guess costs the guesser when it is not made to wait


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def guard_clock():
    return Clock()


@pytest.fixture
def app(table, guard_clock):
    app = create_app(table, testing=True)
    app.extensions["pin_guard"].clock = guard_clock
    return app


def guess(client, pin: str, address: str):
    return client.post("/api/show/abort", headers={"X-Table-Pin": pin}, environ_base={"REMOTE_ADDR": address})


def test_wrong_pins_from_many_addresses_slow_the_whole_table(app):
    client = app.test_client()
    for i in range(TABLE_FREE_TRIES):  # each address stays within its own free tries
        assert guess(client, "0000", f"10.0.{i // 250}.{i % 250 + 1}").status_code == 403
    refused = guess(client, "0000", "10.9.9.9")  # a fresh address: the table-wide count stops it
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) >= 1
    assert refused.json["code"] == "errors.pin_wait"
    assert guess(client, PIN, "10.9.9.8").status_code == 429  # even the right PIN waits its turn


def test_a_guessing_run_from_thousands_of_addresses_finds_no_pin_in_an_hour(table, app, guard_clock):
    clock = guard_clock
    """Every guess from a new address, as fast as the table lets it: a simulated hour."""
    rng = random.Random(20261201)
    table.door.pin = f"{rng.randrange(10_000):04d}"
    client, tried, heard, found = app.test_client(), 0, 0, False
    candidates = iter(rng.sample(range(10_000), 10_000))
    while clock.now < SIMULATED_HOUR_S:
        pin = f"{next(candidates):04d}"
        answer = guess(client, pin, f"10.{tried // 62500 % 250}.{tried // 250 % 250}.{tried % 250 + 1}")
        tried += 1
        if answer.status_code == 429:
            clock.now += int(answer.headers["Retry-After"])  # the guesser waits exactly as long as told
            continue
        heard += 1
        clock.now += REQUEST_S
        if answer.status_code != 403:
            found = True
            break
    assert not found, f"the PIN was found after {heard} heard guesses"
    # Past the doubling ramp one guess is heard per MAX_WAIT_S: far fewer than the 10 000 PINs.
    assert heard <= TABLE_FREE_TRIES + 12 + SIMULATED_HOUR_S / MAX_WAIT_S
    print(f"guessing run: {tried} tries from {tried} addresses, {heard} heard in a simulated hour "
          f"({100 * heard / 10_000:.2f}% of the 4-digit PINs)")


def test_the_table_wide_count_forgets_after_a_quiet_spell():
    guard = PinGuard(table_free_tries=2)
    guard.failed("a", now=0.0)
    guard.failed("b", now=0.0)
    assert guard.wait_s("c", now=0.0) > 0
    assert guard.wait_s("c", now=2000.0) == 0.0


def test_the_per_client_count_still_applies(app):
    client = app.test_client()
    for _ in range(CLIENT_FREE_TRIES):
        assert guess(client, "0000", "10.0.0.5").status_code == 403
    assert guess(client, PIN, "10.0.0.5").status_code == 429
    assert guess(client, PIN, "10.0.0.6").status_code == 200  # another phone is not held up by one


def csrf(client) -> str:
    page = client.get("/").get_data(as_text=True)
    return csrf_in(page)


def unlocked_client(app):
    client = app.test_client()
    assert client.post("/pin", data={"pin": PIN, "csrf": csrf(client)}).status_code == 303
    return client


def session_cookie(client) -> str:
    return client.get_cookie("companion_session").value


def test_forgetting_the_pin_revokes_a_copied_session_cookie(app):
    phone = unlocked_client(app)
    copied = session_cookie(phone)
    token = csrf(phone)
    thief = app.test_client()
    thief.set_cookie("companion_session", copied)
    assert thief.post("/api/mute", json={"muted": True}, headers={"X-CSRF-Token": token}).status_code == 200
    assert phone.post("/pin/forget", data={"csrf": token, "next": "/"}).status_code == 303
    thief.set_cookie("companion_session", copied)  # the cookie as it was before the phone locked
    refused = thief.post("/api/mute", json={"muted": False}, headers={"X-CSRF-Token": token})
    assert refused.status_code == 403 and refused.json["code"] == "errors.pin_needed"


def test_an_unlocked_session_expires(app, guard_clock):
    clock = guard_clock
    phone = unlocked_client(app)
    token = csrf(phone)
    assert phone.post("/api/mute", json={"muted": True}, headers={"X-CSRF-Token": token}).status_code == 200
    clock.now += SESSION_MAX_AGE_S + 1
    assert phone.post("/api/mute", json={"muted": False}, headers={"X-CSRF-Token": token}).status_code == 403


def test_a_pin_header_of_any_text_is_a_plain_refusal(app):
    client = app.test_client()
    answer = client.post("/api/show/abort", headers={"X-Table-Pin": "１２３４"})
    assert answer.status_code == 403 and answer.json["code"] == "errors.pin_wrong"
