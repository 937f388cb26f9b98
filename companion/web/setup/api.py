"""The setup page's JSON API (docs/web.md): the code, the settings, the wiring check, timing a glass, done.

Every route but the code's needs the setup code (first run) or the PIN;
every POST from a page carries its CSRF token. A refused setting is 400
naming the config key (`timers.red.pins`), with the config's own words.
"""

from flask import jsonify

from companion.web import security, setup
from companion.web.api import json_body, need
from companion.web.setup import access, bp
from companion.web.setup.access import needs_setup_access


@bp.post("/api/setup/code")
def code():
    access.enter_code(need(json_body("code"), "code"))
    return jsonify(setup="open")


@bp.get("/api/setup/settings")
@needs_setup_access
def settings():
    return jsonify(setup().settings())


@bp.post("/api/setup/settings")
@needs_setup_access
def change_settings():
    return jsonify(setup().change_settings(json_body(any_field=True)))


@bp.get("/api/setup/wiring")
@needs_setup_access
def wiring():
    return jsonify(setup().wiring())


@bp.post("/api/setup/wiring/strip")
@needs_setup_access
def light_part():
    return jsonify(setup().light_part(need(json_body("part"), "part")))


@bp.post("/api/setup/wiring/buzzer")
@needs_setup_access
def beep():
    json_body()
    return jsonify(setup().beep())


@bp.get("/api/setup/timing")
@needs_setup_access
def timing():
    return jsonify(timing=setup().timing_status())


@bp.post("/api/setup/timing")
@needs_setup_access
def start_timing():
    data = json_body("timer", "runs")
    return jsonify(timing=setup().start_timing(need(data, "timer"), data.get("runs", 2)))


@bp.post("/api/setup/timing/turn")
@needs_setup_access
def turn_timed():
    """The glass being timed turned over now, told by the player (an LED glass: the table reads no sensors)."""
    json_body()
    return jsonify(timing=setup().turn_timed())


@bp.post("/api/setup/timing/cancel")
@needs_setup_access
def cancel_timing():
    json_body()
    setup().stop_timing()
    return jsonify(timing=None)


@bp.post("/api/setup/timing/save")
@needs_setup_access
def save_timing():
    json_body()
    return jsonify(setup().save_timing())


@bp.post("/api/setup/done")
@needs_setup_access
def done():
    """Close the setup flow: the code is void; a phone that set the table up is unlocked with its new PIN.

    Every check comes before the flow is closed, and unlocking the phone that set the PIN itself asks for no
    PIN (so no guesser's slow-down): setup is never closed behind a refusal.
    """
    json_body()
    first_run = access.holds_code()
    setup().finish_setup()
    access.forget_code()
    if first_run and not security.unlocked():
        security.open_session()
    return jsonify(setup="done", next="/")
