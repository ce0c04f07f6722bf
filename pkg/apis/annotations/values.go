package annotations

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// ValueError is a winkube annotation whose value winkube cannot follow.
// Its words are the emulated node's refusal (the container waits with
// CreateContainerConfigError) and lint's and the webhook's finding alike,
// so every command says the same thing about the same value.
type ValueError struct {
	Key, Value string
	// Want says what the value may be.
	Want string
}

func (e *ValueError) Error() string {
	return fmt.Sprintf("annotation %s=%q: want %s", e.Key, e.Value, e.Want)
}

// The courses of UnknownProgram.
const (
	ProgramStandIn = "stand-in"
	ProgramIdle    = "idle"
	ProgramExit    = "exit"
)

// Program is what UnknownProgram says runs for a container whose program
// winkube cannot follow: Mode is one of the Program* constants, Code the
// exit code of ProgramExit.
type Program struct {
	Mode string
	Code int32
}

// UnknownProgramOf reads UnknownProgram; without it the course is
// ProgramStandIn.
func UnknownProgramOf(ann map[string]string) (Program, error) {
	raw := ann[UnknownProgram]
	v := strings.TrimSpace(raw)
	switch {
	case v == "" || v == ProgramStandIn:
		return Program{Mode: ProgramStandIn}, nil
	case v == ProgramIdle:
		return Program{Mode: ProgramIdle}, nil
	case strings.HasPrefix(v, ProgramExit+" "):
		n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(v, ProgramExit)), 10, 32)
		if err == nil {
			return Program{Mode: ProgramExit, Code: int32(n)}, nil
		}
	}
	return Program{}, &ValueError{Key: UnknownProgram, Value: raw,
		Want: fmt.Sprintf("%s, %s or %s CODE", ProgramStandIn, ProgramIdle, ProgramExit)}
}

// RunSecondsOf reads RunSeconds: a number of seconds, zero or more; set is
// false without the annotation.
func RunSecondsOf(ann map[string]string) (secs float64, set bool, err error) {
	v, ok := ann[RunSeconds]
	if !ok {
		return 0, false, nil
	}
	s, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || s < 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return 0, false, &ValueError{Key: RunSeconds, Value: v, Want: "a number of seconds, 0 or more (e.g. 10 or 2.5)"}
	}
	return s, true, nil
}

// ExitCodeOf reads ExitCode: an exit code as the API's container status
// holds it (a 32-bit integer); set is false without the annotation.
func ExitCodeOf(ann map[string]string) (code int32, set bool, err error) {
	v, ok := ann[ExitCode]
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return 0, false, &ValueError{Key: ExitCode, Value: v, Want: "an integer exit code (e.g. 1)"}
	}
	return int32(n), true, nil
}

// IgnoresSIGTERM reads IgnoreSIGTERM: true or false (as strconv.ParseBool
// reads them); false without the annotation.
func IgnoresSIGTERM(ann map[string]string) (bool, error) {
	v, ok := ann[IgnoreSIGTERM]
	if !ok {
		return false, nil
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return false, &ValueError{Key: IgnoreSIGTERM, Value: v, Want: `"true" or "false"`}
	}
	return b, nil
}

// UsageOf reads UsageCPU or UsageMemory (key): a quantity, zero or more;
// set is false without the annotation.
func UsageOf(ann map[string]string, key string) (q resource.Quantity, set bool, err error) {
	v, ok := ann[key]
	if !ok {
		return q, false, nil
	}
	q, err = resource.ParseQuantity(strings.TrimSpace(v))
	if err != nil || q.Sign() < 0 {
		want := `a quantity for the whole pod, 0 or more (e.g. "750m" or "1")`
		if key == UsageMemory {
			want = `a quantity of bytes for the whole pod, 0 or more (e.g. "300Mi")`
		}
		return resource.Quantity{}, false, &ValueError{Key: key, Value: v, Want: want}
	}
	return q, true, nil
}

// PodValueErrors checks every pod annotation above whose value can be
// wrong, in a fixed order: the emulated node refuses a pod's containers
// with the first, and lint and the webhook report each.
func PodValueErrors(ann map[string]string) []*ValueError {
	var out []*ValueError
	add := func(err error) {
		if ve, ok := err.(*ValueError); ok {
			out = append(out, ve)
		}
	}
	_, err := UnknownProgramOf(ann)
	add(err)
	_, _, err = RunSecondsOf(ann)
	add(err)
	_, _, err = ExitCodeOf(ann)
	add(err)
	_, err = IgnoresSIGTERM(ann)
	add(err)
	_, _, err = UsageOf(ann, UsageCPU)
	add(err)
	_, _, err = UsageOf(ann, UsageMemory)
	add(err)
	return out
}

// PodKeys are the annotations the emulated node reads on a pod, which do
// nothing on any other object (a workload's own metadata, say).
var PodKeys = []string{UnknownProgram, RunSeconds, ExitCode, IgnoreSIGTERM, UsageCPU, UsageMemory, SandboxImage, ImageUsers}
