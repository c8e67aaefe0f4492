"""Hidden check for regex-with-edge-cases: is_nanp follows every rule of SPEC.md.

The sixteen cases below each pin one rule; the grids then vary one part of a number at a time, so a
regex tuned to the sixteen strings cannot pass. Copied to <workspace>/.bench-check/ after the last
turn; run from the workspace root.
"""
import inspect
import os
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

from phone import is_nanp  # noqa: E402

VALID = [
    "2025550143",
    "202-555-0143",
    "202.555.0143",
    "202 555 0143",
    "(202) 555-0143",
    "(202)555.0143",
    "+1 202-555-0143",
    "1 (202) 555 0143",
]
INVALID = [
    "102-555-0143",  # area code starts with 1
    "202-055-0143",  # exchange starts with 0
    "(202 555-0143",  # unbalanced parenthesis
    "202-555.0143",  # different separators around the exchange
    "+2 202 555 0143",  # not the NANP country code
    "202-555-0143\n",  # a trailing newline is something after the number
    "\uff12\uff10\uff12-\uff15\uff15\uff15-\uff10\uff11\uff14\uff13",  # full-width digits
    "(202)-555-0143",  # only a space or nothing may follow (NXX)
]
SEPARATORS = ["", "-", ".", " "]
PREFIXES = ["", "1", "+1"] + [cc + sep for cc in ("1", "+1") for sep in "-. "]


class SixteenCasesTest(unittest.TestCase):
    def test_valid_numbers_are_accepted(self):
        for s in VALID:
            with self.subTest(s=s):
                self.assertIs(is_nanp(s), True)

    def test_invalid_numbers_are_rejected(self):
        for s in INVALID:
            with self.subTest(s=s):
                self.assertIs(is_nanp(s), False)


class RulesTest(unittest.TestCase):
    def test_area_code_and_exchange_start_with_2_to_9(self):
        for a in "0123456789":
            for e in "0123456789":
                for template in ("%s02-%s55-0143", "(%s02) %s55-0143"):
                    s = template % (a, e)
                    with self.subTest(s=s):
                        self.assertIs(is_nanp(s), a >= "2" and e >= "2")

    def test_bare_area_code_needs_the_same_separator_twice(self):
        for first in SEPARATORS + ["--", "_", "/", "  "]:
            for second in SEPARATORS + ["--", "_", "/", "  "]:
                s = "202%s555%s0143" % (first, second)
                with self.subTest(s=s):
                    self.assertIs(is_nanp(s), first == second and first in SEPARATORS)

    def test_after_parentheses_a_space_or_nothing(self):
        for after in SEPARATORS + ["  "]:
            for second in SEPARATORS + ["--"]:
                s = "(202)%s555%s0143" % (after, second)
                with self.subTest(s=s):
                    self.assertIs(is_nanp(s), after in ("", " ") and second in SEPARATORS)

    def test_country_code_prefixes(self):
        for prefix in PREFIXES + ["+", "11", "+11", "01", "2", "+2", "+ 1", "1--", "-1", " "]:
            for number in ("202-555-0143", "(202) 555-0143", "2025550143"):
                s = prefix + number
                with self.subTest(s=s):
                    self.assertIs(is_nanp(s), prefix in PREFIXES)

    def test_parentheses_must_be_balanced_and_single(self):
        for s in ("(202 555-0143", "202) 555-0143", "((202)) 555-0143", "(202) (555) 0143", "()202 555 0143", "(20)2 555 0143"):
            with self.subTest(s=s):
                self.assertIs(is_nanp(s), False)

    def test_group_lengths_are_exact(self):
        for s in ("20-555-0143", "2022-555-0143", "202-55-0143", "202-5555-0143", "202-555-014", "202-555-01433", "202555014", "20255501433"):
            with self.subTest(s=s):
                self.assertIs(is_nanp(s), False)

    def test_nothing_before_or_after(self):
        for s in (" 2025550143", "2025550143 ", "2025550143\n", "\n2025550143", "tel:2025550143", "202-555-0143 ext 1", ""):
            with self.subTest(s=repr(s)):
                self.assertIs(is_nanp(s), False)

    def test_only_ascii_digits(self):
        arabic_indic = "".join(chr(0x0660 + int(d)) for d in "2025550143")
        for s in (arabic_indic, "202-555-\uff10\uff11\uff14\uff13", "\uff12025550143"):
            with self.subTest(s=s):
                self.assertIs(is_nanp(s), False)


class ContractTest(unittest.TestCase):
    def test_signature_is_unchanged(self):
        self.assertEqual(list(inspect.signature(is_nanp).parameters), ["s"])


class VisibleSuiteTest(unittest.TestCase):
    def test_workspace_tests_pass(self):
        # The agent may add tests; they must pass too.
        proc = subprocess.run(
            [sys.executable, "-B", "-m", "unittest", "discover", "-s", "tests", "-t", "."],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
        )
        self.assertEqual(proc.returncode, 0, proc.stdout)


if __name__ == "__main__":
    unittest.main()
