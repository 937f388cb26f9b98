"""The broker's settings refuse each wrong value with the code of what is wrong, in both languages."""

import json

import pytest

from companion.errors import BadInput
from companion.mqtt.settings import check_name, from_url
from companion.web.i18n import CATALOG_DIR


def catalogue(lang: str) -> dict:
    return json.loads((CATALOG_DIR / f"{lang}.json").read_text("utf-8"))


@pytest.mark.parametrize("refuse", [
    lambda: check_name("table 3", "mqtt.table"),
    lambda: check_name(3, "mqtt.table"),
    lambda: from_url("mqtt://broker:1883/table%203"),
    lambda: from_url("mqtt://broker:1883", table="tâble"),
])
def test_a_wrong_table_name_is_refused_as_a_name_not_as_an_address(refuse):
    with pytest.raises(BadInput) as refused:
        refuse()
    code = refused.value.error_code
    assert code == "errors.mqtt.name"
    assert "mqtt://" not in catalogue("en")[code] and code in catalogue("ja")


def test_a_wrong_address_is_still_refused_as_an_address():
    for url in (3, "http://broker", "mqtt://user:pw@broker"):
        with pytest.raises(BadInput) as refused:
            from_url(url)
        assert refused.value.error_code == "errors.setup.broker_url"
