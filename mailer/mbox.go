package mailer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteMbox appends msg to an mbox file as SPEC §5 asks of `lyngk process
// -mbox`: a "From <from> <date>" line with the date in asctime form (UTC),
// the mail with LF line ends, and a blank line. Every line starting with
// "From " gets a ">" so no mail line can pass for the next separator; as in
// mboxrd, lines already starting with ">From " or ">>From " get one more,
// which keeps the escaping reversible ([ReadMbox]). An empty from is written
// as MAILER-DAEMON, the customary envelope sender of a null return path.
func WriteMbox(w io.Writer, from string, date time.Time, msg []byte) error {
	if from == "" {
		from = "MAILER-DAEMON"
	}
	if strings.ContainsAny(from, " \t\r\n") {
		return fmt.Errorf("mailer: mbox: envelope sender %q contains white space", from)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "From %s %s\n", from, date.UTC().Format(time.ANSIC))
	for len(msg) > 0 {
		var line []byte
		line, msg, _ = bytes.Cut(msg, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if isFromLine(line) {
			bw.WriteByte('>')
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	bw.WriteByte('\n')
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("mailer: mbox: %w", err)
	}
	return nil
}

// ReadMbox splits an mbox written by [WriteMbox] into its mails, undoing the
// ">From " escaping and dropping the separating blank line. Each mail comes
// back with LF line ends and ending in a line end.
func ReadMbox(r io.Reader) ([][]byte, error) {
	var msgs [][]byte
	var cur []byte
	in := false
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		switch {
		case len(line) == 0:
		case bytes.HasPrefix(line, []byte("From ")):
			if in {
				msgs = append(msgs, trimSeparator(cur))
			}
			cur, in = []byte{}, true
		case !in:
			if len(bytes.TrimSpace(line)) > 0 {
				return nil, errors.New("mailer: mbox: text before the first From line")
			}
		default:
			if line[0] == '>' && isFromLine(line[1:]) {
				line = line[1:]
			}
			cur = append(cur, line...)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("mailer: mbox: %w", err)
		}
	}
	if in {
		msgs = append(msgs, trimSeparator(cur))
	}
	return msgs, nil
}

// isFromLine reports whether line is "From " behind zero or more ">".
func isFromLine(line []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(line, ">"), []byte("From "))
}

// trimSeparator drops the blank line that ends each mail in the mbox.
func trimSeparator(msg []byte) []byte {
	if bytes.HasSuffix(msg, []byte("\n\n")) {
		return msg[:len(msg)-1]
	}
	return msg
}
