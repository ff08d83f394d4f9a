package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A WebDriver client (W3C WebDriver over HTTP, plain JSON) for Debian's
// chromedriver driving Debian's chromium: the browser tests need no Go
// module and no npm package, only the two Debian packages .ci/run
// installs.

// webDriver is one browser session.
type webDriver struct {
	t    *testing.T
	base string // http://127.0.0.1:PORT of chromedriver
	sid  string
	http *http.Client
}

// elementKey is the W3C name of an element reference in JSON.
const elementKey = "element-6066-11e4-a52e-4f735466cecf"

// startBrowser starts chromedriver and a headless chromium session of
// width×height, both stopped at the end of the test. It skips when the
// tools are missing outside CI, and fails in CI (CI=true, set by .ci/run,
// which installs them).
func startBrowser(t *testing.T, width, height int) *webDriver {
	t.Helper()
	return startChromium(t, width, height, nil)
}

// startPhone is startBrowser as a phone: Chromium's mobile emulation at
// width×height CSS px with device pixel ratio ratio (touch events, the
// viewport meta tag honoured, screenshots in device pixels).
func startPhone(t *testing.T, width, height int, ratio float64) *webDriver {
	t.Helper()
	return startChromium(t, width, height, map[string]any{
		"deviceMetrics": map[string]any{"width": width, "height": height, "pixelRatio": ratio, "touch": true, "mobile": true},
	})
}

// startChromium starts the session of startBrowser, with mobileEmulation
// when it is not nil.
func startChromium(t *testing.T, width, height int, mobileEmulation map[string]any) *webDriver {
	t.Helper()
	driver, derr := exec.LookPath("chromedriver")
	browser, berr := exec.LookPath("chromium")
	if derr != nil || berr != nil {
		if os.Getenv("CI") == "" {
			t.Skipf("chromium and chromium-driver not installed: %v %v", derr, berr)
		}
		t.Fatalf("chromium and chromium-driver not installed in CI: %v %v", derr, berr)
	}
	// Port 0: chromedriver picks a free one and says which.
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, driver, "--port=0", "--allowed-ips=127.0.0.1")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	port := waitText(t, &logs, `started successfully on port (\d+)`)
	d := &webDriver{t: t, base: "http://127.0.0.1:" + port, http: &http.Client{Timeout: 60 * time.Second}}
	for deadline := time.Now().Add(patience); ; time.Sleep(50 * time.Millisecond) {
		var st struct {
			Ready bool `json:"ready"`
		}
		if err := d.do(http.MethodGet, "/status", nil, &st); err == nil && st.Ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromedriver did not start:\n%s", logs.String())
		}
	}
	opts := map[string]any{
		"binary": browser,
		"args": []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--no-first-run", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--hide-scrollbars", "--user-data-dir=" + filepath.Join(t.TempDir(), "profile"),
			fmt.Sprintf("--window-size=%d,%d", width, height)},
	}
	if mobileEmulation != nil {
		opts["mobileEmulation"] = mobileEmulation
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName":        "chrome",
		"goog:chromeOptions": opts,
	}}}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := d.do(http.MethodPost, "/session", caps, &s); err != nil {
		t.Fatalf("new browser session: %v\n%s", err, logs.String())
	}
	d.sid = s.SessionID
	t.Cleanup(func() { d.do(http.MethodDelete, "/session/"+d.sid, nil, nil) })
	return d
}

// do sends one WebDriver command and decodes its "value" into out.
func (d *webDriver) do(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, d.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := d.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var v struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Errorf("webdriver %s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("webdriver %s %s: %d %s", method, path, resp.StatusCode, v.Value)
	}
	if out != nil {
		return json.Unmarshal(v.Value, out)
	}
	return nil
}

// must is do for a command that must succeed.
func (d *webDriver) must(method, path string, in, out any) {
	d.t.Helper()
	if err := d.do(method, "/session/"+d.sid+path, in, out); err != nil {
		d.t.Fatal(err)
	}
}

// open loads url in the current window.
func (d *webDriver) open(url string) {
	d.t.Helper()
	d.must(http.MethodPost, "/url", map[string]string{"url": url}, nil)
}

// window returns the current window's handle.
func (d *webDriver) window() string {
	d.t.Helper()
	var h string
	d.must(http.MethodGet, "/window", nil, &h)
	return h
}

// newTab opens a tab, switches to it and returns its handle.
func (d *webDriver) newTab() string {
	d.t.Helper()
	var w struct {
		Handle string `json:"handle"`
	}
	d.must(http.MethodPost, "/window/new", map[string]string{"type": "tab"}, &w)
	d.switchTo(w.Handle)
	return w.Handle
}

func (d *webDriver) switchTo(handle string) {
	d.t.Helper()
	d.must(http.MethodPost, "/window", map[string]string{"handle": handle}, nil)
}

// find returns the element css selects, waiting for it to appear.
func (d *webDriver) find(css string) string {
	d.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		var el map[string]string
		err := d.do(http.MethodPost, "/session/"+d.sid+"/element", map[string]string{"using": "css selector", "value": css}, &el)
		if err == nil && el[elementKey] != "" {
			return el[elementKey]
		}
		if err == nil {
			err = fmt.Errorf("webdriver: element %q: %v", css, el)
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("no element %q: %v", css, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// click clicks the element css selects, as a user does (the driver moves
// the pointer to its centre).
func (d *webDriver) click(css string) {
	d.t.Helper()
	d.must(http.MethodPost, "/element/"+d.find(css)+"/click", map[string]any{}, nil)
}

// text is the rendered text of the element css selects.
func (d *webDriver) text(css string) string {
	d.t.Helper()
	var s string
	d.must(http.MethodGet, "/element/"+d.find(css)+"/text", nil, &s)
	return s
}

// eval runs script (a function body) in the page and decodes its result.
func (d *webDriver) eval(script string, out any, args ...any) {
	d.t.Helper()
	if args == nil {
		args = []any{}
	}
	d.must(http.MethodPost, "/execute/sync", map[string]any{"script": script, "args": args}, out)
}

// screenshot returns a PNG of the current window.
func (d *webDriver) screenshot() []byte {
	d.t.Helper()
	var s string
	d.must(http.MethodGet, "/screenshot", nil, &s)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		d.t.Fatal(err)
	}
	return b
}

// attr is an attribute of the element css selects ("" when absent).
func (d *webDriver) attr(css, name string) string {
	d.t.Helper()
	var s *string
	d.must(http.MethodGet, "/element/"+d.find(css)+"/attribute/"+name, nil, &s)
	if s == nil {
		return ""
	}
	return *s
}

// tap touches the page at x, y (CSS px from the viewport's top left), as
// a finger does: the page gets the touch and the click that follows.
func (d *webDriver) tap(x, y int) {
	d.t.Helper()
	d.must(http.MethodPost, "/actions", map[string]any{"actions": []any{map[string]any{
		"type": "pointer", "id": "finger", "parameters": map[string]string{"pointerType": "touch"},
		"actions": []any{
			map[string]any{"type": "pointerMove", "duration": 0, "x": x, "y": y, "origin": "viewport"},
			map[string]any{"type": "pointerDown", "button": 0},
			map[string]any{"type": "pointerUp", "button": 0},
		},
	}}}, nil)
	d.must(http.MethodDelete, "/actions", nil, nil)
}
