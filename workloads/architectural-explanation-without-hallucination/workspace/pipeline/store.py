import sqlite3


class SqliteSink:
    """Writes rows into one SQLite table, replacing rows with the same id, in a single transaction."""

    def __init__(self, path, table="people"):
        self.path = path
        self.table = table

    def write(self, rows):
        rows = list(rows)
        if not rows:
            return 0
        cols = sorted(rows[0])
        with sqlite3.connect(self.path) as db:
            db.execute(f"CREATE TABLE IF NOT EXISTS {self.table} ({', '.join(c + ' TEXT' for c in cols)}, PRIMARY KEY (id))")
            db.executemany(
                f"INSERT OR REPLACE INTO {self.table} ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
                [[r.get(c, "") for c in cols] for r in rows],
            )
        return len(rows)
