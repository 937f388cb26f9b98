"""The table on real pins: the daemon as installed, in a virtual Pi whose GPIO chip and SPI bus are the kernel's own.

Nothing here is the project's fake: gpiozero's LGPIOFactory reads /dev/gpiochip0
with the kernel's edge events, the strip goes Blinka -> neopixel_spi ->
/dev/spidev0.0 -> the kernel's SPI layer -> bits on the simulated chip's
lines, and the daemon runs under its own unit, installed by install.sh from the
card image's hashed wheels. The switches are the simulated lines' pulls, moved
with a ball switch's chatter; what a player sees is read from the page's stream
over a forwarded port. Every assertion is about a settled state: a simulated
line merges edges faster than an emulated guest's interrupt thread takes them,
so raw edge counts are not what a table promises.

Nor is the host's clock what the table reads. The virtual Pi's processors are
threads of a host that may be too busy to run them: the machine then stands
still while its clock runs on, and a bounce lasts, to the program, as long as
the stall. So the hands time every bounce inside the machine, the machine
measures when it stood still, and what a turn may leave in the show's log
follows from those figures: nothing but its pose while the machine ran.
"""

import contextlib
import dataclasses
import json
import queue
import re
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest

from companion.hardware.buttons import ButtonConfig
from companion.hardware.pins import load_pinout
from companion.hardware.strip import FakeStrip
from companion.leds import StripLayout, render
from tests.vm.machine import Stall

# Whichever test of the folder runs first waits for the virtual Pi's build and boot (minutes on a busy machine).
pytestmark = [pytest.mark.system, pytest.mark.timeout(3600), pytest.mark.xdist_group("heavy")]

PIN = "483920"
PINOUT = load_pinout()
SWITCHES = {colour: section["pins"] for colour, section in PINOUT["timers"].items()}
BUZZER = PINOUT["buzzer"]["pin"]
MOSI, SCLK, CE0 = PINOUT["strip"]["spi_mosi"], 11, 8  # SPI0's clock and first chip select on every Pi
WAIT_S = 90  # the longest a player's view may take to show a settled change, on a loaded emulated guest
START_WINDOW_S = 2.0
BOUNCES, BOUNCE_MS = 3, 12  # a turn: three bounces a few ms apart, 72 ms in all (an emulated guest sees each)
SETTLE_MS = 250  # the table's debounce here: above the turn's bounces with room for an emulated guest's stalls
# What an emulated guest that runs takes, at most, from a line's edge to the table taking it (the kernel, lgpio's
# threads, the interpreter): beyond it, an edge is late only because the machine stood still.
LATENCY_MS = 100
# A bounce is kept as a rest only if its next edge reaches the table a whole settle after it: the machine stood
# still for that settle but for the bounce itself and the ordinary latency.
BOUNCE_KEPT_MS = SETTLE_MS - BOUNCE_MS - LATENCY_MS
# The start window of the show that tests it: a loaded emulated machine's start of a show held a turn's edges
# back past 2 s at a load of 8 on 2 cores (its table busy with the start itself, not standing still).
SETUP_WINDOW_S = 10.0
STOPPED_MS = 500  # a stall made on purpose: longer than the debounce, as a busy host's are
STRIP_TRACE_KB = 4096  # per CPU: the newest dozen frames of the strip, at three events a bit

# Short glasses, so a whole show fits in half a minute: red (the countdown, on its last space) 23 s, orange 31 s.
TILT_TABLE = f"""
[table]
database = "/var/lib/companion/companion.sqlite3"
set_up = true

[timers.red]
source = "tilt"
duration = 23

[timers.orange]
source = "tilt"
duration = 31

[timers.yellow]
source = "tilt"

[timers.green]
source = "tilt"

[timers.blue]
source = "tilt"

[timers.purple]
source = "tilt"

[tilt]
start_window_s = {START_WINDOW_S}
settle_ms = {SETTLE_MS}

[strip]
enabled = true
driver = "spi"
segment_leds = 4
countdown_leds = 3
token_leds = 3

[buzzer]
enabled = true

[web]
port = 8000
pin = "{PIN}"
allowed_hosts = ["*"]
"""

LED_TABLE = TILT_TABLE.replace('source = "tilt"', 'source = "emulated"')

EVENT = {"id": "pins", "name": "Real pins", "hand_size": 4, "countdown": "red", "countdown_start": 1,
         "running": ["red", "orange", "yellow"], "lying": ["green"]}


