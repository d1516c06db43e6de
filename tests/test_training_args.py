"""training.args: the argument types the training commands share refuse what they cannot take."""

from __future__ import annotations

import argparse
import re

import pytest

from training.args import parse_count, parse_overlap, parse_share


def test_each_type_takes_its_range_and_names_it_when_refusing() -> None:
    assert parse_share("0") == 0.0 and parse_share("1") == 1.0
    assert parse_overlap("1") == 1.0 and parse_overlap("0.3") == 0.3
    assert parse_count("12") == 12
    refused = [
        (parse_share, "1.5", "a share from 0 to 1"),
        (parse_share, "nan", "a share from 0 to 1"),
        (parse_overlap, "0", "an overlap (IoU) over 0 and at most 1"),
        (parse_overlap, "-0.2", "an overlap (IoU) over 0 and at most 1"),
        (parse_count, "0", "a whole number, 1 or more"),
        (parse_count, "two", "a whole number, 1 or more"),
    ]
    for parse, text, expected in refused:
        message = re.escape(f"expected {expected}: {text}")
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            parse(text)
