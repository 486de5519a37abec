import unittest
from email.utils import formatdate

from ozan.retry import RetryPolicy, is_retryable_status, parse_retry_after


class RetryRulesTest(unittest.TestCase):
    def test_only_429_and_5xx_are_retryable(self) -> None:
        self.assertTrue(all(is_retryable_status(s) for s in (429, 500, 502, 503, 504, 599)))
        self.assertFalse(any(is_retryable_status(s) for s in (200, 204, 400, 401, 402, 403, 404, 409, 413, 422, 428, 600)))

    def test_retry_after_seconds_and_http_date(self) -> None:
        self.assertEqual(parse_retry_after("7"), 7.0)
        self.assertEqual(parse_retry_after(" 0 "), 0.0)
        self.assertAlmostEqual(parse_retry_after(formatdate(1_000_030, usegmt=True), now=1_000_000) or -1, 30.0)
        self.assertEqual(parse_retry_after(formatdate(999_000, usegmt=True), now=1_000_000), 0.0)
        for bad in (None, "", "-1", "1.5", "soon", "²", "Mon, 99 Foo 2020"):
            self.assertIsNone(parse_retry_after(bad), bad)

    def test_backoff_doubles_with_equal_jitter_up_to_the_cap(self) -> None:
        p = RetryPolicy(max_retries=6, initial_delay=0.5, max_delay=4.0)
        self.assertEqual([p.delay(n, rand=lambda: 0.0) for n in range(5)], [0.25, 0.5, 1.0, 2.0, 2.0])
        self.assertEqual([p.delay(n, rand=lambda: 1.0) for n in range(5)], [0.5, 1.0, 2.0, 4.0, 4.0])
        self.assertIsNone(p.delay(6), "no retry past max_retries")
        self.assertIsNone(RetryPolicy(max_retries=0).delay(0))

    def test_retry_after_is_a_floor_and_too_long_a_wait_is_not_retried(self) -> None:
        p = RetryPolicy(initial_delay=0.5, max_retry_after=60)
        self.assertEqual(p.delay(0, retry_after=3, rand=lambda: 1.0), 3)
        self.assertEqual(p.delay(0, retry_after=0, rand=lambda: 1.0), 0.5)
        self.assertEqual(p.delay(0, retry_after=60, rand=lambda: 0.0), 60)
        self.assertIsNone(p.delay(0, retry_after=61))

    def test_bad_policies_are_refused(self) -> None:
        for kwargs in ({"max_retries": -1}, {"max_retries": 21}, {"initial_delay": -1}, {"initial_delay": 2, "max_delay": 1}, {"max_retry_after": -1}):
            with self.assertRaises(ValueError, msg=str(kwargs)):
                RetryPolicy(**kwargs)


if __name__ == "__main__":
    unittest.main()
