package answer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"github.com/jobevent/jobevent/internal/human"
)

// WriteJSON writes v to w as indented JSON followed by a newline, with
// every number of seconds rounded to the millisecond (RoundSeconds): the
// JSON of every answer, on the CLI and over HTTP.
func WriteJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	if _, err := w.Write(RoundSeconds(buf.Bytes())); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// secondsValue matches a key that holds a number of seconds and its
// value, in JSON as encoding/json writes it: "wall_seconds": 3.0405581710000003.
// A key inside a string value cannot match: its quotes are escaped.
var secondsValue = regexp.MustCompile(`("(?:[a-z_]*_)?seconds": )(-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)`)

// RoundSeconds rounds the value of every "seconds" or "*_seconds" key of
// the JSON data to the millisecond (human.RoundSeconds): 3.041, not
// 3.0405581710000003. Those values measure times, which the log records
// to the millisecond or less precisely anyway.
func RoundSeconds(data []byte) []byte {
	return secondsValue.ReplaceAllFunc(data, func(m []byte) []byte {
		sub := secondsValue.FindSubmatch(m)
		v, err := strconv.ParseFloat(string(sub[2]), 64)
		if err != nil {
			return m
		}
		return strconv.AppendFloat(sub[1], human.RoundSeconds(v), 'f', -1, 64)
	})
}
