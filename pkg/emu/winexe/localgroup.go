package winexe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/winkube/winkube/pkg/emu/program"
)

// netSyntax is what net.exe prints for a subcommand it does not know.
const netSyntax = "The syntax of this command is:\r\n\r\nNET\r\n" +
	"    [ ACCOUNTS | COMPUTER | CONFIG | CONTINUE | FILE | GROUP | HELP |\r\n" +
	"      HELPMSG | LOCALGROUP | PAUSE | SESSION | SHARE | START |\r\n" +
	"      STATISTICS | STOP | TIME | USE | USER | VIEW ]\r\n\r\n"

const netDone = "The command completed successfully.\r\n\r\n"

const netRule = "-------------------------------------------------------------------------------\r\n"

// Net is net.exe's localgroup subcommand: list, show, /add and /delete
// local groups of the machine (the node's, in a HostProcess container).
// Other subcommands print the syntax, as net does for one it cannot run.
func Net(_ context.Context, p *program.Proc) int {
	args := p.Args[1:]
	if len(args) == 0 || !strings.EqualFold(args[0], "localgroup") {
		fmt.Fprint(p.Stdout, netSyntax)
		return 1
	}
	groups := p.Sys.Groups
	if groups == nil {
		groups = program.NewLocalGroups()
	}
	name, action := "", ""
	for _, a := range args[1:] {
		switch {
		case strings.EqualFold(a, "/add"), strings.EqualFold(a, "/delete"), strings.EqualFold(a, "/del"):
			action = strings.ToLower(a[:4])
		case strings.HasPrefix(a, "/"):
			// /comment:"..." and /domain change nothing the emulation shows.
		case name == "":
			name = a
		}
	}
	switch {
	case name == "":
		listGroups(p.Stdout, p.Sys.Hostname, groups.Names())
		return 0
	case action == "/add":
		return netResult(p, groups.Add(name))
	case action == "/del":
		return netResult(p, groups.Delete(name))
	case !groups.Has(name):
		return netResult(p, program.ErrNoGroup)
	}
	fmt.Fprintf(p.Stdout, "Alias name     %s\r\nComment        \r\n\r\nMembers\r\n\r\n%s%s", name, netRule, netDone)
	return 0
}

func listGroups(w io.Writer, host string, names []string) {
	fmt.Fprintf(w, "\r\nAliases for \\\\%s\r\n\r\n%s", strings.ToUpper(host), netRule)
	for _, n := range names {
		fmt.Fprintf(w, "*%s\r\n", n)
	}
	fmt.Fprint(w, netDone)
}

// netResult words an outcome as net.exe does: the system error's number
// and text, exit status 2.
func netResult(p *program.Proc, err error) int {
	code := 0
	switch {
	case err == nil:
		fmt.Fprint(p.Stdout, netDone)
		return 0
	case errors.Is(err, program.ErrGroupExists):
		code = 1379
	case errors.Is(err, program.ErrNoGroup):
		code = 1376
	}
	msg := err.Error()
	fmt.Fprintf(p.Stderr, "System error %d has occurred.\r\n\r\n%s.\r\n\r\n", code, strings.ToUpper(msg[:1])+msg[1:])
	return 2
}
