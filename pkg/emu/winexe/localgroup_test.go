package winexe

import (
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

// net localgroup adds, shows, lists and deletes the machine's groups in
// net.exe's words; an existing or missing group is a system error with
// exit status 2.
func TestNetLocalgroup(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.Hostname = "win2019-1"
	sys.Groups = program.NewLocalGroups()
	if out, _, code := run(t, sys, "", "cmd", "/C", "net", "localgroup", "hpc-group", "/add"); code != 0 || out != netDone {
		t.Fatalf("add: %q (%d)", out, code)
	}
	if !sys.Groups.Has("HPC-GROUP") {
		t.Error("the group was not added")
	}
	_, errOut, code := run(t, sys, "", "net", "localgroup", "hpc-group", "/add")
	if code != 2 || errOut != "System error 1379 has occurred.\r\n\r\nThe specified local group already exists.\r\n\r\n" {
		t.Errorf("add again: %q (%d)", errOut, code)
	}
	out, _, _ := run(t, sys, "", "net", "localgroup")
	if !strings.HasPrefix(out, "\r\nAliases for \\\\WIN2019-1\r\n") || !strings.Contains(out, "*hpc-group\r\n*IIS_IUSRS\r\n") {
		t.Errorf("list:\n%s", out)
	}
	if out, _, _ := run(t, sys, "", "net", "localgroup", "hpc-group"); !strings.HasPrefix(out, "Alias name     hpc-group\r\n") {
		t.Errorf("show: %q", out)
	}
	run(t, sys, "", "net", "localgroup", "hpc-group", "/delete")
	if _, errOut, code := run(t, sys, "", "net", "localgroup", "hpc-group"); code != 2 || !strings.Contains(errOut, "System error 1376") {
		t.Errorf("show deleted: %q (%d)", errOut, code)
	}
	if out, _, code := run(t, sys, "", "net", "use"); code != 1 || !strings.HasPrefix(out, "The syntax of this command is:") {
		t.Errorf("net use: %q (%d)", out, code)
	}
}
