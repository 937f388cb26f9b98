"""帰る雁 (Kaeru Kari): the rules of the migration card game, pure (no I/O, no clock, randomness passed in).

`score(data)` scores a record (the migrations alone, or a whole game
replayed action by action); `Rules` holds every rule parameter, loadable
from TOML; `Game` plays a game from a seeded deal; the simulator plays many.

>>> score({"players": ["a", "b", "c"], "migrations": {}})["ranking"]
['a', 'b', 'c']
"""

from companion.geese.cards import GOOSE, SUITS, Card, deck, parse_card
from companion.geese.ground import WinteringGround
from companion.geese.replay import Replay, score
from companion.geese.rules import DEFAULT_RULES, Rules
from companion.geese.scoring import final_scores, ranking, score_migration

__all__ = ["Card", "DEFAULT_RULES", "GOOSE", "Replay", "Rules", "SUITS", "WinteringGround", "deck",
           "final_scores", "parse_card", "ranking", "score", "score_migration"]
