"""The strategy advisor: the exactly optimal keep and bank-or-roll decision for any house rules.

* ``advise(rules, throw, ...)`` ranks every option after a throw (``Advice``/``Option``).
* ``policy_for(rules, cache_dir)`` is the cached solved policy (memory LRU + ``.npz`` on disk).
* ``advise_pass(rules, total, dice, ...)`` says whether to take over passed dice (``pass_dice``).
* ``solve_rules(rules)`` solves afresh and summarises (the CLI's ``scorekeeper solve``).

Everything is computed from exact chance outcomes; nothing is sampled.
"""

from scorekeeper.strategy.advice import Advice, Option, advise, game_context
from scorekeeper.strategy.passing import PassAdvice, advise_pass
from scorekeeper.strategy.policy import Policy, clear_memory, default_cache_dir, policy_for
from scorekeeper.strategy.summary import SolveSummary, bank_thresholds, solve_rules

__all__ = [
    "Advice",
    "Option",
    "PassAdvice",
    "Policy",
    "SolveSummary",
    "advise",
    "advise_pass",
    "bank_thresholds",
    "clear_memory",
    "default_cache_dir",
    "game_context",
    "policy_for",
    "solve_rules",
]
