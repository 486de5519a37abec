import unittest

import ozan
import ozan_webhooks


class WebhookExportTest(unittest.TestCase):
    def test_the_package_re_exports_the_single_file_verifier(self) -> None:
        self.assertIs(ozan.verify_webhook, ozan_webhooks.verify_webhook)
        self.assertIs(ozan.WebhookVerificationError, ozan_webhooks.WebhookVerificationError)
        body = b'{"event":"session.completed","data":{"session_uuid":"s1"}}'
        header = ozan.sign_payload(body, "whsec_test", 1_700_000_000)
        self.assertEqual(ozan.verify_webhook(body, header, "whsec_test", now=1_700_000_010)["data"], {"session_uuid": "s1"})
        with self.assertRaises(ozan.WebhookVerificationError) as caught:
            ozan.verify_webhook(body + b" ", header, "whsec_test", now=1_700_000_010)
        self.assertEqual(caught.exception.code, "no_matching_signature")


if __name__ == "__main__":
    unittest.main()
