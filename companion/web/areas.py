"""The areas of the site: one blueprint package each, found by looking, drawn as the navigation.

An area is a package under `companion/web/` whose `__init__.py` defines
`area = Area(...)`: its blueprint (templates and scripts beside it), the
endpoint the navigation links to, its place in the navigation, and its own
message catalogs (`i18n/en.json`, `i18n/ja.json` in the package): its pages'
scripts load the site's messages and the area's own (plus those of any area
named in `shares`), the server's templates read them all. A new area is a new
package; nothing else changes.
"""

import importlib
import pkgutil
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint


@dataclass(frozen=True)
class Area:
    """One part of the site: `name` is its nav label key (`nav.<name>`) and the page's `area`."""

    name: str
    blueprint: Blueprint
    index: str | None  # the endpoint the navigation links to; None keeps the area out of it
    order: int = 100  # place in the navigation, lowest first
    catalogs: Path | None = None  # the folder of this area's i18n/<lang>.json files
    shares: tuple[str, ...] = ()  # the areas whose messages this area's pages show too (the kiosk: the show's)


def discover() -> list[Area]:
    """Every area package of companion.web, in navigation order."""
    import companion.web as web

    found = []
    for info in pkgutil.iter_modules(web.__path__):
        if info.ispkg:
            module = importlib.import_module(f"{web.__name__}.{info.name}")
            if isinstance(getattr(module, "area", None), Area):
                found.append(module.area)
    return sorted(found, key=lambda a: (a.order, a.name))
