// The site's top bar on a phone: its links one row that scrolls sideways (site.css). Opening a page brings its own
// link into sight, a fade at an end of the row says more links lie beyond it, and a link reached by the keyboard
// scrolls wholly into sight, clear of the fade.

const row = document.querySelector("header.top nav");
const still = window.matchMedia("(prefers-reduced-motion: reduce)");

// Which ends of the row have links out of sight: "before", "after", "both", or none (all of them fit).
function markMore() {
  const before = row.scrollLeft > 1;
  const after = row.scrollLeft + row.clientWidth < row.scrollWidth - 1;
  if (before || after) row.dataset.more = before && after ? "both" : before ? "before" : "after";
  else delete row.dataset.more;
}

// The current page's link in the middle of the row, or as near as its ends allow: set at once, so opening a page
// never moves the row before the eyes (and the page itself never scrolls, as scrollIntoView would make it).
function showCurrent() {
  const current = row.querySelector('[aria-current="page"]');
  if (!current) return;
  const box = row.getBoundingClientRect();
  const link = current.getBoundingClientRect();
  row.scrollBy({ left: link.left - box.left - (box.width - link.width) / 2, behavior: "instant" });
}

// The browser's own focus scrolling leaves a link cut at the edge, or under the fade, as it is. The fade's width is
// the row's scroll-padding, so that a browser scrolling a focused link by itself clears it too.
function reveal(event) {
  const link = event.target;
  if (!link.matches(":focus-visible")) return;  // a tap: the page is already on its way
  const box = row.getBoundingClientRect();
  const place = link.getBoundingClientRect();
  const fade = parseFloat(getComputedStyle(row).scrollPaddingLeft);
  const cutBefore = place.left - (box.left + fade);
  const cutAfter = place.right - (box.right - fade);
  const by = cutBefore < 0 ? cutBefore : Math.max(cutAfter, 0);
  if (by) row.scrollBy({ left: by, behavior: still.matches ? "instant" : "smooth" });
}

if (row) {
  showCurrent();
  markMore();
  row.addEventListener("scroll", markMore, { passive: true });
  row.addEventListener("focusin", reveal);
  new ResizeObserver(markMore).observe(row);
}
