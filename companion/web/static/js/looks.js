// A timer's symbol, drawn in its colour beside the timer's name: hidden from screen readers, which read the name.

export function symbolMark(look) {
  const mark = document.createElement("span");
  mark.className = "symbol";
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = look.symbol;
  mark.style.color = look.fill;
  return mark;
}
