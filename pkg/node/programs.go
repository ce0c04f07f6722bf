package node

import (
	"github.com/winkube/winkube/pkg/emu/agnhost"
	"github.com/winkube/winkube/pkg/emu/applets"
	"github.com/winkube/winkube/pkg/emu/archive"
	"github.com/winkube/winkube/pkg/emu/daemons"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/sh"
	"github.com/winkube/winkube/pkg/emu/winexe"
)

// The program tables are built once; imagePrograms copies what an image
// offers from them.
var (
	linuxTable   = buildLinuxTable()
	windowsTable = winexe.Table()
	agnhostProgs = agnhost.Table()
	daemonProgs  = daemons.Table()
)

// buildLinuxTable is a busybox userland: the shell and its applets.
func buildLinuxTable() map[string]program.Main {
	t := applets.Table()
	for _, name := range []string{"sh", "bash", "ash", "dash"} {
		t[name] = sh.Main
	}
	t["tar"] = archive.Tar
	return t
}

func linuxUserland() map[string]program.Main   { return linuxTable }
func windowsUserland() map[string]program.Main { return windowsTable }
func agnhostTable() map[string]program.Main    { return agnhostProgs }
func daemonsTable() map[string]program.Main    { return daemonProgs }
