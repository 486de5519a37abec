// Package ozanwebhook verifies Ozan webhook deliveries (docs/webhook-verification.md) with the
// standard library only: crypto/hmac to sign, hmac.Equal to compare in constant time. Go 1.18+.
package ozanwebhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultTolerance is how far the signed timestamp may be from now, either way.
const DefaultTolerance = 5 * time.Minute

// The error text is the code the Node and Python libraries use.
var (
	ErrMissingHeader       = errors.New("missing_header")
	ErrMalformedHeader     = errors.New("malformed_header")
	ErrNoMatchingSignature = errors.New("no_matching_signature")
	ErrTimestampTooOld     = errors.New("timestamp_too_old")
	ErrTimestampInFuture   = errors.New("timestamp_in_future")
	ErrMalformedBody       = errors.New("malformed_body")

	// ErrNoSecret is a setup mistake, not a bad delivery: an empty key would let anyone sign.
	ErrNoSecret = errors.New("ozanwebhook: empty secret")
	// ErrNegativeTolerance is a setup mistake too.
	ErrNegativeTolerance = errors.New("ozanwebhook: negative tolerance")
)

// Event is a verified delivery's body.
type Event struct {
	Event string         `json:"event"`
	Data  map[string]any `json:"data"`
}

// Verify checks one delivery. rawBody must be the bytes as received; secrets are every secret you
// accept (two while you roll your own configuration over).
func Verify(rawBody []byte, header string, secrets []string, tolerance time.Duration, now time.Time) (*Event, error) {
	if len(secrets) == 0 {
		return nil, ErrNoSecret
	}
	for _, secret := range secrets {
		if secret == "" {
			return nil, ErrNoSecret
		}
	}
	if tolerance < 0 {
		return nil, ErrNegativeTolerance
	}
	ts, sigs, err := parseHeader(header)
	if err != nil {
		return nil, err
	}

	// Signature first, so the timestamp checked below is one Ozan signed.
	if !anySignatureMatches(rawBody, ts, sigs, secrets) {
		return nil, ErrNoMatchingSignature
	}
	if err := checkTimestamp(ts, tolerance, now); err != nil {
		return nil, err
	}
	return parseBody(rawBody)
}

// parseHeader returns the t text as sent and every v1 that can be a SHA-256 (others never match).
func parseHeader(header string) (string, [][]byte, error) {
	if strings.Trim(header, " \t") == "" {
		return "", nil, ErrMissingHeader
	}
	var ts string
	var sigs [][]byte
	v1Count := 0
	for _, part := range strings.Split(header, ",") {
		key, value, ok := strings.Cut(strings.Trim(part, " \t"), "=")
		if !ok || key == "" || value == "" {
			return "", nil, ErrMalformedHeader
		}
		switch key {
		case "t":
			if ts != "" || strings.Trim(value, "0123456789") != "" {
				return "", nil, ErrMalformedHeader
			}
			ts = value
		case "v1":
			v1Count++
			// Anything that is not a hex SHA-256 can never match; it must not spoil the others.
			if sig, err := hex.DecodeString(value); err == nil && len(sig) == sha256.Size {
				sigs = append(sigs, sig)
			}
		} // other schemes (v0=...) are ignored: future schemes are added next to v1
	}
	if ts == "" || v1Count == 0 {
		return "", nil, ErrMalformedHeader
	}
	return ts, sigs, nil
}

func anySignatureMatches(rawBody []byte, ts string, sigs [][]byte, secrets []string) bool {
	matched := false
	for _, secret := range secrets {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(rawBody)
		expected := mac.Sum(nil)
		for _, sig := range sigs {
			// No early exit: every entry is compared, so timing says nothing about which matched.
			if hmac.Equal(sig, expected) {
				matched = true
			}
		}
	}
	return matched
}

func checkTimestamp(ts string, tolerance time.Duration, now time.Time) error {
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil { // only an overflow gets here, since ts is all digits
		return ErrTimestampInFuture
	}
	signed := time.Unix(t, 0)
	if signed.Before(now.Add(-tolerance)) {
		return ErrTimestampTooOld
	}
	if signed.After(now.Add(tolerance)) {
		return ErrTimestampInFuture
	}
	return nil
}

func parseBody(rawBody []byte) (*Event, error) {
	// encoding/json would quietly replace invalid UTF-8, so it is checked first. It also matches
	// struct fields case-insensitively, so the body is read as a map and the keys looked up exactly.
	var fields map[string]json.RawMessage
	if !utf8.Valid(rawBody) || json.Unmarshal(rawBody, &fields) != nil || fields == nil {
		return nil, ErrMalformedBody
	}
	// Pointer and map stay nil for a JSON null; a missing field is an empty RawMessage, an error.
	var event *string
	var data map[string]any
	if json.Unmarshal(fields["event"], &event) != nil || event == nil ||
		json.Unmarshal(fields["data"], &data) != nil || data == nil {
		return nil, ErrMalformedBody
	}
	return &Event{Event: *event, Data: data}, nil
}
