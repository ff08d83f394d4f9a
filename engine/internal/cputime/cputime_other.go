//go:build !unix

package cputime

import "time"

// supported is false: outside unix there is no portable source of the
// process's CPU time, and Report reports nothing.
const supported = false

// Now returns 0: see supported.
func Now() time.Duration { return 0 }
