"""Walking a paged list page by page.

The API pages its lists two ways. Calls and webhook deliveries answer ``Page_X_`` bodies
(``items``, ``total``, ``limit``, ``offset``); the other lists answer a plain array and give the
total in ``X-Total-Count`` (and the next page in ``Link``). Both take ``limit`` and ``offset``, so
one iterator walks either: it asks for the next offset until a page comes back empty or the total
is reached.
"""

from dataclasses import dataclass
from typing import Callable, Generic, Iterator, List, Optional, Tuple, TypeVar

__all__ = ["Page", "PageIterator"]

T = TypeVar("T")

#: Fetches the page at an offset: (offset, limit or None) → (its items, the list's total or None).
FetchPage = Callable[[int, Optional[int]], Tuple[List[T], Optional[int]]]


@dataclass(frozen=True)
class Page(Generic[T]):
    items: List[T]
    #: Every row the list's filters match, across all pages (None if the server did not say).
    total: Optional[int]
    offset: int


class PageIterator(Generic[T]):
    """Iterates the rows of a paged list; ``pages()`` gives whole pages, ``total`` the row count.

    Nothing is fetched until iteration starts. Rows added or removed while iterating can shift
    the offsets, as with any offset paging: a row may then be seen twice or not at all.
    """

    def __init__(self, fetch: "FetchPage[T]", offset: int = 0, page_size: Optional[int] = None) -> None:
        if offset < 0:
            raise ValueError("offset must be >= 0")
        if page_size is not None and page_size < 1:
            raise ValueError("page_size must be >= 1")
        self._fetch = fetch
        self._offset = offset
        self._page_size = page_size
        self.total: Optional[int] = None

    def pages(self) -> Iterator[Page[T]]:
        offset = self._offset
        while True:
            items, total = self._fetch(offset, self._page_size)
            if total is not None:
                self.total = total
            if not items:
                return
            yield Page(items=items, total=total, offset=offset)
            offset += len(items)
            if total is not None and offset >= total:
                return

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            yield from page.items

    def to_list(self, max_items: int = 100_000) -> List[T]:
        """Every row, in memory; raises ValueError rather than hold more than ``max_items``."""
        out: List[T] = []
        for item in self:
            if len(out) >= max_items:
                raise ValueError("the list has more than %d rows; iterate it instead" % max_items)
            out.append(item)
        return out
