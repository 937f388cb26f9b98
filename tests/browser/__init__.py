"""Browser tests: the pages in headless Chromium (a package, so its conftest keeps a name of its own)."""
