// A button only its script can work starts off in the page: a tap before the script listens would go unheard.
// Once the script listens, the button is on. (A form's submit buttons: `ready` in forms.js.)
export function listen(button, handler) {
  if (!button) return;
  button.addEventListener("click", handler);
  button.disabled = false;
}
