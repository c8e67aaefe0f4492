"""Hidden check for prefs-format-backward-compat: Prefs gains a timezone without breaking any file on
disk or any reader users still run.

Properties over random preferences (odd names, commas, non-ASCII, empty lists): dumps/loads round-trips;
what dumps writes loads in release 1.4's reader (copied here, so editing the workspace copy cannot
help); files written by release 1.x (format 1) and by releases before 1.0 (format 0) load with their
values and timezone UTC; Prefs built without a timezone still works. Copied to
<workspace>/.bench-check/ after the last turn; run from the workspace root.
"""
import inspect
import json
import os
import random
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.dont_write_bytecode = True

import prefs  # noqa: E402
from prefs import Prefs, dumps, loads  # noqa: E402


def release_1_4_load(text):
    """Release 1.4's reader, as users have it installed."""
    data = json.loads(text)
    if data.get("version") != 1:
        raise ValueError("these prefs were written by a newer release; please upgrade")
    return {"theme": data["theme"], "font_size": data["font_size"], "recent": list(data["recent"])}


def write_format_1(theme, font_size, recent):
    return json.dumps({"version": 1, "theme": theme, "font_size": font_size, "recent": recent}, sort_keys=True)


def write_format_0(theme, font_size, recent):
    return json.dumps({"theme": theme, "font_size": str(font_size), "recent": ",".join(recent)})


ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"]


def name(rng, commas=True):
    alphabet = "abcxyz .-_éß日本" + ("," if commas else "")
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12))).strip(",") or "f"


def random_prefs(rng):
    return dict(theme=rng.choice(["light", "dark", "solarized", name(rng)]), font_size=rng.randint(6, 72), recent=[name(rng) for _ in range(rng.randint(0, 5))])


class PrefsFormatPropertyTest(unittest.TestCase):
    def test_round_trip(self):
        rng = random.Random(1)
        for _ in range(1500):
            p = Prefs(**random_prefs(rng), timezone=rng.choice(ZONES))
            self.assertEqual(loads(dumps(p)), p)

    def test_what_we_write_loads_in_release_1_4(self):
        rng = random.Random(2)
        for _ in range(1500):
            fields = random_prefs(rng)
            text = dumps(Prefs(**fields, timezone=rng.choice(ZONES)))
            self.assertEqual(release_1_4_load(text), fields, text)

    def test_format_1_files_load_with_utc(self):
        rng = random.Random(3)
        for _ in range(1500):
            fields = random_prefs(rng)
            self.assertEqual(loads(write_format_1(**fields)), Prefs(**fields, timezone="UTC"))

    def test_format_0_files_load_with_utc(self):
        rng = random.Random(4)
        for _ in range(1500):
            fields = random_prefs(rng)
            fields["recent"] = [name(rng, commas=False) for _ in range(rng.randint(0, 5))]
            self.assertEqual(loads(write_format_0(**fields)), Prefs(**fields, timezone="UTC"))

    def test_callers_without_a_timezone_keep_working(self):
        self.assertEqual(Prefs("dark", 14, ["a"]).timezone, "UTC")
        self.assertEqual(Prefs().timezone, "UTC")
        self.assertEqual(list(inspect.signature(Prefs).parameters)[:3], ["theme", "font_size", "recent"])

    def test_unknown_versions_are_still_refused(self):
        with self.assertRaises(ValueError):
            loads(json.dumps({"version": 99, "theme": "x", "font_size": 1, "recent": []}))


class ContractTest(unittest.TestCase):
    def test_the_shipped_samples_still_load(self):
        for sample, fields in [("prefs-1.3.json", ("dark", 13, ["notes.md", "todo.txt"])), ("prefs-0.9.json", ("solarized", 11, ["draft.txt", "old report.doc"]))]:
            with open(os.path.join(ROOT, "samples", sample), encoding="utf-8") as f:
                p = loads(f.read())
            self.assertEqual((p.theme, p.font_size, p.recent, p.timezone), (*fields, "UTC"), sample)

    def test_dumps_and_loads_keep_their_signatures(self):
        self.assertEqual(list(inspect.signature(prefs.dumps).parameters), ["prefs"])
        self.assertEqual(list(inspect.signature(prefs.loads).parameters), ["text"])

    def test_the_workspace_suite_passes(self):
        r = subprocess.run([sys.executable, "-B", "run_tests.py"], cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])


if __name__ == "__main__":
    unittest.main()
