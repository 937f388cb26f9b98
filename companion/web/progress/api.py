"""The progress figures as JSON (docs/formats.md, "Progress"): one answer a figure, read by scripts and the bridge."""

from flask import jsonify

from companion.web.progress import bp, book


@bp.get("/api/progress/campaign")
def campaign_json():
    return jsonify(book().campaign())


@bp.get("/api/progress/trouble")
def trouble_json():
    return jsonify(book().trouble())


@bp.get("/api/progress/flock")
def flock_json():
    return jsonify(book().players("flock"))


@bp.get("/api/progress/geese")
def geese_json():
    return jsonify(book().players("geese"))


@bp.get("/api/progress/tonight")
def tonight_json():
    return jsonify(book().tonight())
