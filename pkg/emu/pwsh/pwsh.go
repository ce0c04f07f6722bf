// Package pwsh is PowerShell: powershell.exe (Windows PowerShell 5.1)
// and pwsh (PowerShell 7) running -Command, -File, -EncodedCommand or
// commands read from stdin. It is a small interpreter: a context-aware
// lexer, a recursive-descent parser and an evaluator with the common
// cmdlets; what it cannot follow it says so (Unsupported, and a
// "not emulated" message with exit code 1), never skipping it.
//
// This package is the command line; the interpreter is in layers below
// it: lang (the language), values, engine (the evaluator and the
// registries), the cmdlet families that register into the engine
// (utilcmd, fscmd, netcmd, eventcmd, streams), and check (Unsupported).
// Importing pwsh imports every family.
package pwsh

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/check"
	"github.com/winkube/winkube/pkg/emu/pwsh/engine"
	"github.com/winkube/winkube/pkg/emu/pwsh/values"

	// The cmdlet families register their cmdlets and types with the
	// engine when imported.
	_ "github.com/winkube/winkube/pkg/emu/pwsh/bind"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/eventcmd"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/fscmd"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/netcmd"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/statics"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/streams"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/switchstmt"
	_ "github.com/winkube/winkube/pkg/emu/pwsh/utilcmd"
)

// Main is powershell.exe and pwsh (told apart by the name invoked).
func Main(ctx context.Context, p *program.Proc) int {
	pwsh7 := program.Name(p.Args[0]) == "pwsh"
	inv, err := parseCLI(p.Args[1:], pwsh7)
	if err != nil {
		fmt.Fprint(p.Stderr, err.Error()+values.NL)
		return 64
	}
	i := engine.NewInterp(p, pwsh7)
	defer i.Release()
	switch {
	case inv.file != "":
		return i.RunFile(ctx, inv.file, fileArgs(inv.fileArgs, pwsh7))
	case inv.command == "-":
		b, _ := io.ReadAll(p.Stdin)
		return i.RunCommand(ctx, string(b))
	case inv.hasCommand:
		return i.RunCommand(ctx, inv.command)
	}
	return i.Interact(ctx, inv.noLogo)
}

// Run runs a script as powershell -Command does and returns the exit
// code.
func Run(ctx context.Context, p *program.Proc, script string) int {
	i := engine.NewInterp(p, program.Name(p.Args[0]) == "pwsh")
	defer i.Release()
	return i.RunCommand(ctx, script)
}

// invocation is what the command line asks for.
type invocation struct {
	command    string
	hasCommand bool
	file       string
	fileArgs   []string
	noLogo     bool
}

// cliParams are powershell.exe's parameters; any unique prefix works,
// after - or /.
var cliParams = []string{"command", "encodedcommand", "file", "noprofile", "noninteractive", "nologo", "noexit",
	"executionpolicy", "inputformat", "outputformat", "windowstyle", "sta", "mta", "version", "configurationname",
	"workingdirectory", "login", "settingsfile", "custompipename", "help", "?"}

var valued = map[string]bool{"executionpolicy": true, "inputformat": true, "outputformat": true, "windowstyle": true,
	"version": true, "configurationname": true, "workingdirectory": true, "settingsfile": true, "custompipename": true}

func cliParam(arg string) string {
	if len(arg) < 2 || (arg[0] != '-' && arg[0] != '/') {
		return ""
	}
	name := strings.ToLower(strings.TrimLeft(arg, "-/"))
	switch name {
	case "c":
		return "command"
	case "e", "ec", "enc":
		return "encodedcommand"
	case "f":
		return "file"
	case "ep", "ex":
		return "executionpolicy"
	case "wd":
		return "workingdirectory"
	}
	match := ""
	for _, p := range cliParams {
		if strings.HasPrefix(p, name) {
			if match != "" {
				return "?ambiguous"
			}
			match = p
		}
	}
	return match
}

