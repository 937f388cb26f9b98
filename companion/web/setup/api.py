"""The setup page's JSON API (docs/web.md): the code, the settings, the wiring check, timing a glass, done.

Every route but the code's needs the owner's session the setup code opens
(companion.web.owner), never the PIN; every POST from a page carries its CSRF token. A refused setting is 400
naming the config key (`timers.red.pins`), with the config's own words.
"""

from flask import jsonify

from companion.web import owner, security, setup
from companion.web.api import json_body, need
from companion.web.owner import needs_owner
from companion.web.setup import bp


@bp.post("/api/setup/code")
def code():
    owner.enter_code(need(json_body("code"), "code"))
    return jsonify(setup="open")


@bp.get("/api/setup/settings")
@needs_owner
def settings():
    return jsonify(setup().settings())


@bp.post("/api/setup/settings")
@needs_owner
def change_settings():
    return jsonify(setup().change_settings(json_body(any_field=True)))


@bp.get("/api/setup/wiring")
@needs_owner
def wiring():
    return jsonify(setup().wiring())


@bp.post("/api/setup/wiring/strip")
@needs_owner
def light_part():
    return jsonify(setup().light_part(need(json_body("part"), "part")))


@bp.post("/api/setup/wiring/buzzer")
@needs_owner
def beep():
    json_body()
    return jsonify(setup().beep())


@bp.get("/api/setup/timing")
@needs_owner
def timing():
    return jsonify(timing=setup().timing_status())


@bp.post("/api/setup/timing")
@needs_owner
def start_timing():
    data = json_body("timer", "runs")
    return jsonify(timing=setup().start_timing(need(data, "timer"), data.get("runs", 2)))


@bp.post("/api/setup/timing/turn")
@needs_owner
def turn_timed():
    """The glass being timed turned over now, told by the player (an LED glass: the table reads no sensors)."""
    json_body()
    return jsonify(timing=setup().turn_timed())


@bp.post("/api/setup/timing/cancel")
@needs_owner
def cancel_timing():
    json_body()
    setup().stop_timing()
    return jsonify(timing=None)


@bp.post("/api/setup/timing/save")
@needs_owner
def save_timing():
    json_body()
    return jsonify(setup().save_timing())


@bp.post("/api/setup/done")
@needs_owner
def done():
    """Close the setup flow: the code is void; a phone that set the table up is unlocked with its new PIN, and
    stays the owner's until its owner's session ends.

    Every check comes before the flow is closed, and unlocking the phone that set the PIN itself asks for no
    PIN (so no guesser's slow-down): setup is never closed behind a refusal.
    """
    json_body()
    first_run = owner.holds_code()
    setup().finish_setup()
    if first_run and not security.unlocked():
        security.open_session()
    return jsonify(setup="done", next="/")
