"""Connections and schema migrations.

Migrations live in migrations/NNNN_<slug>.sql. Each file has an `-- +up` section, applied in file
order, and a `-- +down` section that undoes it. Applied versions are recorded in schema_migrations.
"""
import os
import re
import sqlite3

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIGRATIONS_DIR = os.path.join(ROOT, "migrations")
_FILE = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migration_files(directory=MIGRATIONS_DIR):
    """The migration file names in `directory`, in version order."""
    return sorted(name for name in os.listdir(directory) if _FILE.match(name))


def sections(text):
    """Splits a migration's text into its (up, down) SQL."""
    up = re.search(r"^-- \+up[ \t]*\n(.*?)^-- \+down[ \t]*$", text, re.S | re.M)
    down = re.search(r"^-- \+down[ \t]*\n(.*)\Z", text, re.S | re.M)
    if not up or not down:
        raise ValueError("a migration needs an '-- +up' section followed by a '-- +down' section")
    return up.group(1), down.group(1)


def connect(path=":memory:"):
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def migrate(conn, directory=MIGRATIONS_DIR, target=None):
    """Applies every migration not yet recorded, up to version `target` (all when None)."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    for name in migration_files(directory):
        version = int(name[:4])
        if version in done or (target is not None and version > target):
            continue
        with open(os.path.join(directory, name), encoding="utf-8") as f:
            up, _ = sections(f.read())
        conn.executescript("BEGIN;\n" + up + "\nCOMMIT;")
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", (version, name))
        conn.commit()
    return conn
