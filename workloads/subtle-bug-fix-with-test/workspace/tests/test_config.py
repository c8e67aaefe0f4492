import unittest

from config import connection_url, load_config


class ConfigTest(unittest.TestCase):
    def test_defaults_only(self):
        self.assertEqual(connection_url(load_config({}, {})), "sqlite:///app.db?pool=5&timeout=30")

    def test_file_overrides_top_level(self):
        self.assertEqual(load_config({"port": 9000}, {})["port"], 9000)

    def test_env_overrides_file(self):
        self.assertEqual(load_config({"host": "a"}, {"APP_HOST": "b"})["host"], "b")


if __name__ == "__main__":
    unittest.main()
