"""Helpers the tests share; ``tests/conftest.py`` hands them out as fixtures."""
