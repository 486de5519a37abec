<?php
/**
 * Verifies Ozan webhook deliveries (docs/webhook-verification.md). PHP 7.3+, standard library only:
 * hash_hmac to sign, hash_equals to compare in constant time. Copy this file into your project.
 */

declare(strict_types=1);

/** A delivery failed the check; the message is the code the Node and Python libraries use. */
final class OzanWebhookError extends RuntimeException
{
}

const OZAN_WEBHOOK_TOLERANCE_S = 300;

/**
 * Checks one delivery and returns its body decoded as objects ($event->event, $event->data), so a
 * `data` of {} stays distinguishable from []. Throws OzanWebhookError on a failed check.
 *
 * @param string   $rawBody the bytes as received: file_get_contents('php://input')
 * @param string[] $secrets every secret you accept (two while you roll your own configuration over)
 * @param int|null $now     unix seconds; the clock when null
 */
function ozan_verify_webhook(
    string $rawBody,
    ?string $header,
    array $secrets,
    int $toleranceS = OZAN_WEBHOOK_TOLERANCE_S,
    ?int $now = null
): stdClass {
    if ($secrets === [] || in_array('', $secrets, true)) {
        // An empty key would let anyone sign: a setup mistake, not a bad delivery.
        throw new InvalidArgumentException('missing webhook secret');
    }
    if ($toleranceS < 0) {
        throw new InvalidArgumentException('tolerance must not be negative');
    }
    if ($header === null || trim($header, " \t") === '') {
        throw new OzanWebhookError('missing_header');
    }
    $timestamp = null;
    $signatures = [];
    foreach (explode(',', $header) as $part) {
        $pair = explode('=', trim($part, " \t"), 2);
        if (count($pair) !== 2 || $pair[0] === '' || $pair[1] === '') {
            throw new OzanWebhookError('malformed_header');
        }
        [$key, $value] = $pair;
        if ($key === 't') {
            if ($timestamp !== null || !preg_match('/^[0-9]+$/D', $value)) {
                throw new OzanWebhookError('malformed_header');
            }
            $timestamp = $value;
        } elseif ($key === 'v1') {
            // Upper-case hex is the same signature; anything else simply never matches.
            $signatures[] = strtolower($value);
        } // other schemes (v0=...) are ignored: future schemes are added next to v1
    }
    if ($timestamp === null || $signatures === []) {
        throw new OzanWebhookError('malformed_header');
    }

    // Signature first, so the timestamp checked below is one Ozan signed.
    $matched = false;
    foreach ($secrets as $secret) {
        $expected = hash_hmac('sha256', $timestamp . '.' . $rawBody, (string) $secret);
        foreach ($signatures as $signature) {
            // No early exit: every entry is compared, so timing says nothing about which matched.
            $matched = hash_equals($expected, $signature) || $matched;
        }
    }
    if (!$matched) {
        throw new OzanWebhookError('no_matching_signature');
    }

    // All digits, so the only failure is an overflow, which saturates and reads as "in the future".
    $t = (int) $timestamp;
    $now = $now ?? time();
    if ($t < $now - $toleranceS) {
        throw new OzanWebhookError('timestamp_too_old');
    }
    if ($t > $now + $toleranceS) {
        throw new OzanWebhookError('timestamp_in_future');
    }

    try {
        // json_decode rejects invalid UTF-8 itself (JSON_ERROR_UTF8). Decoding to objects also refuses
        // a key starting with "\0", which PHP cannot hold as a property: no Ozan event has one.
        $event = json_decode($rawBody, false, 512, JSON_THROW_ON_ERROR);
    } catch (JsonException $e) {
        throw new OzanWebhookError('malformed_body');
    }
    if (!($event instanceof stdClass) || !is_string($event->event ?? null) || !(($event->data ?? null) instanceof stdClass)) {
        throw new OzanWebhookError('malformed_body');
    }
    return $event;
}
