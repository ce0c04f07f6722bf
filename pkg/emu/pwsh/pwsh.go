// Package pwsh is PowerShell: powershell.exe (Windows PowerShell 5.1)
// and pwsh (PowerShell 7) running -Command, -File, -EncodedCommand or
// commands read from stdin. It is a small interpreter: a context-aware
// lexer, a recursive-descent parser and an evaluator with the common
// cmdlets; what it cannot follow it says so (Unsupported, and a
// "not emulated" message with exit code 1), never skipping it.
package pwsh

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/pwsh/lang"
)

// Main is powershell.exe and pwsh (told apart by the name invoked).
func Main(ctx context.Context, p *program.Proc) int {
	pwsh7 := program.Name(p.Args[0]) == "pwsh"
	inv, err := parseCLI(p.Args[1:], pwsh7)
	if err != nil {
		fmt.Fprint(p.Stderr, err.Error()+nl)
		return 64
	}
	i := newInterp(p, pwsh7)
	defer i.release()
	switch {
	case inv.file != "":
		return i.runFile(ctx, inv.file, inv.fileArgs)
	case inv.command == "-":
		b, _ := io.ReadAll(p.Stdin)
		return i.runCommand(ctx, string(b))
	case inv.hasCommand:
		return i.runCommand(ctx, inv.command)
	}
	return i.interact(ctx, inv.noLogo)
}

// Run runs a script as powershell -Command does and returns the exit
// code.
func Run(ctx context.Context, p *program.Proc, script string) int {
	i := newInterp(p, program.Name(p.Args[0]) == "pwsh")
	defer i.release()
	return i.runCommand(ctx, script)
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
// pwsh7Version is the PowerShell 7 the pwsh images ship.
const pwsh7Version = "7.4.6"

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

// runCommand runs -Command text: the exit code is that of exit, else 0
// or 1 as the last statement succeeded.
func (i *interp) runCommand(ctx context.Context, script string) int {
	list, err := lang.ParseStatements(script)
	i.src = []rune(script)
	if err != nil {
		return i.parseError(err, script)
	}
	code, exited, err := i.runScript(ctx, list)
	switch {
	case i.reportNotEmulated(err):
		return 1
	case exited:
		return code
	case code != 0 || !i.ok:
		return 1
	}
	return 0
}

// runFile runs -File: exit N, or 0 unless a terminating error ended it.
func (i *interp) runFile(ctx context.Context, name string, args []string) int {
	path := i.abs(name)
	b, err := i.readFile(path)
	if err != nil {
		fmt.Fprintf(i.p.Stderr, "The argument '%s' to the -File parameter does not exist. Provide the path to an existing '.ps1' file as an argument to the -File parameter.%s", name, nl)
		return 64
	}
	text := decodeText(b)
	list, err := lang.ParseStatements(text)
	i.src = []rune(text)
	if err != nil {
		return i.parseError(err, text)
	}
	plain := make([]any, len(args))
	for k, a := range args {
		plain[k] = a
	}
	i.scopes[0]["args"] = plain
	code, _, err := i.runScript(ctx, list)
	if i.reportNotEmulated(err) {
		return 1
	}
	return code
}

func (i *interp) reportNotEmulated(err error) bool {
	var ne *notEmulatedError
	if errors.As(err, &ne) {
		fmt.Fprintf(i.p.Stderr, "winkube: %s%s", ne.Error(), nl)
		return true
	}
	return err != nil
}

// parseError reports a script that does not parse; nothing of it runs.
func (i *interp) parseError(err error, text string) int {
	var re *runtimeError
	if errors.As(i.parseFailure(err, text), &re) {
		re.rec.cmdName = ""
		re.rec.reason = "ParseException"
		i.errOut(re.rec)
		return 1
	}
	i.reportNotEmulated(i.parseFailure(err, text))
	return 1
}

// interact reads statements from stdin, with a prompt on a terminal.
func (i *interp) interact(ctx context.Context, noLogo bool) int {
	if i.p.TTY && !noLogo {
		if i.pwsh7 {
			fmt.Fprintf(i.out, "PowerShell %s%s", pwsh7Version, nl)
		} else {
			fmt.Fprintf(i.out, "Windows PowerShell%sCopyright (C) Microsoft Corporation. All rights reserved.%s%sInstall the latest PowerShell for new features and improvements! https://aka.ms/PSWindows%s%s", nl, nl, nl, nl, nl)
		}
	}
	r := bufio.NewReader(i.p.Stdin)
	pending := ""
	for ctx.Err() == nil {
		if i.p.TTY {
			if pending == "" {
				fmt.Fprintf(i.out, "PS %s> ", i.location())
			} else {
				io.WriteString(i.out, ">> ")
			}
		}
		line, err := r.ReadString('\n')
		text := pending + strings.TrimRight(line, "\r\n") + "\n"
		list, perr := lang.ParseStatements(text)
		if perr != nil && err == nil && incomplete(perr, text) {
			pending = text
			continue
		}
		pending = ""
		i.src = []rune(text)
		if perr != nil {
			i.parseError(perr, text)
		} else if code, exited, rerr := i.runScript(ctx, list); exited {
			return code
		} else if i.reportNotEmulated(rerr) {
			return 1
		}
		if err != nil {
			break
		}
	}
	if i.ok {
		return 0
	}
	return 1
}

// incomplete tells a statement cut by the end of a line (an open brace
// or string) from a real syntax error.
func incomplete(err error, text string) bool {
	var se *lang.SyntaxError
	return errors.As(err, &se) && se.Pos >= len([]rune(strings.TrimRight(text, "\n")))
}
