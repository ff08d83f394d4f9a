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
	htmltemplate "html/template"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/template"
	"unicode/utf8"
)

//go:embed *.tmpl *.html
var embedded embed.FS

// Set is a parsed set of templates.
type Set struct {
	t *template.Template
	h *htmltemplate.Template
}

// DefaultServer is the server's name until the operator gives it one
// (WithServer): gamerz's, the name players know.
const DefaultServer = "PBeM Server"

var funcs = template.FuncMap{
	// server is the server's own name, in the texts and subjects of every
	// mail that belongs to no game ("PBeM Server help").
	"server": func() string { return DefaultServer },
	// stars is the separator line of the gamerz mails.
	"stars": func() string { return strings.Repeat("*", 60) },
	"add":   func(a, b int) int { return a + b },
}

// htmlFuncs are the HTML parts' own functions. lines writes a text
// escaped, its line breaks as <br>: white-space:pre-wrap is lost in
// Outlook's, w3m's and lynx's rendering, and the text would run together.
var htmlFuncs = htmltemplate.FuncMap{
	"lines": func(s string) htmltemplate.HTML {
		s = htmltemplate.HTMLEscapeString(strings.TrimRight(s, "\n"))
		return htmltemplate.HTML(strings.ReplaceAll(s, "\n", "<br>\n"))
	},
}

// Load parses the embedded templates, then the files of overrideDir ("" =
// none): *.tmpl are text templates (text/template), *.html the HTML parts
// of the mails (html/template, which escapes what players wrote). An
// override must carry the name of an embedded file: a file that would
// replace nothing is a typo the operator wants to hear about.
func Load(overrideDir string) (*Set, error) {
	text, err := sources(overrideDir, "*.tmpl")
	if err != nil {
		return nil, err
	}
	root := template.New("").Funcs(funcs).Option("missingkey=error")
	for _, f := range text {
		if _, err := root.New(f.name).Parse(f.text); err != nil {
			return nil, fmt.Errorf("templates: %s%w", f.override, err)
		}
	}
	html, err := sources(overrideDir, "*.html")
	if err != nil {
		return nil, err
	}
	hroot := htmltemplate.New("").Funcs(htmltemplate.FuncMap(funcs)).Funcs(htmlFuncs).Option("missingkey=error")
	for _, f := range html {
		if _, err := hroot.New(f.name).Parse(f.text); err != nil {
			return nil, fmt.Errorf("templates: %s%w", f.override, err)
		}
	}
	return &Set{t: root, h: hroot}, nil
}

// source is one template file: embedded, or an override ("override ").
type source struct{ name, text, override string }

// sources reads the embedded files matching pattern, then the override
// files of dir matching it.
func sources(dir, pattern string) ([]source, error) {
	names, err := fs.Glob(embedded, pattern)
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	var out []source
	for _, name := range names {
		text, err := embedded.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("templates: %w", err)
		}
		out = append(out, source{name: name, text: string(text)})
	}
	if dir == "" {
		return out, nil
	}
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
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
		out = append(out, source{name: name, text: string(text), override: "override "})
	}
	return out, nil
}

// WithServer returns a copy of s whose texts call the server name (the
// template function "server"). It must come before s renders anything:
// an HTML template set that has run can no longer be copied.
func (s *Set) WithServer(name string) (*Set, error) {
	t, err := s.t.Clone()
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	h, err := s.h.Clone()
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	server := func() string { return name }
	t.Funcs(template.FuncMap{"server": server})
	h.Funcs(htmltemplate.FuncMap{"server": server})
	return &Set{t: t, h: h}, nil
}

// Render executes the named template with data.
func (s *Set) Render(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("templates: %w", err)
	}
	return b.String(), nil
}

// With returns a copy of s with the text templates that text defines
// ({{define}}) added, or put in place of those of the same names: the
// texts of a game that lives outside this package, as the test game of
// package gamestest, which no server offers.
func (s *Set) With(text string) (*Set, error) {
	t, err := s.t.Clone()
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	if _, err := t.New("with.tmpl").Parse(text); err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	return &Set{t: t, h: s.h}, nil
}

// Names returns the names of the text templates, sorted.
func (s *Set) Names() []string {
	var names []string
	for _, t := range s.t.Templates() {
		if t.Name() != "" && !strings.HasSuffix(t.Name(), ".tmpl") {
			names = append(names, t.Name())
		}
	}
	slices.Sort(names)
	return names
}

// RenderHTML executes the named HTML template (from the *.html files) with
// data.
func (s *Set) RenderHTML(name string, data any) (string, error) {
	var b strings.Builder
	if err := s.h.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("templates: %w", err)
	}
	return b.String(), nil
}

// Width is the longest line of the texts the server writes (outside the
// board block, which is narrower anyway): 76 columns read in any terminal
// and survive a quote mark or two in a reply.
const Width = 76

// Wrap breaks every line of s longer than width at its last space within
// width; the pieces keep the line's indentation. A word longer than the
// width (a URL) stays whole on a line of its own. Lines that fit are left
// as they are, so a text laid out by hand is unchanged.
func Wrap(s string, width int) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		for utf8.RuneCountInString(line) > width {
			cut := lastSpace(line, width, len(indent))
			if cut < 0 {
				break
			}
			b.WriteString(strings.TrimRight(line[:cut], " ") + "\n")
			line = indent + strings.TrimLeft(line[cut:], " ")
		}
		b.WriteString(line)
	}
	return b.String()
}

// lastSpace is the byte index of the last space of line within width
// runes and after the indentation; else of the first space after that; -1
// when there is none.
func lastSpace(line string, width, indent int) int {
	best, n := -1, 0
	for i, r := range line {
		if n > width && best >= 0 {
			break
		}
		if r == ' ' && i > indent {
			best = i
			if n > width {
				break
			}
		}
		n++
	}
	return best
}
