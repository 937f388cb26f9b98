// Past shows' times in the phone's own time zone and language: the server writes them in UTC.

const format = new Intl.DateTimeFormat(document.documentElement.lang, { dateStyle: "medium", timeStyle: "short" });

for (const time of document.querySelectorAll("time[datetime]")) {
  const instant = new Date(time.dateTime);
  if (!Number.isNaN(instant.getTime())) {
    time.title = time.textContent; // the UTC reading stays at hand
    time.textContent = format.format(instant);
  }
}
