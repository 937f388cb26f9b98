"""The site's URL rules compile their URL writers on first use, and write every URL as werkzeug's own rules do."""

from unittest import mock

import pytest
from werkzeug.routing import Map, Rule

from companion.web import create_app

# A value for each kind of argument the site's rules take (werkzeug's converters).
SAMPLES = {"IntegerConverter": 7, "UnicodeConverter": "a b/é", "PathConverter": "a/b c.js", "AnyConverter": None}


def sample_values(rule: Rule) -> dict:
    values = {}
    for name, converter in rule._converters.items():
        kind = type(converter).__name__
        values[name] = converter.items[0] if kind == "AnyConverter" else SAMPLES[kind]
    return values


@pytest.fixture
def app(table):
    return create_app(table, testing=True)


def test_making_the_app_compiles_no_url_writer(table):
    with mock.patch.object(Rule, "_compile_builder", autospec=True, side_effect=Rule._compile_builder) as compiled:
        app = create_app(table, testing=True)
        assert compiled.call_count == 0
        with app.test_request_context():
            app.url_for("shows.show", show_id=1)
            app.url_for("shows.show", show_id=2)
        assert compiled.call_count == 1  # the one writer a URL needed, compiled once


def test_every_rule_writes_the_url_a_plain_werkzeug_rule_writes(app):
    rules = [rule for rule in app.url_map.iter_rules() if rule.endpoint != "static"]
    assert len(rules) > 50  # the whole site, not an empty map
    for rule in rules:
        plain = Rule(rule.rule, endpoint=rule.endpoint, defaults=rule.defaults, methods=rule.methods)
        Map([plain], converters=app.url_map.converters)
        values = sample_values(rule)
        for extra in ({}, {"lang": "ja", "next": "/a b"}):
            assert rule.build(values | extra) == plain.build(values | extra), rule.rule
            assert rule.build(values | extra, append_unknown=False) == \
                plain.build(values | extra, append_unknown=False), rule.rule
