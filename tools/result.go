package tools

import (
	"bytes"
	"encoding/json"
)

// jsonResult encodes a tool result the model reads: compact JSON without
// HTML escaping (code often contains <, > and &).
func jsonResult(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return errorResult("encode result: " + err.Error())
	}
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// errorResult is the {"error": msg} result of a failed call.
func errorResult(msg string) string {
	return jsonResult(map[string]string{"error": msg})
}
