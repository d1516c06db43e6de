"""One strict parser for what a request sends: query numbers, flags, ids and JSON bodies.

Every query field and body goes through these, so a bad value is a 400 naming the field and
what is accepted, never a 500: numbers are ASCII digits within bounds (no ``²``, ``①`` or
5,000-digit numbers), flags are spelled one of a few ways, ids match their whole pattern, and a
JSON body is bounded in size and nesting.

>>> int_field("limit", "50", 1, 500)
50
>>> int_field("limit", "²", 1, 500)
Traceback (most recent call last):
...
scorekeeper.errors.RequestFieldError: limit must be a whole number from 1 to 500, not '²'
>>> bool_field("on_board", "yes")
True
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from scorekeeper.errors import RequestFieldError

MAX_JSON_DEPTH = 32
"""The deepest nesting a JSON body may have (a game's setup needs 4)."""

MAX_DIGITS = 9
"""The most digits a query number may have before its bounds are even checked."""

_DIGITS = re.compile(rf"-?[0-9]{{1,{MAX_DIGITS}}}")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Args(Protocol):
    """A query's fields (a ``dict``, or werkzeug's ``MultiDict``)."""

    def get(self, key: str, /) -> str | None:
        """The (first) value of ``key``, or None."""


class MultiArgs(Args, Protocol):
    """A query's fields where a name may repeat (werkzeug's ``MultiDict``)."""

    def getlist(self, key: str) -> list[str]:
        """Every value of ``key``, in order."""


def _shown(raw: str) -> str:
    return repr(raw if len(raw) <= 20 else raw[:20] + "…")


def int_field(name: str, raw: str, low: int, high: int) -> int:
    """``raw`` as an integer from ``low`` to ``high``, written in ASCII digits.

    :raises RequestFieldError: for anything else, naming the field and the range.
    """
    if not _DIGITS.fullmatch(raw) or not low <= int(raw) <= high:
        raise RequestFieldError(
            f"{name} must be a whole number from {low} to {high}, not {_shown(raw)}"
        )
    return int(raw)


def int_arg(args: Args, name: str, default: int, low: int, high: int) -> int:
    """The query field ``name`` as :func:`int_field`, or ``default`` when it is absent."""
    raw = args.get(name)
    return default if raw is None else int_field(name, raw, low, high)


def bool_field(name: str, raw: str) -> bool:
    """``raw`` as a flag: 1/true/yes/on or 0/false/no/off, any case.

    :raises RequestFieldError: for anything else.
    """
    word = raw.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise RequestFieldError(f"{name} must be true or false (1/0, yes/no), not {_shown(raw)}")


def game_id_field(raw: str) -> str:
    """A game id as the store makes them: 1 to 64 letters, digits, ``-`` or ``_``.

    :raises RequestFieldError: for anything else (a newline, a surrogate, a slash).
    """
    return id_field("game id", raw)


def text_field(name: str, raw: str, most: int) -> str:
    """``raw`` as printable text of at most ``most`` characters (no control characters).

    :raises RequestFieldError: for a longer one, or one with a control character.
    """
    if len(raw) > most or not raw.isprintable():
        raise RequestFieldError(
            f"{name} must be printable text of at most {most} characters, not {_shown(raw)}"
        )
    return raw


def text_arg(args: Args, name: str, default: str, most: int = 200) -> str:
    """The query field ``name`` as :func:`text_field`, or ``default`` when it is absent."""
    raw = args.get(name)
    return default if raw is None else text_field(name, raw, most)


def bool_arg(args: Args, name: str, default: bool) -> bool:
    """The query field ``name`` as :func:`bool_field`, or ``default`` when absent or empty."""
    raw = args.get(name)
    return default if raw is None or raw == "" else bool_field(name, raw)


def opt_int_arg(args: Args, name: str, low: int, high: int) -> int | None:
    """The query field ``name`` as :func:`int_field`, or None when it is absent or empty."""
    raw = args.get(name)
    return None if raw is None or raw == "" else int_field(name, raw, low, high)


def id_field(name: str, raw: str) -> str:
    """An id in a path (a game's, a proposal's): 1 to 64 letters, digits, ``-`` or ``_``.

    :raises RequestFieldError: for anything else, naming the field.
    """
    if not _GAME_ID.fullmatch(raw):
        raise RequestFieldError(f"{_shown(raw)} is not a {name} (1 to 64 letters, digits, - and _)")
    return raw


MAX_LIST = 64
"""The most times one query field may repeat (``set=KEY=VALUE`` for every rules option)."""


def list_arg(args: MultiArgs, name: str, most_len: int = 200) -> list[str]:
    """Every value of the query field ``name``, each :func:`text_field`, at most
    :data:`MAX_LIST` of them.

    :raises RequestFieldError: for more, or a value that is not short printable text.
    """
    values = args.getlist(name)
    if len(values) > MAX_LIST:
        raise RequestFieldError(f"{name} may be given at most {MAX_LIST} times, not {len(values)}")
    return [text_field(name, v, most_len) for v in values]


def faces_arg(args: Args, name: str, example: str) -> tuple[int, ...]:
    """Die faces written like dice (``6,4``), or none when the field is absent or empty.

    :raises RequestFieldError: when it is not faces from 1 to 6.
    """
    text = text_arg(args, name, "", 40)
    parts = [p for p in re.split(r"[\s,;]+", text.strip()) if p]
    if not all(p.isascii() and p.isdigit() and len(p) == 1 and "1" <= p <= "6" for p in parts):
        raise RequestFieldError(
            f"bad {name} {text!r}: give die faces from 1 to 6, e.g. {name}={example}"
        )
    return tuple(int(p) for p in parts)


def rules_args(args: MultiArgs) -> tuple[str, list[str]]:
    """The ``rules=PRESET`` and ``set=KEY=VALUE`` fields of a query (preset ``standard``)."""
    return text_arg(args, "rules", "standard", 40), list_arg(args, "set")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def json_depth(value: Any) -> int:
    """How deeply ``value`` nests lists and objects (a scalar is 0), without recursion.

    :raises RequestFieldError: when a string in it holds a lone surrogate (``"\\ud800"``),
        which no text can store.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _has_surrogate(item):
                raise RequestFieldError("the JSON body holds a lone surrogate (\\ud800-\\udfff)")
            continue
        if isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item)
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        else:
            continue
        deepest = max(deepest, depth + 1)
    return deepest


def _no_constant(word: str) -> Any:
    raise RequestFieldError(f"the JSON body holds {word}, which is not a number JSON allows")


def parse_json(data: bytes | str) -> Any:
    """A request body as JSON, at most :data:`MAX_JSON_DEPTH` deep, without NaN or Infinity.

    :raises RequestFieldError: when it is not UTF-8 JSON, nests deeper, or holds a lone
        surrogate.
    """
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        value = None
        too_deep = True
    except RequestFieldError:
        raise
    except (UnicodeDecodeError, ValueError) as exc:
        raise RequestFieldError(f"the body must be JSON: {str(exc)[:80]}") from None
    else:
        too_deep = json_depth(value) > MAX_JSON_DEPTH
    if too_deep:
        raise RequestFieldError(f"the JSON body nests deeper than {MAX_JSON_DEPTH} levels")
    return value
