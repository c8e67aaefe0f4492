"""Runs the tests under tests/ (or the test ids given as arguments) and prints the results.

The output has no timings and no absolute paths, so the same code always prints the same text.
Exit status: 0 when every test passed, 1 otherwise.
"""
import io
import os
import re
import sys
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)


def _relative(text):
    for root in {ROOT, os.path.realpath(ROOT)}:
        text = text.replace(root + os.sep, "")
    return text


def main(argv):
    loader = unittest.TestLoader()
    if argv:
        suite = loader.loadTestsFromNames(argv)
    else:
        suite = loader.discover(os.path.join(ROOT, "tests"), top_level_dir=ROOT)
    stream = io.StringIO()
    result = unittest.TextTestRunner(stream=stream, verbosity=2).run(suite)
    text = re.sub(r"^(Ran \d+ tests?) in [0-9.]+s$", r"\1", stream.getvalue(), flags=re.M)
    sys.stdout.write(_relative(text))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
