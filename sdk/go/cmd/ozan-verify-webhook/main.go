// Command ozan-verify-webhook is the test harness for package ozanwebhook: one JSON request per
// stdin line, one JSON outcome per stdout line.
//
// Input:  {"body_b64": str, "header": str|null, "secret": str|[str], "tolerance_s"?: int, "now"?: int}
// Output: {"ok": true, "event": {...}} or {"ok": false, "code": "<error code>"}
//
// A rejected delivery is a normal outcome; a line it cannot read exits 2 with a message on stderr,
// so a broken harness is not mistaken for a rejected delivery.
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"ozan.dev/sdk/go/ozanwebhook"
)

type request struct {
	BodyB64    *string         `json:"body_b64"`
	Header     *string         `json:"header"`
	Secret     json.RawMessage `json:"secret"`
	ToleranceS *int64          `json:"tolerance_s"`
	Now        *int64          `json:"now"`
}

type outcome struct {
	OK    bool               `json:"ok"`
	Event *ozanwebhook.Event `json:"event,omitempty"`
	Code  string             `json:"code,omitempty"`
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "ozan-verify-webhook: "+format+"\n", args...)
	os.Exit(2)
}

// secrets accepts one secret or a list, as the other harnesses do.
func secrets(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, errors.New("secret is neither a string nor a list of strings")
	}
	return many, nil
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	out := json.NewEncoder(os.Stdout)
	out.SetEscapeHTML(false)
	for in.Scan() {
		if len(in.Bytes()) == 0 {
			continue
		}
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || req.BodyB64 == nil {
			fail("unreadable input: %s", in.Text())
		}
		body, err := base64.StdEncoding.DecodeString(*req.BodyB64)
		if err != nil {
			fail("unreadable body_b64: %v", err)
		}
		keys, err := secrets(req.Secret)
		if err != nil {
			fail("%v", err)
		}
		header := ""
		if req.Header != nil {
			header = *req.Header
		}
		tolerance := ozanwebhook.DefaultTolerance
		if req.ToleranceS != nil {
			tolerance = time.Duration(*req.ToleranceS) * time.Second
		}
		now := time.Now()
		if req.Now != nil {
			now = time.Unix(*req.Now, 0)
		}
		event, err := ozanwebhook.Verify(body, header, keys, tolerance, now)
		switch {
		case errors.Is(err, ozanwebhook.ErrNoSecret), errors.Is(err, ozanwebhook.ErrNegativeTolerance):
			// A bad secret or tolerance is a harness mistake, not a verdict on the delivery.
			fail("invalid input: %v", err)
		case err != nil:
			err = out.Encode(outcome{Code: err.Error()})
		default:
			err = out.Encode(outcome{OK: true, Event: event})
		}
		if err != nil {
			fail("writing the outcome: %v", err)
		}
	}
	if err := in.Err(); err != nil {
		fail("reading stdin: %v", err)
	}
}
