"""What pages load goes gzipped to a browser that asks for it, once per version; streams and answers stay plain."""

import gzip

import pytest


GZIP = {"Accept-Encoding": "gzip, deflate, br"}



@pytest.mark.parametrize("path", ["/table/static/table.js", "/static/css/site.css", "/i18n/ja.json?area=table"])
def test_a_script_a_style_and_a_catalogue_travel_gzipped_and_unpack_to_the_same_bytes(client, path):
    plain = client.get(path)
    packed = client.get(path, headers=GZIP)
    assert plain.headers.get("Content-Encoding") is None and packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == plain.data and len(packed.data) < len(plain.data) / 2
    assert "Accept-Encoding" in packed.headers["Vary"]


def test_a_phone_that_has_the_version_is_answered_not_modified(client):
    first = client.get("/table/static/table.js", headers=GZIP)
    again = client.get("/table/static/table.js", headers={**GZIP, "If-None-Match": first.headers["ETag"]})
    assert first.headers["ETag"] != client.get("/table/static/table.js").headers["ETag"]  # another body, another tag
    assert again.status_code == 304 and again.data == b""


def test_answers_and_pages_stay_as_they_are(client):
    for path in ("/api/show", "/"):
        assert client.get(path, headers=GZIP).headers.get("Content-Encoding") is None


def test_a_live_stream_is_never_held_back_to_be_compressed(client):
    stream = client.get("/api/show/events", headers=GZIP, buffered=False)
    try:
        assert stream.headers.get("Content-Encoding") is None and stream.is_streamed
    finally:
        stream.close()
