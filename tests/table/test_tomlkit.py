"""The config's writer places a key the setup page adds right after its table's last key, so comments that close
the table (often the next section, commented out) stay below it. tomlkit has no public call for that: the
writer uses Container._insert_after, which tomlkit 0.15.3 removed. The pin in pyproject.toml keeps the versions
that have it; these tests fail when it is wrong."""

import tomllib
from importlib.metadata import version
from pathlib import Path

import tomlkit
from packaging.requirements import Requirement

from companion.config import _put_all


def test_the_installed_tomlkit_is_one_the_pin_allows():
    project = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text("utf-8"))["project"]
    pinned = next(r for r in map(Requirement, project["dependencies"]) if r.name == "tomlkit")
    assert pinned.specifier.contains(version("tomlkit")), (pinned, version("tomlkit"))
    assert "<" in str(pinned.specifier), "tomlkit is pinned to the versions whose internal the writer uses"


def test_a_new_key_goes_after_the_last_key_not_after_the_closing_comments():
    document = tomlkit.parse('[web]\nport = 8000  # the page\n# [mqtt]\n# url = "mqtt://host"\n')
    _put_all(document["web"], {"pin": "482913", "port": 8080})
    assert tomlkit.dumps(document) == ('[web]\nport = 8080  # the page\npin = "482913"\n'
                                       '# [mqtt]\n# url = "mqtt://host"\n')
