// A strict RFC 8259 JSON reader for OzanWebhook.cs. System.Text.Json is not in Mono or .NET Framework,
// so the body is read here with the base class library alone. It accepts what JavaScript's JSON.parse
// accepts (the rule the Node library applies) and nothing else: no comments, trailing commas, NaN or
// byte order mark, and the bytes must be valid UTF-8.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

public static class OzanWebhookJson
{
    // Deeper bodies are refused rather than risk exhausting the stack; Ozan's events are shallow.
    private const int MaxDepth = 512;
    private static readonly UTF8Encoding StrictUtf8 = new UTF8Encoding(false, true);

    /// <summary>
    /// Parses UTF-8 JSON into Dictionary&lt;string, object&gt;, List&lt;object&gt;, string, double, bool or
    /// null. Returns null with no exception for anything that is not valid JSON as well; a caller that
    /// needs to tell a JSON null apart must check the text itself.
    /// </summary>
    public static object ParseUtf8(byte[] utf8)
    {
        string text;
        try { text = StrictUtf8.GetString(utf8); }
        catch (DecoderFallbackException) { return null; }
        var reader = new Reader(text);
        try
        {
            var value = reader.ReadValue(0);
            reader.SkipWhitespace();
            return reader.AtEnd ? value : null;
        }
        catch (FormatException) { return null; }
    }

    private sealed class Reader
    {
        private readonly string text;
        private int pos;

        public Reader(string text) { this.text = text; }

        public bool AtEnd => pos == text.Length;

        public void SkipWhitespace()
        {
            while (pos < text.Length && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
                pos++;
        }

        public object ReadValue(int depth)
        {
            if (depth > MaxDepth) throw new FormatException("too deep");
            SkipWhitespace();
            if (AtEnd) throw new FormatException("unexpected end");
            var c = text[pos];
            if (c == '{') return ReadObject(depth);
            if (c == '[') return ReadArray(depth);
            if (c == '"') return ReadString();
            if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
            if (TryLiteral("true")) return true;
            if (TryLiteral("false")) return false;
            if (TryLiteral("null")) return null;
            throw new FormatException("unexpected character");
        }

        private Dictionary<string, object> ReadObject(int depth)
        {
            var result = new Dictionary<string, object>(StringComparer.Ordinal);
            pos++; // {
            SkipWhitespace();
            if (TryChar('}')) return result;
            do
            {
                SkipWhitespace();
                if (AtEnd || text[pos] != '"') throw new FormatException("expected a key");
                var key = ReadString();
                SkipWhitespace();
                Expect(':');
                result[key] = ReadValue(depth + 1); // the last duplicate wins, as in JSON.parse
                SkipWhitespace();
            } while (TryChar(','));
            Expect('}');
            return result;
        }

        private List<object> ReadArray(int depth)
        {
            var result = new List<object>();
            pos++; // [
            SkipWhitespace();
            if (TryChar(']')) return result;
            do
            {
                result.Add(ReadValue(depth + 1));
                SkipWhitespace();
            } while (TryChar(','));
            Expect(']');
            return result;
        }

        private string ReadString()
        {
            var sb = new StringBuilder();
            pos++; // opening quote
            while (true)
            {
                if (AtEnd) throw new FormatException("unterminated string");
                var c = text[pos++];
                if (c == '"') return sb.ToString();
                if (c < 0x20) throw new FormatException("control character in string");
                if (c != '\\') { sb.Append(c); continue; }
                if (AtEnd) throw new FormatException("unterminated escape");
                var e = text[pos++];
                switch (e)
                {
                    case '"': sb.Append('"'); break;
                    case '\\': sb.Append('\\'); break;
                    case '/': sb.Append('/'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'n': sb.Append('\n'); break;
                    case 'r': sb.Append('\r'); break;
                    case 't': sb.Append('\t'); break;
                    case 'u':
                        int code;
                        if (pos + 4 > text.Length || !int.TryParse(text.Substring(pos, 4), NumberStyles.AllowHexSpecifier,
                                CultureInfo.InvariantCulture, out code))
                            throw new FormatException("bad \\u escape");
                        sb.Append((char)code); // a lone surrogate is kept, as JSON.parse keeps it
                        pos += 4;
                        break;
                    default: throw new FormatException("bad escape");
                }
            }
        }

        private double ReadNumber()
        {
            var start = pos;
            TryChar('-');
            if (TryChar('0')) { }
            else if (!SkipDigits()) throw new FormatException("expected a digit");
            if (TryChar('.') && !SkipDigits()) throw new FormatException("expected a fraction");
            if (TryChar('e') || TryChar('E'))
            {
                if (!TryChar('+')) TryChar('-');
                if (!SkipDigits()) throw new FormatException("expected an exponent");
            }
            var literal = text.Substring(start, pos - start);
            try { return double.Parse(literal, NumberStyles.Float, CultureInfo.InvariantCulture); }
            catch (OverflowException) { return literal[0] == '-' ? double.NegativeInfinity : double.PositiveInfinity; }
        }

        private bool SkipDigits()
        {
            var start = pos;
            while (pos < text.Length && text[pos] >= '0' && text[pos] <= '9') pos++;
            return pos > start;
        }

        private bool TryLiteral(string literal)
        {
            if (string.CompareOrdinal(text, pos, literal, 0, literal.Length) != 0) return false;
            pos += literal.Length;
            return true;
        }

        private bool TryChar(char c)
        {
            if (AtEnd || text[pos] != c) return false;
            pos++;
            return true;
        }

        private void Expect(char c)
        {
            if (!TryChar(c)) throw new FormatException("expected '" + c + "'");
        }
    }
}
