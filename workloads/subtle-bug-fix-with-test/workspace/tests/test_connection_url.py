import unittest

from config import connection_url, load_config


class ReportedCrashTest(unittest.TestCase):
    def test_config_file_setting_only_the_db_pool(self):
        # Reported by users: `KeyError: 'name'` from connection_url when the file sets only db: {pool: 10}.
        cfg = load_config({"db": {"pool": 10}}, {})
        self.assertEqual(connection_url(cfg), "sqlite:///app.db?pool=10&timeout=30")


if __name__ == "__main__":
    unittest.main()
