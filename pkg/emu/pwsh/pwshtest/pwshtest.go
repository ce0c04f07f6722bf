// Package pwshtest runs PowerShell scripts for the tests of the pwsh
// layers (lang, engine, the cmdlet families): a Windows container from
// wintest with every cmdlet family registered. It is for tests only.
package pwshtest

import (
	"context"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// Sys is a Windows container (wintest.Sys) with powershell and pwsh.
func Sys() *program.Sys {
	return wintest.Sys(map[string]program.Main{"powershell": pwsh.Main, "pwsh": pwsh.Main})
}

// Result is what a script run printed and its exit code.
type Result struct {
	Out, Err string
	Code     int
}

// Run runs script with powershell.exe -NoProfile -Command in sys.
func Run(sys *program.Sys, script string) Result {
	return run(sys, "powershell.exe", script)
}

// Run7 runs script with pwsh (PowerShell 7) -Command in sys.
func Run7(sys *program.Sys, script string) Result {
	return run(sys, "pwsh", script)
}

func run(sys *program.Sys, exe, script string) Result {
	out, errOut, code := wintest.Run(context.Background(), sys, pwsh.Main, "", exe, "-NoProfile", "-Command", script)
	return Result{out, errOut, code}
}

// Put writes a file into sys's C: drive.
func Put(sys *program.Sys, name, data string) {
	sys.FS.(*wintest.FS).Put(name, data)
}

// Get is a file of sys's C: drive and whether it exists.
func Get(sys *program.Sys, name string) (string, bool) {
	return sys.FS.(*wintest.FS).Get(name)
}
