"""Type sanity of the generated module: every annotation resolves, every operation has a method,
and the TypedDicts' required keys are the schemas' (run-time checks; mypy checks callers)."""

import inspect
import typing
import unittest

import ozan
from ozan import _generated as g
from ozan.paging import PageIterator

NAMESPACE = {**vars(g), "PageIterator": PageIterator}


class GeneratedTest(unittest.TestCase):
    def test_every_typeddict_annotation_resolves(self) -> None:
        dicts = [v for v in vars(g).values() if isinstance(v, type) and typing.is_typeddict(v)]
        self.assertGreater(len(dicts), 100)
        for td in dicts:
            typing.get_type_hints(td, globalns=NAMESPACE)

    def test_every_operation_is_a_method_with_resolvable_hints(self) -> None:
        self.assertGreater(len(g.OPERATIONS), 100)
        for op_id in g.OPERATIONS:
            method = getattr(ozan.Client, op_id)
            self.assertIs(method, getattr(g.Operations, op_id), "Client must not shadow %s" % op_id)
            typing.get_type_hints(method, globalns=NAMESPACE)
        for name, fn in vars(g.Operations).items():
            if name.startswith("iter_"):
                self.assertIn(name[5:], g.OPERATIONS)
                self.assertEqual(list(inspect.signature(fn).parameters)[-2:], ["page_size", "offset"])

    def test_required_and_optional_keys_follow_the_schema(self) -> None:
        self.assertEqual(g.CallCreate.__required_keys__, frozenset({"channel"}))
        self.assertIn("from", g.CallCreate.__optional_keys__)
        self.assertEqual(g.ErrorResponse.__required_keys__, frozenset({"error"}))

    def test_only_post_calls_needs_an_opt_in_to_retry(self) -> None:
        opted = [n for n in g.OPERATIONS if "retry" in inspect.signature(getattr(g.Operations, n)).parameters]
        self.assertEqual(opted, ["calls_create"])
        self.assertEqual(g.OPERATIONS["calls_create"], ("POST", "/api/v1/calls"))


if __name__ == "__main__":
    unittest.main()
