"""The hardware shell: each device's pure logic beside a thin wrapper around the library that drives it."""
