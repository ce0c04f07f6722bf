package cluster

import (
	"bytes"
	"testing"
)

// Off a terminal, a line every progressEvery objects and none at the end
// (the summary follows).
func TestProgressLinesOffATerminal(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, 2500)
	for range 2500 {
		p.add(1)
	}
	p.finish()
	want := "   applying: 1000/2500 objects\n   applying: 2000/2500 objects\n"
	if out.String() != want {
		t.Errorf("progress:\n%q\nwant\n%q", out.String(), want)
	}
}

func TestProgressNilIsSilent(t *testing.T) {
	var p *progress
	p.add(1)
	p.finish()
	newProgress(nil, 3).add(1)
}
