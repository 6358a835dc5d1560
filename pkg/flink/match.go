package flink

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// MatchVertex finds the vertex a user names (e.g. in --coordinator
// VERTEX=kind) among names, a map from 32-hex vertex id to its name as
// Flink's web UI shows it ("Source: numbers -> src"). key matches a
// vertex by its id, its full name, or the name of any operator of its
// chain ("src" or "Source: numbers" both match "Source: numbers -> src").
// An exact id or full name wins over an operator name; a key that matches
// several vertices is an error naming them, and one that matches none an
// error saying so.
func MatchVertex(names map[string]string, key string) (string, error) {
	if _, ok := names[key]; ok && hexID32(key) {
		return key, nil
	}
	var full, op []string
	for id, name := range names {
		if name == key {
			full = append(full, id)
			continue
		}
		for _, part := range chainOperators(name) {
			if part == key {
				op = append(op, id)
				break
			}
		}
	}
	for _, c := range [][]string{full, op} {
		switch len(c) {
		case 0:
			continue
		case 1:
			return c[0], nil
		}
		sort.Strings(c)
		var list []string
		for _, id := range c {
			list = append(list, fmt.Sprintf("%s (%s)", id, names[id]))
		}
		return "", fmt.Errorf("vertex %q %w: it matches %s", key, ErrAmbiguousVertex, strings.Join(list, ", "))
	}
	return "", fmt.Errorf("vertex %q %w (give a 32-hex id, a vertex name or an operator of one)", key, ErrNoVertex)
}

// The errors of MatchVertex.
var (
	ErrAmbiguousVertex = errors.New("is ambiguous")
	ErrNoVertex        = errors.New("names no vertex")
)

// chainOperators splits a chain name into its operators as
// createChainedName joins them: "a -> b" into a and b, "a -> (b, c -> d)"
// into a, b, c and d. Each part is also kept whole, so an operator whose
// own name holds ", " or parentheses still matches.
func chainOperators(name string) []string {
	var out []string
	for _, part := range strings.Split(name, " -> ") {
		out = append(out, strings.TrimSpace(part))
		trimmed := strings.TrimRight(strings.TrimLeft(part, "("), ")")
		for _, p := range strings.Split(trimmed, ", ") {
			if p = strings.TrimSpace(p); p != "" && p != part {
				out = append(out, p)
			}
		}
	}
	return out
}
