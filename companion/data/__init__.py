"""Data files shipped with the package (the reference pin map links to hw/pinout.toml)."""
