"""Layout checks shared by the browser tests: nothing a phone shows lies outside its screen's width."""

# Every visible element's bounding box, measured against the viewport's width (the page must not scroll sideways).
OUTSIDE = """() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === "hidden" || style.display === "none") continue;
    // Moved off the screen on purpose until focused (the skip link): not a layout fault.
    if ((style.position === "absolute" || style.position === "fixed") && box.right <= 0) continue;
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
