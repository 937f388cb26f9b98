"""A night at the table: the shows and games of one evening, by the table's local time.

A night runs from NIGHT_STARTS local time to the same time the next day, and
is named by the date it began on: a show at 01:30 after midnight belongs to
the evening before, as the players remember it.

>>> from datetime import timezone, timedelta
>>> tokyo = timezone(timedelta(hours=9))
>>> night_of(1_700_000_000.0, tokyo)  # 2023-11-15 07:13 in Tokyo
'2023-11-15'
>>> night_of(1_700_000_000.0 - 2 * 3600, tokyo)  # 05:13: still the night of the 14th
'2023-11-14'
"""

from datetime import datetime, timedelta, tzinfo

NIGHT_STARTS_HOUR = 6  # a night runs 06:00 to 06:00 local: nobody starts an evening's play before dawn
NIGHT_STARTS = timedelta(hours=NIGHT_STARTS_HOUR)


def night_of(wall: float, zone: tzinfo) -> str:
    """The night (its starting date, YYYY-MM-DD) the instant `wall` (epoch seconds) belongs to in `zone`."""
    return (datetime.fromtimestamp(wall, zone) - NIGHT_STARTS).date().isoformat()
