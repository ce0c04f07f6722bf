package windows

import (
	"fmt"
	"strings"
)

// ContainerOS says which operating systems one container's image offers.
type ContainerOS struct {
	Path string   // e.g. "spec.containers[1]"
	OSes []string // e.g. {"windows"}, {"linux"}, {"linux","windows"}
}

// MixedPodOS implements LIM-1: one pod cannot hold both a Windows-only and a
// Linux-only container. Multi-OS images fit either side and never conflict.
func MixedPodOS(containers []ContainerOS) []Violation {
	var windowsOnly, linuxOnly []string
	for _, c := range containers {
		win, lin := hasOS(c.OSes, "windows"), hasOS(c.OSes, "linux")
		switch {
		case win && !lin:
			windowsOnly = append(windowsOnly, c.Path)
		case lin && !win:
			linuxOnly = append(linuxOnly, c.Path)
		}
	}
	if len(windowsOnly) == 0 || len(linuxOnly) == 0 {
		return nil
	}
	return []Violation{{
		Rule: "LIM-1", Path: linuxOnly[0], Severity: SeverityError,
		Message: fmt.Sprintf("Windows and Linux containers cannot share a pod: %s Windows-only, %s Linux-only",
			strings.Join(windowsOnly, ", "), strings.Join(linuxOnly, ", ")),
		Fix: "split the Windows and Linux containers into separate pods",
	}}
}

func hasOS(oses []string, want string) bool {
	for _, o := range oses {
		if strings.EqualFold(o, want) {
			return true
		}
	}
	return false
}
