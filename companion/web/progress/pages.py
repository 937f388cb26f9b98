"""The progress pages: the campaign, what goes wrong, each bird game's players, and tonight with its recap to share."""

from flask import render_template

from companion.progress.nights import NIGHT_STARTS_HOUR
from companion.progress.trouble import clock_text
from companion.web.i18n import event_name, language, listed, translate
from companion.web.looks import LOOKS
from companion.web.progress import book, bp, charts
from companion.web.progress.picture import tonight_picture

STAR = "★"  # the pages' own star (as the score pad draws them): the text and picture need no emoji font
NIGHTS_SHOWN = 30  # nights a page draws and tabulates, the newest: a phone's width of columns (the API gives all)


def counted(key: str, n: int, **params) -> str:
    """A message about `n` things: its `_one` form for one (each language words it as it says one)."""
    return translate(f"{key}_one" if n == 1 else key, n=n, **params)


def said(sentence: dict) -> str:
    """A figure's sentence in the page's language; a glass named by its colour's word, names listed."""
    params = dict(sentence["params"])
    if "timer" in params:
        params["timer"] = translate(f"timer.{params['timer']}")
    if "names" in params:
        params["names"] = listed(params["names"])
    return translate(sentence["code"], **params)


def _page(template: str, **values):
    return render_template(f"progress/{template}.html", area="progress", charts=charts, said=said, looks=LOOKS,
                           night_hour=NIGHT_STARTS_HOUR, clock_text=clock_text, counted=counted,
                           outcome_fills=charts.OUTCOME, **values)


@bp.get("/progress")
def index():
    shown = book().campaign()
    return _page("campaign", campaign=shown, nights=shown["nights"][-NIGHTS_SHOWN:],
                 map_labels=map_labels(shown["festivals"]), page="campaign")


def map_labels(festivals: list[dict]) -> list[str]:
    """Each festival's short name over its column of the map."""
    return [translate("progress.map.training") if f["training"] else translate("progress.map.encore")
            if f["encore"] else f["key"] for f in festivals]


@bp.get("/progress/trouble")
def trouble():
    return _page("trouble", trouble=book().trouble(), page="trouble")


@bp.get("/progress/flock")
def flock():
    return _page("players", figures=book().players("flock"), kind="flock", title=translate("nav.flock"), page="flock")


@bp.get("/progress/geese")
def geese():
    return _page("players", figures=book().players("geese"), kind="geese", title=translate("nav.geese"), page="geese")


@bp.get("/progress/tonight")
def tonight():
    recap = book().tonight()
    return _page("tonight", recap=recap, recap_lines=recap_lines(recap)[1:], result={"text": recap_text(recap)},
                 page="tonight")


@bp.get("/progress/tonight.svg")
def tonight_svg():
    recap = book().tonight()
    body = tonight_picture(recap, recap_lines(recap), language())
    return body, 200, {"Content-Type": "image/svg+xml; charset=utf-8",
                       "Content-Disposition": f'inline; filename="tonight-{recap["night"]}.svg"'}


def recap_lines(recap: dict) -> list[str]:
    """Tonight's recap, a line each: the night, the shows, each event played, each board game finished."""
    lines = [translate("progress.tonight.share_title", night=recap["night"])]
    if recap["shows"]:
        lines.append(translate("progress.tonight.shows", shows=recap["shows"], wins=recap["wins"],
                               losses=recap["losses"], stars=recap["stars"]))
    for row in recap["events"]:
        result = STAR * row["stars"] if row["won"] else translate("progress.tonight.not_won")
        lines.append(translate("progress.tonight.event", event=event_name(row["event"], row["name"]),
                               result=result, attempts=row["attempts"]))
    for game in recap["games"]:
        scores = listed(f"{name} {score}" for name, score in game["scores"])
        lines.append(translate("progress.tonight.game", game=translate(f"nav.{game['kind']}"),
                               winners=listed(game["winners"]), scores=scores))
    if recap["empty"]:
        lines.append(translate("progress.tonight.empty"))
    return lines


def recap_text(recap: dict) -> str:
    return "\n".join(recap_lines(recap) + [translate("share.hashtag")])
