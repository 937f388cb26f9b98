// Keyboard and screen-reader use of the pages' boards and card lists: a grid is one stop of the Tab key,
// its buttons reached by the arrow keys (the WAI-ARIA grid pattern); a part drawn anew keeps the focus on
// the same thing; news is read out once; a symbol the eye reads has words for the ear.

const STEPS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

// The grid's buttons ([data-key]) row by row ([role=row]); a toolbar is one row.
function rowsOf(grid) {
  const rows = [...grid.querySelectorAll("[role=row]")];
  return (rows.length ? rows : [grid]).map((row) => [...row.querySelectorAll("[data-key]")]).filter((row) => row.length);
}

const clamp = (i, length) => Math.max(0, Math.min(i, length - 1));

// Make `grid` (role=grid, rows of [data-key] buttons; or a toolbar) one tab stop: the arrow keys move by row
// and column, Home/End to the row's ends (with Ctrl, the grid's). `byDigit`: a digit key goes to that row
// (1 = the first). The last button focused stays the tab stop (grid.dataset.current), across redraws too.
export function rovingGrid(grid, { byDigit = false } = {}) {
  if (grid.dataset.roving) return;
  grid.dataset.roving = "yes";
  grid.addEventListener("focusin", (event) => {
    const button = event.target.closest("[data-key]");
    if (button) tabStop(grid, button.dataset.key);
  });
  grid.addEventListener("keydown", (event) => {
    const button = event.target.closest("[data-key]");
    if (!button || event.altKey || event.metaKey) return;
    const rows = rowsOf(grid);
    const r = rows.findIndex((row) => row.includes(button));
    const c = rows[r].indexOf(button);
    let to = null;
    if (STEPS[event.key]) to = [r + STEPS[event.key][0], c + STEPS[event.key][1]];
    else if (event.key === "Home") to = event.ctrlKey ? [0, 0] : [r, 0];
    else if (event.key === "End") to = event.ctrlKey ? [rows.length - 1, Infinity] : [r, Infinity];
    else if (byDigit && !event.ctrlKey && /^[1-9]$/.test(event.key)) to = [Number(event.key) - 1, c];
    if (!to) return;
    event.preventDefault();
    const row = rows[clamp(to[0], rows.length)];
    row[clamp(to[1], row.length)].focus();
  });
}

// Make the button keyed `key` the grid's one tab stop (else the one that was, else the first).
export function tabStop(grid, key) {
  const buttons = [...grid.querySelectorAll("[data-key]")];
  const stop = [key, grid.dataset.current].map((k) => buttons.find((b) => b.dataset.key === k)).find(Boolean) ?? buttons[0];
  for (const b of buttons) b.tabIndex = b === stop ? 0 : -1;
  if (stop) grid.dataset.current = stop.dataset.key;
  return stop;
}

// Draw `part` anew with `draw()`; if the focus was inside, put it back on the element with the same
// data-key, or on `fallback(key)` when that thing is gone, so the focus never falls back to the page.
export function redraw(part, draw, fallback = () => null) {
  const focused = part.contains(document.activeElement) ? document.activeElement : null;
  const key = focused?.dataset.key;
  draw();
  if (!focused) return;
  const same = key === undefined ? null : part.querySelector(`[data-key="${CSS.escape(key)}"]`);
  (same ?? fallback(key))?.focus();
}

// Write `text` into a polite status only when it changes: a redraw never repeats old news.
export function announce(status, text) {
  if (status.textContent !== text) status.textContent = text;
}

// Fill `el` with `shown` for the eye (symbols, hidden from screen readers) and `words` for the ear.
export function symbolText(el, shown, words) {
  const eye = document.createElement("span");
  eye.setAttribute("aria-hidden", "true");
  eye.textContent = shown;
  const ear = document.createElement("span");
  ear.className = "visually-hidden";
  ear.textContent = words;
  el.replaceChildren(eye, ear);
  return el;
}

// Whether the focus is lost: on the page itself, or on a control a change has just turned off or hidden (the
// browser moves such a focus to the page only later). A keyboard or screen reader is then back at the top.
export function focusLost() {
  const active = document.activeElement;
  return !active || active === document.body || active.disabled === true || !active.checkVisibility();
}
