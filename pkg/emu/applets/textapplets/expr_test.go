package textapplets

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
)

func TestExpr(t *testing.T) {
	tests := []struct {
		args string
		out  string
		code int
	}{
		{"3 % 2", "1", 0},
		{"4 % 2", "0", 1},
		{"2 + 3 * 4", "14", 0},
		{"( 2 + 3 ) * 4", "20", 0},
		{"abc = abc", "1", 0},
		{"10 > 9", "1", 0},
		{"hello : hel", "3", 0},
		{`v1.2 : v\([0-9]*\)`, "1", 0},
		{"length hello", "5", 0},
		{"substr hello 2 3", "ell", 0},
		{"index hello l", "3", 0},
		{"0 | 5", "5", 0},
		{"0 & 5", "0", 1},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		p := &program.Proc{Args: append([]string{"expr"}, strings.Fields(tt.args)...), Stdout: &out, Stderr: &errb}
		code := Expr(context.Background(), p)
		if got := strings.TrimSpace(out.String()); got != tt.out || code != tt.code {
			t.Errorf("expr %s = %q (%d), want %q (%d) %s", tt.args, got, code, tt.out, tt.code, errb.String())
		}
	}
	var errb bytes.Buffer
	if code := Expr(context.Background(), &program.Proc{Args: []string{"expr", "1", "+"}, Stdout: &bytes.Buffer{}, Stderr: &errb}); code != 2 || errb.String() != "expr: syntax error\n" {
		t.Errorf("syntax error: %d %q", code, errb.String())
	}
}
