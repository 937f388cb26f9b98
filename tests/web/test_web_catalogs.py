"""Each page's scripts load only their area's catalog (the site's messages, the area's own and those of the
areas it shares words with): every key a script can ask for is in the catalog its pages load."""

import re
from pathlib import Path

import pytest
from flask import Blueprint, Flask

from companion.mqtt.hall import Hall, create_hall_app
from companion.web import i18n
from companion.web.areas import Area

SITE_JS = Path(i18n.__file__).parent / "static" / "js"
ASKED = re.compile(r"""\bt\(\s*(?:"([\w.]+)"|'([\w.]+)'|`([\w.]+)(\$\{)?)""")  # t("a.b"), t('a.b'), t(`a.${x}`)
IMPORTED = re.compile(r"""\bfrom\s+["']([^"']+)["']""")


def scripts(area: Area | None) -> dict[str, Path]:
    """Every script module a page of `area` can run, by its address: the site's and the area's own, and all
    they import."""
    folders = {"/static/js": SITE_JS}
    folders |= {a.blueprint.static_url_path: Path(a.blueprint.static_folder) for a in i18n._AREAS.values()}
    todo = [f"/static/js/{p.name}" for p in SITE_JS.glob("*.js")]
    if area is not None:
        todo += [f"{area.blueprint.static_url_path}/{p.name}" for p in Path(area.blueprint.static_folder).glob("*.js")]
    found = {}
    while todo:
        url = todo.pop()
        if url in found:
            continue
        folder, name = url.rsplit("/", 1)
        found[url] = folders[folder] / name
        for target in IMPORTED.findall(found[url].read_text("utf-8")):
            todo.append(f"{folder}/{target[2:]}" if target.startswith("./") else target)
    return found


def asked(script: str) -> list[tuple[str, bool]]:
    """The keys a script asks t() for: (key, False), or (prefix, True) for a key built from data."""
    return [(double or single or built, bool(slot)) for double, single, built, slot in ASKED.findall(script)]



@pytest.fixture
def areas(client):
    """Every area of the table's site and the hall's (registered by building their apps); None: the site's own."""
    create_hall_app(Hall())
    return [None, *i18n._AREAS.values()]


def test_every_key_a_page_script_asks_for_is_in_the_catalog_its_page_loads(areas):
    missing = []
    for area in areas:
        name = area and area.name
        known = i18n.area_catalog(name, "en")
        for url, path in scripts(area).items():
            for key, built in asked(path.read_text("utf-8")):
                found = any(k.startswith(key) for k in known) if built else key in known
                if not found:
                    missing.append(f"{name or 'site'}: {url} asks for {key}{'…' if built else ''}")
    assert missing == []


def test_the_check_reads_every_form_of_asking():
    script = 't("a.b"); t(\'c.d\'); t(`e.${x}`); t(`f.g`); t(name); at("h.i")'
    assert asked(script) == [("a.b", False), ("c.d", False), ("e.", True), ("f.g", False)]


def test_the_site_catalog_alone_serves_pages_outside_any_area(client):
    site = client.get("/i18n/en.json").json
    table = client.get("/i18n/en.json?area=table").json
    kiosk = client.get("/i18n/ja.json?area=kiosk").json
    assert "timer.red" in site and "countdown.title" not in site and "flock.title" not in table
    assert set(site) < set(table) and "countdown.button" in kiosk and "kiosk.pin" in kiosk


def test_an_unknown_area_or_language_is_a_clear_404(client):
    create_hall_app(Hall())  # the hall's area is another site's: the table does not serve its words
    for path, field in (("/i18n/en.json?area=nowhere", "area"), ("/i18n/en.json?area=hall", "area"),
                        ("/i18n/xx.json?area=table", "lang")):
        answer = client.get(path)
        assert answer.status_code == 404 and answer.json["field"] == field, path


def test_an_area_cannot_share_the_words_of_an_area_the_site_lacks():
    lonely = Area("lonely", Blueprint("lonely", __name__), None, shares=("nowhere",))
    with pytest.raises(ValueError, match="nowhere"):
        i18n.init_app(Flask(__name__), [lonely])


def test_each_page_names_its_own_areas_catalog(client):
    for path, area in (("/", "table"), ("/scorepad", "scorepad"), ("/flock", "flock"), ("/geese", "geese")):
        page = client.get(path, headers={"Accept-Language": "ja"}).get_data(as_text=True)
        assert f'data-catalog="/i18n/ja.json?area={area}"' in page, path


def test_a_page_reads_a_key_two_areas_define_in_its_own_areas_words(client):
    assert "Open on another phone" in client.get("/").get_data(as_text=True)


def test_no_catalog_names_a_key_twice():
    # A key written twice in one file silently keeps its last value: the setup page once showed a
    # switch's "closed" where the refusal of a set-up table was meant.
    import json

    files = [*Path(i18n.__file__).parent.glob("static/i18n/*.json"),
             *Path(i18n.__file__).parent.glob("*/i18n/*.json"),
             *(Path(i18n.__file__).parents[1] / "mqtt").rglob("i18n/*.json")]
    assert files

    def unique(pairs):
        keys = [key for key, _ in pairs]
        repeated = sorted({key for key in keys if keys.count(key) > 1})
        assert not repeated, f"{path}: {repeated}"
        return dict(pairs)

    for path in files:
        json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=unique)
