// A button whose change is on its way is busy: marked aria-disabled rather than disabled, so it keeps the focus
// (a disabled button drops it to the page body, and a keyboard or screen reader starts again from the top), and
// a tap on it meanwhile is not sent a second time.

export const isBusy = (button) => button.getAttribute("aria-disabled") === "true";

// Runs `work` (an async function) with `button` busy; its answer, or undefined if the button was busy already.
export async function whileBusy(button, work) {
  if (isBusy(button)) return undefined;
  button.setAttribute("aria-disabled", "true");
  try {
    return await work();
  } finally {
    button.removeAttribute("aria-disabled");
  }
}
