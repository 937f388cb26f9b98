"""Files a phone downloads (a game's record, a score pad as CSV), and CSV cells a spreadsheet reads safely."""

import csv
import io

from flask import Response, jsonify

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet takes for the start of a formula


def cell(value) -> str:
    """Text for a CSV cell that a spreadsheet shows as text, never runs as a formula.

    >>> cell("=1+1"), cell("Ann"), cell(None)
    ("'=1+1", 'Ann', '')
    """
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_download(rows, filename: str) -> Response:
    """`rows` (the header first) as a CSV attachment named `filename`."""
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def csv_stream(rows, filename: str, *, batch: int = 500) -> Response:
    """`rows` (an iterable, the header first) as a CSV attachment written as they are read, `batch` rows a piece:
    the same bytes as csv_download, without the whole file (or every row) in memory at once."""
    def pieces():
        out = io.StringIO()
        writer = csv.writer(out)
        for n, row in enumerate(rows, start=1):
            writer.writerow(row)
            if n % batch == 0:
                yield out.getvalue()
                out.seek(0)
                out.truncate()
        yield out.getvalue()

    return Response(pieces(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def json_download(body, filename: str) -> Response:
    """`body` as a JSON attachment named `filename`."""
    response = jsonify(body)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
