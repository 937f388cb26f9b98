"""Checks shared by the browser tests: axe-core finds nothing wrong, and each timer wears its symbol."""

from companion.web.looks import LOOKS

# For each element matching the selector: its colour, its symbol's text, whether screen readers skip the symbol,
# the symbol's colour as drawn, and the words left for screen readers (the element's text without the symbol).
SYMBOLS = """(selector) => [...document.querySelectorAll(selector)].map((el) => {
  const mark = el.querySelector('.symbol');
  const words = (mark ? el.textContent.replace(mark.textContent, '') : el.textContent).trim();
  return { colour: el.dataset.colour || el.dataset.timer, symbol: mark?.textContent, hidden: mark?.getAttribute('aria-hidden'),
           drawn: mark && getComputedStyle(mark).color, words };
})"""


def no_axe_violations(page, where: str) -> None:
    from axe_playwright_python.sync_playwright import Axe

    found = [(v["id"], [n["target"] for n in v["nodes"]]) for v in Axe().run(page).response["violations"]]
    assert found == [], f"{where}: {found}"


def rgb(fill: str) -> str:
    """A #rrggbb fill as getComputedStyle writes it."""
    return "rgb({}, {}, {})".format(*(int(fill[i:i + 2], 16) for i in (1, 3, 5)))


def assert_symbols(page, selector: str, colours, names: dict[str, str], *, coloured: bool = True) -> None:
    """Each element of `selector` carries its timer's symbol (hidden from screen readers, in its colour) and name."""
    shown = page.evaluate(SYMBOLS, selector)
    assert sorted(s["colour"] for s in shown) == sorted(colours), selector
    for s in shown:
        look = LOOKS[s["colour"]]
        assert (s["symbol"], s["hidden"]) == (look["symbol"], "true"), s
        assert names[s["colour"]] in s["words"] and look["symbol"] not in s["words"], s
        if coloured:
            assert s["drawn"] == rgb(look["fill"]), s
