"""The hourglass table companion: a Raspberry Pi daemon for Skyrockets and two bird games."""

__version__ = "0.1.0"
