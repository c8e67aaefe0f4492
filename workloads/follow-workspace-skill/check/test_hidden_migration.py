"""Hidden check for follow-workspace-skill: the discontinued flag shipped by the db-migrations skill's rules.

The rules come from .metis/skills/db-migrations/SKILL.md and are not visible in the code: the
`add_<table>_<column>` slug, `is_<adjective>` flags as INTEGER NOT NULL DEFAULT 0 with a 0/1 CHECK, a
down section that restores the schema exactly, the CHECKSUMS line over the normalised up section
(not sha256sum of the file), deployed migrations untouched and a regenerated schema.sql. Copied to
<workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import hashlib
import os
import re
import sqlite3
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

from stockroom.db import connect, migrate, migration_files, sections  # noqa: E402
from stockroom.dump_schema import dump  # noqa: E402
from stockroom.products import add_product, discontinue, get_product, list_active  # noqa: E402

MIGRATIONS = os.path.join(ROOT, "migrations")
NEW_FILE = "0004_add_products_is_discontinued.sql"
# Checksums of the deployed migrations as shipped: none of them may change.
DEPLOYED = {
    "0001_create_products.sql": "f18e0b3c3cfc758eef5a152ad7ea421bfca1a8898d919a02c8a83c5ecf081f99",
    "0002_create_stock_levels.sql": "0ef2f6e347a6f8f4576920d0e3536408ee527e48d1589981d376c2be5cd614c6",
    "0003_add_products_price_cents.sql": "7765004ee07012652983dc1692d73a0f6d34c8f93c445950e7511b01f3538236",
}
DEPLOYED_FILE_SHA256 = {
    "0001_create_products.sql": "97795078ce8538f19b13a821b81971ca5fdba0dfd8652cebc612ae6d6f6dcc52",
    "0002_create_stock_levels.sql": "6253dde1cddedb176c6d6516a4b34288461f083d8498e4f4d4214e95f3f147f5",
    "0003_add_products_price_cents.sql": "ac73ab8b67d857ee79d8ded9934ce23ccdda55859c4406c51abcf5c56077c004",
}


def read(name):
    with open(os.path.join(MIGRATIONS, name), encoding="utf-8") as f:
        return f.read()


def skill_checksum(text):
    """The skill's algorithm: SHA-256 of the up section, lines right-stripped, blank and comment lines dropped."""
    up, _ = sections(text)
    kept = [line.rstrip() for line in up.splitlines()]
    kept = [line for line in kept if line and not line.lstrip().startswith("--")]
    return hashlib.sha256(("\n".join(kept) + "\n").encode("utf-8")).hexdigest()


