package annotations

import (
	"strings"
	"testing"
)

// Each value the emulated node reads either parses or is a ValueError
// naming the annotation, its value and what it may be.
func TestPodValueErrors(t *testing.T) {
	good := map[string]string{
		UnknownProgram: "exit 3", RunSeconds: "2.5", ExitCode: "-1", IgnoreSIGTERM: "true",
		UsageCPU: "750m", UsageMemory: "300Mi",
	}
	if errs := PodValueErrors(good); len(errs) != 0 {
		t.Errorf("good values refused: %v", errs)
	}
	if errs := PodValueErrors(nil); len(errs) != 0 {
		t.Errorf("no annotations refused: %v", errs)
	}
	bad := []struct{ key, value string }{
		{UnknownProgram, "sometimes"}, {UnknownProgram, "exit"}, {UnknownProgram, "exit 99999999999"},
		{RunSeconds, "soon"}, {RunSeconds, "-1"}, {RunSeconds, "NaN"}, {RunSeconds, "Inf"},
		{ExitCode, "1.5"}, {ExitCode, ""},
		{IgnoreSIGTERM, "yes"},
		{UsageCPU, "-1"}, {UsageCPU, "lots"}, {UsageMemory, "300MB!"},
	}
	for _, c := range bad {
		errs := PodValueErrors(map[string]string{c.key: c.value})
		if len(errs) != 1 || errs[0].Key != c.key {
			t.Errorf("%s=%q: got %v, want one error for it", c.key, c.value, errs)
			continue
		}
		if msg := errs[0].Error(); !strings.HasPrefix(msg, "annotation "+c.key+"=") || !strings.Contains(msg, ": want ") {
			t.Errorf("%s=%q: message %q", c.key, c.value, msg)
		}
	}
}

func TestUnknownProgramOf(t *testing.T) {
	for v, want := range map[string]Program{
		"": {Mode: ProgramStandIn}, "stand-in": {Mode: ProgramStandIn}, " idle ": {Mode: ProgramIdle}, "exit 3": {Mode: ProgramExit, Code: 3},
	} {
		got, err := UnknownProgramOf(map[string]string{UnknownProgram: v})
		if err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", v, got, err, want)
		}
	}
	// The node's words for a bad value (docs/containers.md quotes them).
	_, err := UnknownProgramOf(map[string]string{UnknownProgram: "sometimes"})
	if want := `annotation winkube.io/unknown-program="sometimes": want stand-in, idle or exit CODE`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
