// Package answer holds the questions jobevent answers about a log, and
// the one writer of each answer's JSON, shared by the CLI's --format json
// and the REST API of jobevent serve (one writer for both, so the
// two are byte for byte the same).
//
// Each question is a small function taking an open logsource.Source (or
// a LOG argument) and options; it returns the answer as a value with JSON
// tags, and WriteJSON writes it. The callers print warnings, tables and
// errors their own way: the CLI on stderr, the server as JSON errors.
// The functions are safe for concurrent use on distinct sources.
package answer
