// Test harness for OzanWebhook.cs: one JSON request per stdin line, one JSON outcome per stdout line.
//
// Input:  {"body_b64": str, "header": str|null, "secret": str|[str], "tolerance_s"?: int, "now"?: int}
// Output: {"ok": true, "event": {...}} or {"ok": false, "code": "<OzanWebhookException code>"}
//
// A rejected delivery is a normal outcome; a line it cannot read exits 2 with a message on stderr, so
// a broken harness is not mistaken for a rejected delivery.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

public static class VerifyCli
{
    public static int Main()
    {
        var stdin = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true };
        string line;
        while ((line = stdin.ReadLine()) != null)
        {
            if (line.Trim().Length == 0) continue;
            try
            {
                stdout.WriteLine(Outcome(line));
            }
            catch (Exception e) when (e is FormatException || e is ArgumentException || e is InvalidCastException)
            {
                // A bad secret or tolerance is a harness mistake, not a verdict on the delivery.
                Console.Error.WriteLine("VerifyCli: unreadable input: " + e.Message);
                return 2;
            }
        }
        return 0;
    }

    private static string Outcome(string line)
    {
        var request = OzanWebhookJson.ParseUtf8(Encoding.UTF8.GetBytes(line)) as Dictionary<string, object>;
        if (request == null || !(Get(request, "body_b64") is string))
            throw new FormatException("not a request: " + line);
        var body = Convert.FromBase64String((string)request["body_b64"]);
        var header = (string)Get(request, "header");
        var secret = Get(request, "secret");
        var secrets = secret is string ? new List<string> { (string)secret }
            : ((List<object>)secret ?? new List<object>()).Cast<string>().ToList();
        var toleranceS = Get(request, "tolerance_s") is double ? (long)(double)request["tolerance_s"] : OzanWebhook.DefaultToleranceS;
        var now = Get(request, "now") is double
            ? DateTimeOffset.FromUnixTimeSeconds((long)(double)request["now"])
            : (DateTimeOffset?)null;
        try
        {
            var delivery = OzanWebhook.Verify(body, header, secrets, toleranceS, now);
            return "{\"ok\":true,\"event\":" + Write(delivery.Body) + "}";
        }
        catch (OzanWebhookException e)
        {
            return "{\"ok\":false,\"code\":" + Write(e.Code) + "}";
        }
    }

    private static object Get(Dictionary<string, object> map, string key)
    {
        object value;
        return map.TryGetValue(key, out value) ? value : null;
    }

    private static string Write(object value)
    {
        if (value == null) return "null";
        if (value is bool) return (bool)value ? "true" : "false";
        if (value is double) return ((double)value).ToString("R", CultureInfo.InvariantCulture);
        var text = value as string;
        if (text != null)
        {
            var sb = new StringBuilder("\"");
            foreach (var c in text)
            {
                if (c == '"' || c == '\\') sb.Append('\\').Append(c);
                else if (c < 0x20 || char.IsSurrogate(c)) sb.Append("\\u").Append(((int)c).ToString("x4"));
                else sb.Append(c);
            }
            return sb.Append('"').ToString();
        }
        var map = value as Dictionary<string, object>;
        if (map != null)
            return "{" + string.Join(",", map.Select(kv => Write(kv.Key) + ":" + Write(kv.Value))) + "}";
        return "[" + string.Join(",", ((IEnumerable)value).Cast<object>().Select(Write)) + "]";
    }
}