func parseCLI(args []string, pwsh7 bool) (invocation, error) {
	var inv invocation
	for k := 0; k < len(args); k++ {
		name := cliParam(args[k])
		switch {
		case name == "" || name == "?ambiguous":
			if pwsh7 && name == "" { // pwsh: a bare first argument is a script file
				inv.file, inv.fileArgs = args[k], args[k+1:]
				return inv, nil
			}
			if name == "?ambiguous" {
				return inv, fmt.Errorf("Cannot process the command because of a missing parameter. A command must follow -Command.")
			}
			inv.command, inv.hasCommand = strings.Join(args[k:], " "), true
			return inv, nil
		case name == "command":
			inv.command, inv.hasCommand = strings.Join(args[k+1:], " "), true
			return inv, nil
		case name == "encodedcommand":
			if k+1 >= len(args) {
				return inv, errors.New("Cannot process the command because -EncodedCommand requires an argument.")
			}
			s, err := decodeCommand(args[k+1])
			if err != nil {
				return inv, errors.New("Cannot process the command because the value specified with -EncodedCommand is not properly encoded. The value must be Base64 encoded.")
			}
			inv.command, inv.hasCommand = s, true
			k++
		case name == "file":
			if k+1 >= len(args) {
				return inv, errors.New("Missing the argument for -File.")
			}
			inv.file, inv.fileArgs = args[k+1], args[k+2:]
			return inv, nil
		case name == "nologo":
			inv.noLogo = true
		case valued[name]:
			k++
		}
	}
	return inv, nil
}

// fileArgs are the arguments after -File script.ps1 as the script's
// parameters take them (ConsoleHost's CollectPSArgs): an argument that
// starts with a dash names a parameter, -Name:value gives it a value
// (-Name: takes the next argument), and the rest are strings.
// PowerShell 7 reads true, $true, false and $false after the colon as
// booleans, so that -Switch:$false works.
func fileArgs(args []string, pwsh7 bool) []engine.Arg {
	var out []engine.Arg
	for k := 0; k < len(args); k++ {
		a := args[k]
		r := []rune(a)
		if len(r) < 2 || !isDash(r[0]) {
			out = append(out, engine.Arg{Value: a})
			continue
		}
		name, val, attached := strings.Cut(string(r[1:]), ":")
		arg := engine.Arg{Param: name, IsParam: true, Attached: attached}
		switch {
		case attached && val == "" && k+1 < len(args):
			k++
			arg.Value = args[k]
		case attached:
			arg.Value = val
			if word := strings.TrimSpace(strings.TrimPrefix(val, "$")); pwsh7 && (strings.EqualFold(word, "true") || strings.EqualFold(word, "false")) {
				arg.Value = strings.EqualFold(word, "true")
			}
		}
		out = append(out, arg)
	}
	return out
}

func isDash(c rune) bool { return c == '-' || c == '–' || c == '—' || c == '―' }

// decodeCommand reads -EncodedCommand: base64 of UTF-16LE text.
func decodeCommand(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b)%2 != 0 {
		return "", errors.New("bad encoding")
	}
	u := make([]uint16, len(b)/2)
	for k := range u {
		u[k] = uint16(b[2*k]) | uint16(b[2*k+1])<<8
	}
	return string(utf16.Decode(u)), nil
}

// UnsupportedCommand is Unsupported for the script of a powershell or
// pwsh command line (-Command, -EncodedCommand); "" when argv runs no
// such script or the script is fully emulated.
func UnsupportedCommand(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	name := program.Name(argv[0])
	if name == "logmonitor" {
		// LogMonitor.exe [/CONFIG name] runs the rest as its child.
		if len(argv) >= 3 && strings.EqualFold(argv[1], "/config") {
			return UnsupportedCommand(argv[3:])
		}
		return UnsupportedCommand(argv[1:])
	}
	if name != "powershell" && name != "pwsh" {
		return ""
	}
	inv, err := parseCLI(argv[1:], name == "pwsh")
	if err != nil || !inv.hasCommand || inv.command == "-" {
		return ""
	}
	return check.UnsupportedIn(inv.command, name == "pwsh")
}
