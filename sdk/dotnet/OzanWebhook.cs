// Verifies Ozan webhook deliveries (docs/webhook-verification.md) with the base class library only:
// HMACSHA256 to sign, CryptographicOperations.FixedTimeEquals to compare in constant time. Builds on
// .NET Core 2.1+ / .NET 5+ and on Mono 6.8 (C# 7.2). Copy this file and OzanWebhookJson.cs.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Security.Cryptography;
using System.Text;

/// <summary>A delivery failed the check. Code is the one the Node and Python libraries use.</summary>
public sealed class OzanWebhookException : Exception
{
    public OzanWebhookException(string code) : base(code) { Code = code; }

    public string Code { get; }
}

/// <summary>A verified delivery: its event type, its data, and every top-level field of the body.</summary>
public sealed class OzanWebhookEvent
{
    public OzanWebhookEvent(string type, Dictionary<string, object> data, Dictionary<string, object> body)
    {
        Event = type;
        Data = data;
        Body = body;
    }

    public string Event { get; }
    public Dictionary<string, object> Data { get; }
    public Dictionary<string, object> Body { get; }
}

public static class OzanWebhook
{
    public const long DefaultToleranceS = 300;

    /// <summary>
    /// Checks one delivery. rawBody must be the bytes as received; secrets are every secret you accept
    /// (two while you roll your own configuration over); now defaults to the clock.
    /// </summary>
    public static OzanWebhookEvent Verify(byte[] rawBody, string header, IReadOnlyCollection<string> secrets,
        long toleranceS = DefaultToleranceS, DateTimeOffset? now = null)
    {
        if (rawBody == null) throw new ArgumentNullException(nameof(rawBody));
        // An empty key would let anyone sign: a setup mistake, not a bad delivery.
        if (secrets == null || secrets.Count == 0 || secrets.Any(string.IsNullOrEmpty))
            throw new ArgumentException("missing webhook secret", nameof(secrets));
        if (toleranceS < 0)
            throw new ArgumentOutOfRangeException(nameof(toleranceS), "tolerance must not be negative");

        List<byte[]> signatures;
        var timestamp = ParseHeader(header, out signatures);

        // Signature first, so the timestamp checked below is one Ozan signed.
        if (!AnySignatureMatches(rawBody, timestamp, signatures, secrets))
            throw new OzanWebhookException("no_matching_signature");
        CheckTimestamp(timestamp, toleranceS, (now ?? DateTimeOffset.UtcNow).ToUnixTimeSeconds());
        return ParseBody(rawBody);
    }

    /// <summary>Returns the t text as sent; signatures gets every v1 that can be a SHA-256.</summary>
    private static string ParseHeader(string header, out List<byte[]> signatures)
    {
        if (header == null || header.Trim(' ', '\t').Length == 0)
            throw new OzanWebhookException("missing_header");
        string timestamp = null;
        signatures = new List<byte[]>();
        var v1Count = 0;
        foreach (var raw in header.Split(','))
        {
            var part = raw.Trim(' ', '\t');
            var eq = part.IndexOf('=');
            if (eq <= 0 || eq == part.Length - 1)
                throw new OzanWebhookException("malformed_header");
            var key = part.Substring(0, eq);
            var value = part.Substring(eq + 1);
            if (key == "t")
            {
                if (timestamp != null || !value.All(c => c >= '0' && c <= '9'))
                    throw new OzanWebhookException("malformed_header");
                timestamp = value;
            }
            else if (key == "v1")
            {
                v1Count++;
                // Anything that is not a hex SHA-256 can never match; it must not spoil the others.
                var signature = DecodeHex(value);
                if (signature != null && signature.Length == 32)
                    signatures.Add(signature);
            }
            // other schemes (v0=...) are ignored: future schemes are added next to v1
        }
        if (timestamp == null || v1Count == 0)
            throw new OzanWebhookException("malformed_header");
        return timestamp;
    }

    private static bool AnySignatureMatches(byte[] rawBody, string timestamp, List<byte[]> signatures,
        IEnumerable<string> secrets)
    {
        var signed = Encoding.ASCII.GetBytes(timestamp + ".").Concat(rawBody).ToArray();
        var matched = false;
        foreach (var secret in secrets)
        {
            byte[] expected;
            using (var hmac = new HMACSHA256(Encoding.UTF8.GetBytes(secret)))
                expected = hmac.ComputeHash(signed);
            // No early exit: every entry is compared, so timing says nothing about which matched.
            foreach (var signature in signatures)
                matched |= CryptographicOperations.FixedTimeEquals(signature, expected);
        }
        return matched;
    }

    private static void CheckTimestamp(string timestamp, long toleranceS, long nowS)
    {
        // Only an overflow fails here, since the value is all digits, and that is far in the future.
        long t;
        if (!long.TryParse(timestamp, NumberStyles.None, CultureInfo.InvariantCulture, out t))
            throw new OzanWebhookException("timestamp_in_future");
        if (t < nowS - toleranceS)
            throw new OzanWebhookException("timestamp_too_old");
        if (t > nowS + toleranceS)
            throw new OzanWebhookException("timestamp_in_future");
    }

    private static OzanWebhookEvent ParseBody(byte[] rawBody)
    {
        var body = OzanWebhookJson.ParseUtf8(rawBody) as Dictionary<string, object>;
        object type, data;
        if (body == null || !body.TryGetValue("event", out type) || !(type is string)
            || !body.TryGetValue("data", out data) || !(data is Dictionary<string, object>))
            throw new OzanWebhookException("malformed_body");
        return new OzanWebhookEvent((string)type, (Dictionary<string, object>)data, body);
    }

    /// <summary>The bytes of a hex string in either case, or null if it is not one.</summary>
    private static byte[] DecodeHex(string hex)
    {
        if (hex.Length % 2 != 0) return null;
        var bytes = new byte[hex.Length / 2];
        for (var i = 0; i < bytes.Length; i++)
        {
            int hi = HexValue(hex[2 * i]), lo = HexValue(hex[2 * i + 1]);
            if (hi < 0 || lo < 0) return null;
            bytes[i] = (byte)(hi * 16 + lo);
        }
        return bytes;
    }

    private static int HexValue(char c)
    {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
}
