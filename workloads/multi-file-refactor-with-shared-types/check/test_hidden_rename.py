"""Hidden check for multi-file-refactor-with-shared-types: the dataclass Entry is now Posting in every
file of ledger/, with no alias left behind, EntryKind (which only shares the prefix) keeps its name,
every annotation still resolves, and behaviour is unchanged.

Copied to <workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import dataclasses
import importlib
import inspect
import os
import re
import subprocess
import sys
import typing
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True
MODULES = ["ledger", "ledger.balance", "ledger.export", "ledger.journal", "ledger.models", "ledger.parse", "ledger.report"]
OLD_NAME = re.compile(r"\bEntry\b")


def _python_files():
    for folder in ("ledger", "tests"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(dirpath, name)


def _functions(module):
    """Every function and method defined in the module, by qualified name."""
    for name, obj in sorted(vars(module).items()):
        if inspect.isfunction(obj) and obj.__module__ == module.__name__:
            yield name, obj
        elif inspect.isclass(obj) and obj.__module__ == module.__name__:
            for attr, member in sorted(vars(obj).items()):
                if inspect.isfunction(member):
                    yield "%s.%s" % (name, attr), member


class RenamedTest(unittest.TestCase):
    def test_posting_is_the_same_frozen_dataclass(self):
        from ledger import models

        posting = getattr(models, "Posting", None)
        self.assertTrue(inspect.isclass(posting), "ledger.models.Posting missing")
        self.assertTrue(dataclasses.is_dataclass(posting))
        fields = dataclasses.fields(posting)
        self.assertEqual([f.name for f in fields], ["account", "amount_cents", "kind", "memo"])
        self.assertEqual(fields[3].default, "")
        self.assertTrue(posting.__dataclass_params__.frozen)

    def test_exported_from_the_package(self):
        import ledger
        from ledger import models

        self.assertIs(getattr(ledger, "Posting", None), models.Posting)
        self.assertIn("Posting", ledger.__all__)
        namespace = {}
        exec("from ledger import *", namespace)  # fails on any name in __all__ that no longer exists
        self.assertIs(namespace["Posting"], models.Posting)

    def test_no_alias_for_the_old_name(self):
        import ledger

        for name in MODULES:
            module = importlib.import_module(name)
            self.assertFalse(hasattr(module, "Entry"), "%s still has an Entry attribute" % name)
        self.assertNotIn("Entry", ledger.__all__)

    def test_no_source_file_mentions_the_old_name(self):
        leftovers = []
        for path in _python_files():
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if OLD_NAME.search(line):
                        leftovers.append("%s:%d" % (os.path.relpath(path, ROOT), number))
        self.assertEqual(leftovers, [])

    def test_every_annotation_resolves(self):
        broken = []
        for name in MODULES:
            module = importlib.import_module(name)
            for qualname, function in _functions(module):
                try:
                    typing.get_type_hints(function)
                except Exception as e:  # a quoted annotation naming a class that is gone
                    broken.append("%s.%s: %s" % (name, qualname, e))
        self.assertEqual(broken, [])

    def test_annotations_name_posting(self):
        from ledger import export, journal, parse, report
        from ledger.models import Posting

        self.assertIs(typing.get_type_hints(parse.parse_line)["return"], Posting)
        self.assertIs(typing.get_type_hints(journal.Journal.post)["entry"], Posting)
        self.assertIs(typing.get_type_hints(export.from_csv_row)["return"], Posting)
        self.assertIs(typing.get_type_hints(report.largest)["return"], Posting)
        self.assertEqual(typing.get_type_hints(report.render_balances)["entries"], typing.List[Posting])


class DecoyTest(unittest.TestCase):
    def test_entry_kind_keeps_its_name(self):
        import ledger
        from ledger import models

        self.assertTrue(inspect.isclass(getattr(models, "EntryKind", None)), "EntryKind was renamed")
        self.assertIs(ledger.EntryKind, models.EntryKind)
        self.assertIn("EntryKind", ledger.__all__)
        self.assertEqual([k.value for k in models.EntryKind], ["debit", "credit"])

    def test_no_posting_kind_anywhere(self):
        hits = []
        for path in _python_files():
            with open(path, encoding="utf-8") as f:
                if "PostingKind" in f.read():
                    hits.append(os.path.relpath(path, ROOT))
        self.assertEqual(hits, [])


class BehaviourTest(unittest.TestCase):
    LINES = ["debit cash 100", "credit sales 100", "debit cash 25.50", "credit sales 20", 'credit fees 5.50 card fee, "gold"']

    def test_parse_journal_and_report(self):
        from ledger import Journal, balances, largest, parse_line, render_balances, turnover
        from ledger.models import EntryKind, Posting

        journal = Journal()
        for line in self.LINES:
            journal.post(parse_line(line))
        entries = list(journal)
        self.assertTrue(all(type(e) is Posting for e in entries))
        self.assertEqual(entries[0], Posting("cash", 10000, EntryKind.DEBIT))
        self.assertEqual(balances(entries), {"cash": 12550, "fees": -550, "sales": -12000})
        self.assertEqual(turnover(entries, EntryKind.CREDIT), 12550)
        self.assertIs(largest(entries), entries[0])
        self.assertEqual(render_balances(entries), "cash             125.50\nfees              -5.50\nsales           -120.00\ntotal              0.00\n")
        with self.assertRaises(dataclasses.FrozenInstanceError):
            entries[0].memo = "changed"

    def test_type_checks_still_reject_other_objects(self):
        from ledger import Journal, to_csv_row

        with self.assertRaises(TypeError):
            Journal().post(("cash", 1000))
        with self.assertRaises(TypeError):
            to_csv_row(("cash", 1000))

    def test_csv_round_trip(self):
        from ledger import from_csv_row, parse_line, to_csv_row

        for line in self.LINES:
            entry = parse_line(line)
            row = to_csv_row(entry)
            self.assertEqual(from_csv_row(row), entry)
        self.assertEqual(to_csv_row(parse_line(self.LINES[-1])), 'fees,550,credit,"card fee, ""gold"""')


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
