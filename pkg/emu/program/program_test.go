package program

import (
	"bytes"
	"context"
	"testing"
)

// A program that panics ends with status 2 and its message, as a Go
// program does, instead of taking the node agent down.
func TestStartRecoversPanic(t *testing.T) {
	sys := &Sys{Programs: map[string]Main{"boom": func(context.Context, *Proc) int {
		var m map[string]int
		m["x"] = 1
		return 0
	}}}
	var errb bytes.Buffer
	code, err := sys.Exec(context.Background(), &Proc{Args: []string{"/bin/boom"}, Stderr: &errb})
	if err != nil || code != 2 || !bytes.Contains(errb.Bytes(), []byte("panic: assignment to entry in nil map")) {
		t.Errorf("code %d, err %v, stderr %q", code, err, errb.String())
	}
}
