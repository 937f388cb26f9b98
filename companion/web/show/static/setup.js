// The setup check before a show on a physical table: what the chosen event asks of each glass, beside
// what its sensors read now, ticked when they agree. Emulated glasses need no hands and are left out.

import { eventName, faultText, t, timerName } from "/static/js/i18n.js";

// What the event asks of `colour`: "stand" (it starts running: upright, turned at Start), "lay" or "unused".
export function wanted(event, colour) {
  if (event.running.includes(colour)) return "stand";
  if (event.lying.includes(colour)) return "lay";
  return "unused";
}

// Does a sensor reading (a_up, b_up, side, or null) match what is wanted?
export function matches(want, pose) {
  if (want === "unused") return true;
  if (pose === null || pose === undefined) return false;
  return want === "stand" ? pose === "a_up" || pose === "b_up" : pose === "side";
}

function line(colour, symbol, event, sensor) {
  const want = wanted(event, colour);
  const ok = !sensor.fault && matches(want, sensor.pose);
  const li = document.createElement("li");
  li.dataset.colour = colour;
  li.className = want === "unused" ? "unused" : ok ? "ok" : "unset";
  const mark = document.createElement("span");
  mark.className = "mark";
  mark.textContent = want === "unused" ? "–" : ok ? "✓" : "✗";
  mark.setAttribute("role", "img"); // a tick read as its words
  mark.setAttribute("aria-label", t(want === "unused" ? "table.setup_unused_mark" : ok ? "table.setup_ok" : "table.setup_unset"));
  const what = document.createElement("span");
  what.className = "what";
  let asked = t(`table.setup_${want}`);
  if (colour === event.countdown) asked += ` ${t("table.setup_countdown", { n: event.countdown_start })}`;
  what.textContent = `${symbol} ${timerName(colour)}${t("join.colon")}${asked}`;
  const reads = document.createElement("span");
  reads.className = "reads";
  reads.textContent = sensor.fault ? t("table.setup_fault", { reason: faultText(sensor) })
    : t("table.setup_reads", { pose: t(`table.pose_${sensor.pose ?? "unknown"}`) });
  li.append(mark, what, reads);
  return [li, want === "unused" || ok];
}

// Draw the check into `box` for `event` and the table's `sensors`; hidden when no glass has sensors.
export function drawSetupCheck(box, event, sensors, looks) {
  const physical = Object.entries(sensors ?? {}).filter(([, sensor]) => sensor.sensed);
  box.hidden = !event || physical.length === 0;
  if (box.hidden) return;
  box.querySelector("#setup-check-event").textContent = t("table.setup_for", { event: eventName(event) });
  const lines = physical.map(([colour, sensor]) => line(colour, looks[colour].symbol, event, sensor));
  box.querySelector("#setup-check-list").replaceChildren(...lines.map(([li]) => li));
  box.querySelector("#setup-check-ready").hidden = !lines.every(([, ok]) => ok);
}
