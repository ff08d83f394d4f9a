// Package templates holds every text the server mails: subjects, board mails,
// error messages, account confirmations, listings and the help topics. The
// texts are text/template files embedded in the binary; an operator may put
// files of the same names in a directory to replace them.
//
// Each *.tmpl file defines named templates with {{define}}; callers render a
// name such as "board.subject" or "err.not-your-turn". An override file is
// parsed after the embedded set under the same file name, so it replaces
// every template it defines and leaves the others as they were. The set is
// parsed once, at Load; rendering is safe for concurrent use.
//
// The board mails follow the gamerz layout byte for byte, trailing spaces
// included. Padding is written with printf so that no template line ends in
// a space an editor could strip.
package templates

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
)

//go:embed *.tmpl
var embedded embed.FS

// Set is a parsed set of templates.
type Set struct {
	t *template.Template
}

var funcs = template.FuncMap{
	// stars is the separator line of the gamerz mails.
	"stars": func() string { return strings.Repeat("*", 60) },
	"add":   func(a, b int) int { return a + b },
}

// Load parses the embedded templates, then the *.tmpl files of overrideDir
// ("" = none). An override must carry the name of an embedded file: a file
// that would replace nothing is a typo the operator wants to hear about.
func Load(overrideDir string) (*Set, error) {
	root := template.New("").Funcs(funcs).Option("missingkey=error")
	names, err := fs.Glob(embedded, "*.tmpl")
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	for _, name := range names {
		text, err := embedded.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("templates: %w", err)
		}
		if _, err := root.New(name).Parse(string(text)); err != nil {
			return nil, fmt.Errorf("templates: %w", err)
		}
	}
	if overrideDir != "" {
		paths, err := filepath.Glob(filepath.Join(overrideDir, "*.tmpl"))
		if err != nil {
			return nil, fmt.Errorf("templates: %w", err)
		}
		for _, path := range paths {
			name := filepath.Base(path)
			if !slices.Contains(names, name) {
				return nil, fmt.Errorf("templates: override %s replaces no embedded file (known: %s)", path, strings.Join(names, " "))
			}
			text, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("templates: %w", err)
			}
			if _, err := root.New(name).Parse(string(text)); err != nil {
				return nil, fmt.Errorf("templates: override %w", err)
			}
		}
	}
	return &Set{t: root}, nil
}

// Render executes the named template with data.
func (s *Set) Render(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("templates: %w", err)
	}
	return b.String(), nil
}
