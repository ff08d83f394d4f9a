package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// guideFile is the operator's guide, whose settings table is generated.
var guideFile = filepath.Join("..", "..", "deploy", "README.md")

// TestSettingsFiles holds deploy/lyngk.conf.example and the settings table
// of deploy/README.md to what the settings table generates, so that a
// setting is described in one place: an edit by hand fails here, and
// go generate ./cmd/lyngk (go test -update) writes them anew.
func TestSettingsFiles(t *testing.T) {
	goldenFile(t, exampleConfig, exampleConfigText())
	guide, err := os.ReadFile(guideFile)
	if err != nil {
		t.Fatal(err)
	}
	got, err := withSettingsTable(string(guide))
	if err != nil {
		t.Fatalf("%s: %v", guideFile, err)
	}
	goldenFile(t, guideFile, got)
}

// TestSettingsTable checks the table itself: keys unique, every default
// and example value accepted by its own setting, choices only of text
// settings and holding the default, and a setting's field of the kind's
// type, each its own.
func TestSettingsTable(t *testing.T) {
	seen := map[string]bool{}
	fields := map[any]string{}
	var c config
	for s := range allSettings {
		if seen[s.key] {
			t.Errorf("%s: listed twice", s.key)
		}
		seen[s.key] = true
		if other, ok := fields[s.field(&c)]; ok {
			t.Errorf("%s: the same field as %s", s.key, other)
		}
		fields[s.field(&c)] = s.key
		if s.doc == "" {
			t.Errorf("%s: no documentation", s.key)
		}
		// Every kind stores into the type it promises, and the default
		// and the example are good values.
		probe := map[kind]string{text: "x", words: "a b", duration: "1h", boolean: "true", count: "1", number: "0"}[s.kind]
		for what, v := range map[string]string{"a value": probe, "default": s.def, "example": s.example} {
			if v == "" {
				continue
			}
			var scratch config
			if err := s.set(&scratch, v); err != nil {
				t.Errorf("%s: %s %q: %v", s.key, what, v, err)
			}
		}
		if s.choices != nil && (s.kind != text || !slices.Contains(s.choices, s.def)) {
			t.Errorf("%s: choices %v for kind %d, default %q", s.key, s.choices, s.kind, s.def)
		}
		if s.env != "" && (s.kind != text || s.example != "") {
			t.Errorf("%s: from %s, but kind %d or an example value %q in the file", s.key, s.env, s.kind, s.example)
		}
	}
}