def levels(colour: str, pose: str) -> dict[int, bool]:
    """The two switches of a glass's cradle in `pose` (True: closed): switch 0 closed is end A up."""
    a, b = SWITCHES[colour]
    return {"a_up": {a: True, b: False}, "b_up": {a: False, b: True}, "side": {a: False, b: False},
            "both": {a: True, b: True}}[pose]


def stand(pi, poses: dict[str, str]) -> None:
    lines = {}
    for colour, pose in poses.items():
        lines.update(levels(colour, pose))
    pi.move(lines)


def turn(pi, colour: str, pose: str, first: dict | None = None) -> dict:
    """Turn a glass to `pose` as a hand does: its balls bounce between lying and the new pose before they rest.
    The machine's answer holds how long each step was held (`held_ms`, lying first) by its own clock."""
    lying, there = levels(colour, "side"), levels(colour, pose)
    return pi.steps([(lying, BOUNCE_MS), (there, BOUNCE_MS)] * BOUNCES + [(there, 0)], first)


@dataclasses.dataclass
class Made:
    """A turn as the machine measured it: how long its bounces lay, and when the machine stood still."""

    colour: str
    pose: str
    window_s: float | None  # made as the show started, inside a start window this long: the table being set up
    held_ms: list[float]
    stall: Stall

    def may_leave(self) -> list[list[tuple[str, str]]]:
        """The pose lines this turn may leave in the show's log: its pose (none in the start window) while the
        machine ran; a bounce kept as `side` before it, or the pose past the window, only if it stood still
        long enough for that."""
        side, pose = (self.colour, "side"), (self.colour, self.pose)
        bounce_kept = (max(self.held_ms[::2]) + LATENCY_MS >= SETTLE_MS
                       or self.stall.most_within(SETTLE_MS) >= BOUNCE_KEPT_MS)
        if self.window_s is None:
            return [[pose], [side, pose]] if bounce_kept else [[pose]]
        # It leaves the window only if the machine stood still for the window but for what the turn takes.
        missed_ms = self.window_s * 1000 - 2 * BOUNCES * BOUNCE_MS - SETTLE_MS - LATENCY_MS
        if self.stall.most_within(self.window_s * 1000) >= missed_ms:
            return [[], [pose], [side, pose]]
        return [[]]


class Hands:
    """The hands at the table: each turn is made inside a watch of the machine, and remembered with its figures."""

    def __init__(self, pi):
        self.pi, self.made = pi, []

    @contextlib.contextmanager
    def turn(self, colour: str, pose: str, *, first: dict | None = None, window_s: float | None = None):
        """Turn a glass and watch the machine until the block ends (the block waits until the turn is seen);
        yields the machine's answer (with `first`'s `status` and `body`)."""
        with self.pi.watch() as stall:
            answer = turn(self.pi, colour, pose, first)
            yield answer
        self.made.append(Made(colour, pose, window_s, answer["held_ms"], stall))

    def split(self, lines: list[tuple[str, str]]) -> list[list[tuple[str, str]]]:
        """The show's pose lines, each turn's share, as each may leave them; AssertionError if they cannot be."""

        def shares(made, rest):
            if not made:
                return [] if not rest else None
            for share in made[0].may_leave():
                if rest[:len(share)] == share and (after := shares(made[1:], rest[len(share):])) is not None:
                    return [share, *after]
            return None

        found = shares(self.made, lines)
        assert found is not None, f"the log's poses {lines} are not what the turns may leave: {self}"
        return found

    def __str__(self) -> str:
        return "; ".join(f"{m.colour} {m.pose}: may leave {m.may_leave()} (bounces held "
                         f"{[round(h) for h in m.held_ms[::2]]} ms, the machine still "
                         f"{m.stall.most_within(SETTLE_MS):.0f} ms in a settle)" for m in self.made)


# ---- the table's page, as a phone reaches it --------------------------------------------------------------

PHONE = {"X-Table-Pin": PIN, "Content-Type": "application/json"}  # a players' phone's headers


