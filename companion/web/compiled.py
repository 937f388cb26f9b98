"""Templates compiled once per process, for every app built in it.

Jinja compiles a template the first time an app renders it and keeps the
code in that app's own environment. The Pi builds one app and compiles each
template once; a process that builds many apps (the test suite builds one
per test, a fuzz test one per example) compiled every template again for
each, most of the time it spent rendering a page. The code is kept here by
the template's name and checked against the template's source when it is
read, so a template changed on disk is compiled afresh.

>>> from flask import Flask
>>> app = Flask(__name__); init_app(app)
>>> app.jinja_env.bytecode_cache is COMPILED
True
"""

import jinja2


class Compiled(jinja2.BytecodeCache):
    """Compiled templates in memory, shared by every Jinja environment that is handed it."""

    def __init__(self):
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)  # refused (and compiled again) if the source's checksum differs

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


COMPILED = Compiled()


def init_app(app) -> None:
    """Have `app` keep its compiled templates in COMPILED (before anything asks for its Jinja environment)."""
    app.jinja_options = {**app.jinja_options, "bytecode_cache": COMPILED}
