"""Repository hygiene for migrations/ (the checksums themselves are verified by the deploy gate)."""
import os
import unittest

from stockroom.db import MIGRATIONS_DIR, connect, migrate, migration_files, sections


class MigrationFilesTest(unittest.TestCase):
    def test_versions_are_consecutive_from_0001(self):
        versions = [int(name[:4]) for name in migration_files()]
        self.assertEqual(versions, list(range(1, len(versions) + 1)))

    def test_every_file_has_a_header_and_both_sections(self):
        for name in migration_files():
            with self.subTest(name=name):
                with open(os.path.join(MIGRATIONS_DIR, name), encoding="utf-8") as f:
                    text = f.read()
                self.assertEqual(text.splitlines()[0], "-- migration: " + name[:-4])
                up, down = sections(text)
                self.assertTrue(up.strip() and down.strip())

    def test_every_file_is_listed_in_checksums(self):
        with open(os.path.join(MIGRATIONS_DIR, "CHECKSUMS"), encoding="utf-8") as f:
            listed = [line.split()[0] for line in f if line.strip() and not line.startswith("#")]
        self.assertEqual(listed, migration_files())

    def test_migrating_twice_is_a_no_op(self):
        conn = migrate(connect())
        before = conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0]
        migrate(conn)
        self.assertEqual(conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0], before)
        self.assertEqual(before, len(migration_files()))


if __name__ == "__main__":
    unittest.main()
