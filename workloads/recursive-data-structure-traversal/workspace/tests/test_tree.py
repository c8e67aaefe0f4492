import unittest

from tree import Node, shortest_chain


class ChainTest(unittest.TestCase):
    def test_direct_child(self):
        root = Node("ceo", [Node("cto"), Node("cfo")])
        self.assertEqual(shortest_chain(root, "cfo"), ["ceo", "cfo"])

    def test_missing(self):
        self.assertIsNone(shortest_chain(Node("ceo", [Node("cto")]), "coo"))


if __name__ == "__main__":
    unittest.main()
