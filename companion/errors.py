"""The one error type for bad input anywhere: it names the field and says what is wrong."""


class BadInput(ValueError):
    """Input that cannot be used, with the field (dotted path) it concerns.

    >>> str(BadInput("timers.red.pins", "GPIO 40 does not exist (valid 2-27)"))
    'timers.red.pins: GPIO 40 does not exist (valid 2-27)'
    """

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field}: {problem}" if field else problem)
        self.field = field
        self.problem = problem

    def within(self, prefix: str) -> "BadInput":
        """The same problem, its field placed under `prefix` (e.g. a line number or file)."""
        field = f"{prefix}.{self.field}" if self.field else prefix
        return BadInput(field, self.problem)


class Conflict(BadInput):
    """The request is well formed but the table cannot do it now (HTTP 409)."""
