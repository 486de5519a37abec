<?php
/**
 * Test harness for OzanWebhook.php: one JSON request per stdin line, one JSON outcome per stdout line.
 *
 * Input:  {"body_b64": str, "header": str|null, "secret": str|[str], "tolerance_s"?: int, "now"?: int}
 * Output: {"ok": true, "event": {...}} or {"ok": false, "code": "<OzanWebhookError code>"}
 *
 * A rejected delivery is a normal outcome; a line this script cannot read exits 2 with a message on
 * stderr, so a broken harness is not mistaken for a rejected delivery.
 */

declare(strict_types=1);

require __DIR__ . '/OzanWebhook.php';

function ozan_cli_fail(string $why): void
{
    fwrite(STDERR, "verify-cli.php: $why\n");
    exit(2);
}

while (($line = fgets(STDIN)) !== false) {
    if (trim($line) === '') {
        continue;
    }
    try {
        $request = json_decode($line, true, 512, JSON_THROW_ON_ERROR);
    } catch (JsonException $e) {
        ozan_cli_fail('unreadable input: ' . $e->getMessage());
    }
    $body = is_array($request) && is_string($request['body_b64'] ?? null) ? base64_decode($request['body_b64'], true) : false;
    $header = $request['header'] ?? null;
    $secrets = is_array($request) ? (array) ($request['secret'] ?? []) : [];
    $tolerance = $request['tolerance_s'] ?? OZAN_WEBHOOK_TOLERANCE_S;
    $now = $request['now'] ?? null;
    if ($body === false || !(is_string($header) || $header === null) || !is_int($tolerance) || !(is_int($now) || $now === null)) {
        ozan_cli_fail('unreadable input: ' . trim($line));
    }
    try {
        $event = ozan_verify_webhook($body, $header, $secrets, $tolerance, $now);
        $out = ['ok' => true, 'event' => $event];
    } catch (OzanWebhookError $e) {
        $out = ['ok' => false, 'code' => $e->getMessage()];
    } catch (InvalidArgumentException | TypeError $e) {
        // A bad secret or tolerance is a harness mistake, not a verdict on the delivery.
        ozan_cli_fail('invalid input: ' . $e->getMessage());
    }
    echo json_encode($out, JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_SLASHES | JSON_THROW_ON_ERROR), "\n";
    fflush(STDOUT);
}
