"""The request's database connection: ``get_db()``, flaskr style."""

from __future__ import annotations

import sqlite3

from flask import current_app, g

from scorekeeper.store import thread_connection


def db_path() -> str:
    """The app's database path: its ``DATABASE`` config."""
    return str(current_app.config["DATABASE"])


def get_db() -> sqlite3.Connection:
    """This request's database connection: the serving thread's own, kept between requests."""
    conn: sqlite3.Connection | None = g.get("sk_db")
    if conn is None:
        conn = g.sk_db = thread_connection(db_path())
    return conn