def api(pi, method: str, path: str, body: dict | None = None):
    request = urllib.request.Request(f"http://127.0.0.1:{pi.page_port}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(), headers=PHONE)
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace")


def as_owner(pi):
    """A phone holding the owner's session, as the owner opens one from ssh: `companion setup --reopen` prints the
    code, the running table takes it at once, and the setup page takes the code; (method, path) -> (status, body)."""
    import http.cookiejar

    code = re.search(r"setup code ([A-Z0-9]{5}-[A-Z0-9]{5})", pi.sh("companion setup --reopen"))[1]
    phone = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    base = f"http://127.0.0.1:{pi.page_port}"
    page = phone.open(f"{base}/setup/", timeout=60).read().decode()
    headers = {"X-CSRF-Token": re.search(r'name="csrf-token" content="([^"]+)"', page)[1],
               "Content-Type": "application/json"}

    def call(method: str, path: str, body: dict | None = None):
        request = urllib.request.Request(base + path, method=method, headers=headers,
                                         data=None if body is None else json.dumps(body).encode())
        try:
            with phone.open(request, timeout=60) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    status, answer = call("POST", "/api/setup/code", {"code": code})
    assert status == 200, answer
    return call


class Stream:
    """The show's event stream, read on a thread of its own: every state a phone was sent, in order."""

    def __init__(self, pi):
        self.states: queue.SimpleQueue = queue.SimpleQueue()
        self.seen: list[dict] = []
        self.cursor = 0  # each wait looks from the state the last one found: what comes after it, in order
        self._answer = urllib.request.urlopen(f"http://127.0.0.1:{pi.page_port}/api/show/events", timeout=WAIT_S)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        event = None
        try:
            for raw in self._answer:
                line = raw.decode().rstrip("\n")
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:") and event == "state":
                    self.states.put(json.loads(line.split(":", 1)[1]))
        except (OSError, ValueError, AttributeError):  # closed by the test (http.client drops its file then)
            pass

    def wait_for(self, what: str, test, timeout: float = WAIT_S) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i in range(self.cursor, len(self.seen)):
                if test(self.seen[i]):
                    self.cursor = i
                    return self.seen[i]
            self.cursor = len(self.seen)
            try:
                self.seen.append(self.states.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                last = self.seen[-1] if self.seen else None
                raise AssertionError(f"no state showed {what} within {timeout} s; the last: {last}") from None

    def close(self):
        self._answer.close()


def glass(state: dict, colour: str) -> dict:
    """A glass as a state shows it; nothing before a show (an idle table's states have no timers)."""
    return state.get("timers", {}).get(colour, {})


def start_daemon(pi, config: str) -> None:
    pi.write("/etc/companion/config.toml", config, 0o640)
    pi.sh("chown companion:companion /etc/companion/config.toml && rm -f /var/lib/companion/companion.sqlite3* "
          "&& systemctl restart companion && systemctl is-active companion", timeout=300)


def until_show_time(pi, t: float) -> None:
    """Wait until the show's clock passes `t` (a quiet glass emptying sends no state: the page's clock runs on)."""
    deadline = time.monotonic() + WAIT_S
    while (show := api(pi, "GET", "/api/show")[1]).get("t", 0) < t:
        assert time.monotonic() < deadline, f"the show's clock did not reach {t} s: {show}"
        time.sleep(min(1.0, t - show.get("t", 0)))


def journal(pi) -> str:
    return pi.sh("journalctl -u companion --no-pager -o cat")


# ---- what the trace of the lines says ---------------------------------------------------------------------

def quiet(pi, name: str, still_s: float = 1.5) -> None:
    """Wait until the lines traced in `name` have not moved for `still_s` (a tune ended, the strip holds its frame):
    a trace read then is whole, with no writer racing the reader."""
    deadline = time.monotonic() + WAIT_S
    count, since = None, time.monotonic()
    while time.monotonic() - since < still_s:
        assert time.monotonic() < deadline, f"the lines traced in {name} never stood still"
        now = pi.call("trace_count", name=name)["count"]
        if now != count:
            count, since = now, time.monotonic()
        time.sleep(0.25)


def trace_levels(text: str, lines: list[int], base: int) -> list[tuple[int, int]]:
    """The kernel's gpio_value events for `lines`, in order, as (line, level)."""
    wanted = {base + line: line for line in lines}
    changes = []
    for m in re.finditer(r"gpio_value: (\d+) set (\d+)", text):
        number = int(m.group(1))
        if number in wanted:
            changes.append((wanted[number], int(m.group(2))))
    return changes


def spi_transfers(changes: list[tuple[int, int]]) -> list[bytes]:
    """Each SPI transfer on the wire that carried data, from the chip select falling to its rising: MOSI sampled
    at each rising clock edge (SPI mode 0), eight bits a byte, most significant first. (The bus also selects
    its device with no clock at all when a driver sets it up.)"""
    transfers, bits, mosi, clock, selected = [], None, 0, 0, False
    for line, level in changes:
        if line == CE0:
            if level == 0 and not selected:  # active low: a transfer begins
                selected, bits = True, []
            elif level == 1 and selected:
                selected = False
                if bits:
                    transfers.append(bytes(int("".join(map(str, bits[i:i + 8])), 2) for i in range(0, len(bits) - 7, 8)))
        elif line == MOSI:
            mosi = level
        elif line == SCLK:
            if level == 1 and clock == 0 and selected:
                bits.append(mosi)
            clock = level
    return transfers


def strip_bytes(transfer: bytes) -> bytes | None:
    """The colour bytes a transfer carries: neopixel_spi sends each bit as a byte (0b11110000 a one,
    0b11000000 a zero) between two runs of zero bytes that reset the strip. None for what is not a whole
    frame (a trace read while the strip still draws may have lost the start of its oldest transfer)."""
    body = transfer.strip(b"\0")
    if len(body) % 8 or not set(body) <= {0b11110000, 0b11000000}:
        return None
    bits = ["1" if byte == 0b11110000 else "0" for byte in body]
    return bytes(int("".join(bits[i:i + 8]), 2) for i in range(0, len(bits), 8))


# ---- the tests, in the order a builder meets them -----------------------------------------------------------

def test_the_chip_and_the_spi_bus_belong_to_the_groups_the_tables_user_is_in(pi):
    # Plain Debian leaves both to root: install.sh's udev rule gives them to gpio and spi, as Raspberry Pi OS does.
    listing = pi.sh("stat -c '%n %G %a' /dev/gpiochip0 /dev/spidev0.0")
    assert listing.split("\n")[:2] == ["/dev/gpiochip0 gpio 660", "/dev/spidev0.0 spi 660"], listing


def test_check_hw_on_a_terminal_reads_the_switches_as_they_stand_and_returns(pi):
    stand(pi, {"red": "a_up", "orange": "b_up", "yellow": "side", "green": "a_up", "blue": "b_up", "purple": "both"})
    pi.sh("systemctl stop companion; install -d -o companion -g companion -m 750 /var/lib/companion")
    pi.write("/etc/companion/config.toml", TILT_TABLE, 0o640)
    # As from an ssh shell: on a terminal, Blinka's import would offer to pip-install Pi extras and wait.
    done = pi.run("companion", "check-hw", "--once", "--outputs", tty=True, timeout=180)
    assert not done["timed_out"] and done["rc"] == 0, done
    out = done["out"]
    assert "Install them" not in out
    for colour, pose in (("red", "a_up"), ("orange", "b_up"), ("yellow", "side"), ("green", "a_up"), ("blue", "b_up")):
        a, b = SWITCHES[colour]
        closed = levels(colour, pose)
        line = next(text for text in out.splitlines() if text.startswith(colour))
        assert f"GPIO{a:<2} {'closed' if closed[a] else 'open'}" in line and f"pose {pose}" in line, line
        assert f"GPIO{b:<2} {'closed' if closed[b] else 'open'}" in line, line
    assert "strip: red segment lit" in out and f"buzzer: beeping on GPIO {BUZZER}" in out


def test_the_setup_pages_wiring_check_reads_the_pins_and_names_a_pair_closed_together(pi):
    start_daemon(pi, TILT_TABLE)
    stand(pi, {"red": "b_up", "orange": "a_up", "yellow": "side", "green": "a_up", "blue": "side", "purple": "both"})
    owner = as_owner(pi)  # the wiring check is the owner's
    assert api(pi, "GET", "/api/setup/wiring")[0] == 403  # not the players' PIN
    deadline = time.monotonic() + WAIT_S
    while True:
        status, wiring = owner("GET", "/api/setup/wiring")
        assert status == 200, wiring
        glasses = {glass["colour"]: glass for glass in wiring["glasses"]}
        if glasses["red"]["pose"] == "b_up" and glasses["purple"]["fault"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)  # the fault is named once both switches stayed closed for both_closed_fault_s
    assert {c: glasses[c]["pose"] for c in ("red", "orange", "yellow", "green")} == \
        {"red": "b_up", "orange": "a_up", "yellow": "side", "green": "a_up"}
    assert glasses["purple"]["fault"], glasses["purple"]


def test_the_machine_measures_the_time_it_stood_still(pi):
    # What every turn's judgement rests on: a machine stopped from outside, as a busy host stops it, says so.
    with pi.watch() as stall:
        pi.process.send_signal(signal.SIGSTOP)
        try:
            time.sleep(STOPPED_MS / 1000)  # the stall itself, in the host's real time: what is measured
        finally:
            pi.process.send_signal(signal.SIGCONT)
    assert stall.most_within(2 * STOPPED_MS) >= 0.9 * STOPPED_MS, stall.spans


def show_poses(pi, show_id: int) -> tuple[list[dict], list[tuple[str, str]]]:
    """A show's log, and its pose lines as (glass, pose)."""
    log = [json.loads(line) for line in urllib.request.urlopen(
        f"http://127.0.0.1:{pi.page_port}/api/shows/{show_id}/log", timeout=WAIT_S).read().decode().splitlines()]
    return log, [(line["timer"], line["pose"]) for line in log if line["type"] == "pose"]


def test_a_glass_turned_as_a_show_starts_is_the_table_being_set_up(pi):
    stand(pi, {"red": "a_up", "orange": "a_up", "yellow": "a_up", "green": "side", "blue": "side",
               "purple": "side"})
    start_daemon(pi, TILT_TABLE.replace(f"start_window_s = {START_WINDOW_S}", f"start_window_s = {SETUP_WINDOW_S}"))
    hands = Hands(pi)
    # The machine starts the show and turns the glass in one breath, with no wait of the host's between. A show of
    # its own: a machine that stood still for most of the window may see the turn after it, as a flip.
    start = {"method": "POST", "path": "/api/show/start", "headers": PHONE, "body": {"event": EVENT}}
    with hands.turn("yellow", "b_up", first=start, window_s=SETUP_WINDOW_S) as started:
        assert started["status"] == 201, started["body"]
        until_show_time(pi, SETUP_WINDOW_S + 0.5)
    assert api(pi, "POST", "/api/show/abort", {})[0] == 200
    # Within the start window a glass turned is the table being set up: the log says so, the show's log keeps none.
    shares = hands.split(show_poses(pi, started["body"]["id"])[1])
    print(f"the turn, as the machine measured it: {hands}")  # shown with pytest -rP
    assert shares[0] or "yellow seen b_up within the start window" in journal(pi)


def test_a_whole_show_on_the_pins_start_flips_a_run_out_and_a_win(pi):
    stand(pi, {"red": "a_up", "orange": "a_up", "yellow": "a_up", "green": "side", "blue": "side",
               "purple": "side"})
    start_daemon(pi, TILT_TABLE)
    base = pi.call("trace_start", name="buzzer", lines=[BUZZER], buffer_kb=1024)["base"]
    pi.call("trace_start", name="strip", lines=[MOSI, SCLK, CE0], buffer_kb=STRIP_TRACE_KB)  # read by the next test
    hands = Hands(pi)
    stream = Stream(pi)
    try:
        status, show = api(pi, "POST", "/api/show/start", {"event": EVENT})
        assert status == 201, show
        until_show_time(pi, START_WINDOW_S + 0.5)  # what is turned from now on is played

        with hands.turn("orange", "b_up"):  # flipped with a few seconds in its lower bulb
            flipped = stream.wait_for("orange flipped", lambda s: glass(s, "orange").get("pose") == "b_up")
        with hands.turn("green", "a_up"):
            stream.wait_for("green stood up and running", lambda s: glass(s, "green").get("state") == "running")

        ran_out = stream.wait_for("orange's run-out", lambda s: s.get("crowd_tokens_turned") == 1)
        assert [r["timer"] for r in ran_out["runouts"]] == ["orange"]
        with hands.turn("orange", "a_up"):  # the player who noticed turns it at once
            stream.wait_for("orange turned again", lambda s: glass(s, "orange").get("state") == "running")

        # Red, the countdown, is empty from 23 s: only an empty countdown may be turned. The machine waits for the
        # moment itself: late, orange would run out again before the win.
        empty = {"method": "GET", "path": "/api/show", "headers": PHONE, "until_t": 23.5}
        with hands.turn("red", "b_up", first=empty):
            won = stream.wait_for("the win", lambda s: s["outcome"] != "running")
    finally:
        stream.close()
    assert won["outcome"] == "win" and won["stars"] == 2 and won["countdown"]["position"] == 0
    # Each turn after the window is one line of the journal however its switches bounced: the debounce lets
    # nothing through but the pose they rest in (unless the machine stood still long enough to keep a bounce).
    log, poses = show_poses(pi, show["id"])
    shares = hands.split(poses)
    print(f"the turns, as the machine measured them: {hands}")  # shown with pytest -rP
    # The flip turned orange's sand over: what had run down by the flip is on top, and runs on from there.
    if shares[0] == [("orange", "b_up")]:
        flip_t = next(line["t"] for line in log if line["type"] == "pose" and line["timer"] == "orange")
        assert flipped["timers"]["orange"]["top_s"] == pytest.approx(2 * flip_t - flipped["t"], abs=0.005), flipped
    # The buzzer sounded on its pin (the warning, the run-out, the win), and falls silent once the win's tune ends.
    quiet(pi, "buzzer")
    heard = trace_levels(pi.call("trace_read", name="buzzer")["text"], [BUZZER], base)
    assert len(heard) >= 4, heard
    assert heard[-1] == (BUZZER, 0), f"the buzzer's pin is left high after its tune: {heard[-4:]}"


def test_the_strip_on_the_wire_carries_the_frame_the_fake_strip_is_given(pi):
    # The show just won: after the celebration the strip holds one frame, the one drawn at the picture's hold.
    base = pi.call("chip")["base"]
    first = urllib.request.urlopen(f"http://127.0.0.1:{pi.page_port}/api/strip/events", timeout=WAIT_S)
    layout = picture = event = None
    for raw in first:
        line = raw.decode().rstrip("\n")
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:") and event == "layout":
            layout = json.loads(line.split(":", 1)[1])
        elif line.startswith("data:") and event == "picture":
            picture = json.loads(line.split(":", 1)[1])
            if picture["hold"] is not None:
                break
    first.close()
    strip_layout = StripLayout(segment_len=layout["segment_len"], countdown_leds=layout["countdown_leds"],
                               token_leds=layout["token_leds"], markers=layout["markers"])
    fake = FakeStrip(strip_layout.total, order="GRB", brightness=0.3)
    fake.show(render(picture["state"], picture["hold"], strip_layout, flash_s=layout["flash_s"]))
    # The strip celebrates for the show's linger (wall time), then draws the held frame and stays on it.
    deadline, wire = time.monotonic() + WAIT_S, None
    while wire != fake.wire and time.monotonic() < deadline:  # (a stall in the celebration can look like its end)
        quiet(pi, "strip")
        frames = spi_transfers(trace_levels(pi.call("trace_read", name="strip")["text"], [MOSI, SCLK, CE0], base))
        wire = strip_bytes(frames[-1]) if frames else None
    assert wire == fake.wire, f"the last frame on the wire:\n{wire and wire.hex()}\nthe fake strip's:\n{fake.wire.hex()}"


def test_an_led_table_flips_its_glass_at_a_press_of_its_button(pi):
    start_daemon(pi, LED_TABLE)
    stream = Stream(pi)
    try:
        status, show = api(pi, "POST", "/api/show/start", {"event": "training"})
        assert status == 201, show
        before = stream.wait_for("red running", lambda s: glass(s, "red").get("state") == "running")
        with pi.watch() as stall:  # shorter than the hold that lays the glass down
            held_ms = pi.press(SWITCHES["red"][0], held_ms=300, chatter_ms=10, seed=6)
            after = stream.wait_for("red flipped by its button", lambda s: glass(s, "red").get("pose") != "a_up")
    finally:
        stream.close()
    assert before["timers"]["red"]["pose"] == "a_up"
    # To the table the press lasts as long as it was held, unless the machine stood still for the rest of the hold.
    hold_ms = ButtonConfig().hold_s * 1000
    laid = held_ms + LATENCY_MS >= hold_ms or stall.most_within(hold_ms) >= hold_ms - held_ms - LATENCY_MS
    assert after["timers"]["red"]["pose"] in (("b_up", "side") if laid else ("b_up",)), (held_ms, stall.spans)
