import os
import unittest

from prefs import Prefs, dumps, loads

SAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "samples")


def sample(name):
    with open(os.path.join(SAMPLES, name), encoding="utf-8") as f:
        return f.read()


class PrefsTest(unittest.TestCase):
    def test_defaults(self):
        self.assertEqual(loads(dumps(Prefs())), Prefs())

    def test_round_trip_keeps_the_timezone(self):
        p = Prefs(theme="dark", font_size=14, recent=["a.txt"], timezone="Europe/Paris")
        self.assertEqual(loads(dumps(p)), p)

    def test_a_release_1_3_file_loads_with_utc(self):
        p = loads(sample("prefs-1.3.json"))
        self.assertEqual((p.theme, p.font_size, p.recent), ("dark", 13, ["notes.md", "todo.txt"]))
        self.assertEqual(p.timezone, "UTC")


if __name__ == "__main__":
    unittest.main()