def checksum_lines():
    with open(os.path.join(MIGRATIONS, "CHECKSUMS"), encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def schema_after(target):
    return dump(migrate(connect(), target=target))


class MigrationFileTest(unittest.TestCase):
    def test_exactly_one_new_migration_with_the_skill_name(self):
        self.assertEqual(migration_files(), sorted(DEPLOYED) + [NEW_FILE])
        stray = sorted(n for n in os.listdir(MIGRATIONS) if n.endswith(".sql") and n not in DEPLOYED and n != NEW_FILE)
        self.assertEqual(stray, [])

    def test_layout(self):
        text = read(NEW_FILE)
        self.assertEqual(text.splitlines()[0], "-- migration: 0004_add_products_is_discontinued")
        up, down = sections(text)
        self.assertTrue(up.strip() and down.strip())
        self.assertNotRegex(up + down, re.compile(r"\b(BEGIN|COMMIT|PRAGMA|VACUUM)\b", re.I))

    def test_deployed_migrations_are_untouched(self):
        for name, sha in DEPLOYED_FILE_SHA256.items():
            with self.subTest(name=name):
                self.assertEqual(hashlib.sha256(read(name).encode("utf-8")).hexdigest(), sha)


class ChecksumsTest(unittest.TestCase):
    def test_existing_lines_kept_and_new_line_appended(self):
        lines = checksum_lines()
        self.assertEqual(lines[:3], ["%s  %s" % (n, DEPLOYED[n]) for n in sorted(DEPLOYED)])
        self.assertEqual(len(lines), 4, lines)
        self.assertRegex(lines[3], r"^0004_add_products_is_discontinued\.sql  [0-9a-f]{64}$")

    def test_new_checksum_covers_the_normalised_up_section(self):
        text = read(NEW_FILE)
        recorded = checksum_lines()[3].split()[1]
        self.assertNotEqual(recorded, hashlib.sha256(text.encode("utf-8")).hexdigest(), "that is sha256sum of the file")
        self.assertEqual(recorded, skill_checksum(text))


class SchemaTest(unittest.TestCase):
    def test_flag_column_follows_the_naming_and_type_rules(self):
        conn = migrate(connect())
        cols = {row[1]: row for row in conn.execute("PRAGMA table_info(products)")}
        self.assertEqual(sorted(cols), ["is_discontinued", "name", "price_cents", "sku"])
        _, _, ctype, notnull, default, pk = cols["is_discontinued"]
        self.assertEqual((ctype.upper(), notnull, str(default), pk), ("INTEGER", 1, "0", 0))
        for table in ("stock_levels", "schema_migrations"):
            self.assertEqual(
                [r[1] for r in conn.execute("PRAGMA table_info(%s)" % table)],
                [r[1] for r in migrate(connect(), target=3).execute("PRAGMA table_info(%s)" % table)],
            )

    def test_flag_only_takes_0_or_1(self):
        conn = migrate(connect())
        add_product(conn, "A-100", "Anchor", 240)
        conn.execute("UPDATE products SET is_discontinued = 1")
        conn.execute("UPDATE products SET is_discontinued = 0")
        for bad in (2, -1, "yes"):
            with self.subTest(value=bad):
                with self.assertRaises(sqlite3.IntegrityError):
                    conn.execute("UPDATE products SET is_discontinued = ?", (bad,))

    def test_existing_rows_stay_on_sale(self):
        conn = migrate(connect(), target=3)
        add_product(conn, "A-100", "Anchor", 240)
        migrate(conn)
        self.assertEqual(list_active(conn), ["A-100"])
        self.assertEqual(conn.execute("SELECT is_discontinued FROM products").fetchone()[0], 0)

    def test_down_restores_the_previous_schema_exactly(self):
        conn = migrate(connect())
        _, down = sections(read(NEW_FILE))
        conn.executescript("BEGIN;\n" + down + "\nCOMMIT;")
        conn.execute("DELETE FROM schema_migrations WHERE version = 4")
        conn.commit()
        self.assertEqual(dump(conn), schema_after(3))
        # And up again, as the deploy gate does.
        migrate(conn)
        self.assertEqual(dump(conn), schema_after(None))

    def test_schema_snapshot_is_regenerated(self):
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "stockroom.dump_schema"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(os.path.join(ROOT, "schema.sql"), encoding="utf-8") as f:
            self.assertEqual(f.read(), proc.stdout)
        self.assertIn("is_discontinued", proc.stdout)


class BehaviourTest(unittest.TestCase):
    def setUp(self):
        self.conn = migrate(connect())
        for i in range(12):
            add_product(self.conn, "P-%03d" % i, "Part %d" % i, i * 10)

    def test_discontinue_and_list_active(self):
        gone = {"P-000", "P-003", "P-007", "P-011"}
        for sku in sorted(gone):
            discontinue(self.conn, sku)
        discontinue(self.conn, "P-003")
        self.assertEqual(list_active(self.conn), ["P-%03d" % i for i in range(12) if "P-%03d" % i not in gone])
        self.assertEqual(get_product(self.conn, "P-007")["name"], "Part 7")
        flags = dict(self.conn.execute("SELECT sku, is_discontinued FROM products"))
        self.assertEqual({s for s, f in flags.items() if f == 1}, gone)
        # Committed: another connection on the same file would see it.
        self.assertFalse(self.conn.in_transaction)

    def test_unknown_sku_raises_and_changes_nothing(self):
        with self.assertRaises(KeyError):
            discontinue(self.conn, "Z-999")
        self.assertEqual(len(list_active(self.conn)), 12)


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
