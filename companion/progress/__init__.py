"""The table's progress over nights, as figures computed from its records: pure, no I/O, no wall clock.

Each module takes what the records hold, already read (a show's outcome and
the figures of its replayed journal, a board game's scores), and the table's
local time zone, and answers JSON-ready figures. The records reader
(companion.records.figures) keeps each show's and game's own figures once
they are computed; the sentences people read are the web's catalogues', so a
figure carries a sentence's code and its numbers, never words.

- `nights`: which evening a show or a game belongs to;
- `shows`: one show's figures from its journal (run-outs and when, tokens, the countdown left);
- `campaign`: the 30 events as a map, stars and wins over nights, each event's attempts in order;
- `trouble`: what goes wrong (run-outs by glass and phase, how close each show came, tokens, time);
- `players`: Über den Wolken and 帰る雁 per player, head to head;
- `tonight`: the current night across the three games.
"""
