"""Layout checks shared by the browser tests: nothing a phone shows lies outside its screen's width."""

# Every visible element's bounding box, measured against the viewport's width (the page must not scroll sideways).
OUTSIDE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  const scrollsSideways = (el) => {
    for (let box = el; box && box !== document.body; box = box.parentElement) {
      if (["auto", "scroll"].includes(getComputedStyle(box).overflowX)) return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    // Moved off the screen on purpose until focused (the skip link): not a layout fault.
    if ((style.position === "absolute" || style.position === "fixed") && box.right <= 0) continue;
    // Inside a box made to scroll sideways (the top bar's row of links): reached by scrolling that box, which is
    // itself checked, not the page.
    if (scrollsSideways(el.parentElement)) continue;
    if (box.left < -0.5 || box.right > width + 0.5) {
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "");
      out.push(`${name} [${Math.round(box.left)}, ${Math.round(box.right)}] "${(el.textContent || "").trim().slice(0, 30)}"`);
    }
  }
  if (document.documentElement.scrollWidth > width) out.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
  return out;
}"""


def assert_inside(page, where: str) -> None:
    """Every element of `page` lies inside the viewport's width (bounding boxes), or fail naming them."""
    page.wait_for_load_state("load")
    outside = page.evaluate(OUTSIDE)
    assert outside == [], f"{where}: outside the {page.viewport_size['width']} px screen: {outside[:8]}"


# The site's top bar on a phone: its links in one row (the bar no taller than one link and its own padding), each a
# 44 px touch target, the current page's link and the language link wholly on the screen. A page without a current
# link (the PIN page, an error) is checked for the rest.
TOP_BAR = """() => {
  const bar = document.querySelector("header.top");
  if (!bar || !bar.getClientRects().length) return [];
  const faults = [];
  const style = getComputedStyle(bar);
  const links = [...bar.querySelectorAll("a")];
  const line = Math.max(...links.map((a) => a.getBoundingClientRect().height))
    + parseFloat(style.paddingTop) + parseFloat(style.paddingBottom)
    + parseFloat(style.borderTopWidth) + parseFloat(style.borderBottomWidth);
  const height = bar.getBoundingClientRect().height;
  if (height > line + 0.5) faults.push(`the top bar takes ${Math.round(height)} px, more than one line (${Math.round(line)} px)`);
  const small = links.filter((a) => a.getBoundingClientRect().height < 43.5).map((a) => a.textContent.trim());
  if (small.length) faults.push(`links under a 44 px touch target: ${small}`);
  const rows = new Set(links.map((a) => Math.round(a.getBoundingClientRect().top)));
  if (rows.size > 1) faults.push(`the top bar's links lie on ${rows.size} rows`);
  const nav = bar.querySelector("nav").getBoundingClientRect();
  const width = document.documentElement.clientWidth;
  const seen = (a, box) => {
    const r = a.getBoundingClientRect();
    return r.width > 0 && r.left >= Math.max(box.left, 0) - 0.5 && r.right <= Math.min(box.right, width) + 0.5;
  };
  const current = bar.querySelector("nav [aria-current=page]");
  if (current && !seen(current, nav)) {
    const r = current.getBoundingClientRect();
    faults.push(`the current page's link "${current.textContent.trim()}" is out of sight [${Math.round(r.left)}, ${Math.round(r.right)}]`);
  }
  const lang = bar.querySelector(".lang");
  if (!seen(lang, { left: 0, right: width })) faults.push("the language link is out of sight");
  return faults;
}"""
