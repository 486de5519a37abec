import unittest
from typing import Any, Callable, Dict, List, Optional, Tuple

from ozan import Client, PageIterator

from .stub_server import StubServer, reply

UUID = "5f0c6a52-6f1e-4c1a-9a55-0a3c1c8c1d01"


class PageIteratorTest(unittest.TestCase):
    def rows(self, n: int, total: Optional[int]) -> Tuple[Callable[[int, Optional[int]], Tuple[List[int], Optional[int]]], List[Tuple[int, Optional[int]]]]:
        calls: List[Tuple[int, Optional[int]]] = []

        def fetch(offset: int, limit: Optional[int]) -> Tuple[List[int], Optional[int]]:
            calls.append((offset, limit))
            return list(range(offset, min(n, offset + (limit or 2)))), total

        return fetch, calls

    def test_walks_to_the_total_without_an_extra_request(self) -> None:
        fetch, calls = self.rows(5, 5)
        it = PageIterator(fetch, page_size=2)
        self.assertEqual(list(it), [0, 1, 2, 3, 4])
        self.assertEqual((calls, it.total), ([(0, 2), (2, 2), (4, 2)], 5))

    def test_without_a_total_it_stops_at_an_empty_page(self) -> None:
        fetch, calls = self.rows(3, None)
        self.assertEqual([p.items for p in PageIterator(fetch, offset=1).pages()], [[1, 2]])
        self.assertEqual(calls, [(1, None), (3, None)])

    def test_nothing_is_fetched_before_iterating_and_to_list_is_bounded(self) -> None:
        fetch, calls = self.rows(10, 10)
        it = PageIterator(fetch)
        self.assertEqual(calls, [])
        with self.assertRaises(ValueError):
            it.to_list(max_items=3)
        for bad in ({"offset": -1}, {"page_size": 0}):
            with self.assertRaises(ValueError):
                PageIterator(fetch, **bad)


class ClientPagingTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = StubServer()
        self.addCleanup(self.stub.close)
        self.client = Client(self.stub.url, api_key="k", sleep=lambda s: None)

    def test_page_bodies(self) -> None:
        def page(items: List[Dict[str, Any]], offset: int) -> Any:
            return reply(200, {"items": items, "total": 3, "limit": 2, "offset": offset})

        self.stub.script = [page([{"call_uuid": "a"}, {"call_uuid": "b"}], 0), page([{"call_uuid": "c"}], 2)]
        calls = list(self.client.iter_calls_list(channel="chat", page_size=2))
        self.assertEqual([c["call_uuid"] for c in calls], ["a", "b", "c"])
        self.assertEqual([r["path"] for r in self.stub.requests], ["/api/v1/calls?channel=chat&offset=0&limit=2", "/api/v1/calls?channel=chat&offset=2&limit=2"])

    def test_arrays_with_x_total_count(self) -> None:
        self.stub.script = [reply(200, [{"id": 1}], {"X-Total-Count": "2"}), reply(200, [{"id": 2}], {"X-Total-Count": "2"})]
        it = self.client.iter_sessions_events(UUID, UUID, page_size=1)
        self.assertEqual([e["id"] for e in it], [1, 2])  # type: ignore[typeddict-item]
        self.assertEqual(it.total, 2)
        self.assertEqual(self.stub.requests[1]["path"], "/api/v1/workflows/%s/sessions/%s/events?offset=1&limit=1" % (UUID, UUID))


if __name__ == "__main__":
    unittest.main()
