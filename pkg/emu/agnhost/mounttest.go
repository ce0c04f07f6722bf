package agnhost

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	"github.com/winkube/winkube/pkg/emu/agnhost/kit"
	"github.com/winkube/winkube/pkg/emu/program"
	"github.com/winkube/winkube/pkg/emu/vfs"
)

// mountTyper is what an FS may offer to tell the filesystem type of the
// mount a path is on ("tmpfs" for an emptyDir of medium Memory or a
// projected volume, "ext4", "overlay", ...). program.FS has no such
// method; without it every path reads as ext4.
type mountTyper interface {
	MountType(name string) string
}

// fsMagic are the statfs f_type numbers mounttest prints for types other
// than tmpfs, which it names.
var fsMagic = map[string]int64{
	"ext2": 0xEF53, "ext3": 0xEF53, "ext4": 0xEF53,
	"xfs": 0x58465342, "overlay": 0x794c7630, "btrfs": 0x9123683E,
	"nfs": 0x6969, "proc": 0x9fa0, "sysfs": 0x62656572, "ntfs": 0x5346544e,
}

// initialContent is what --new_file_* write and --file_content_in_loop
// waits for.
const initialContent = "mount-tester new file\n"

type mounttestFlags struct {
	fsType, fileMode, filePerm, fileOwner string
	new0644, new0666, new0660, new0777    string
	content, contentInLoop                string
	retry                                 int
	breakOnExpected                       bool
}

func mounttestSetup(fs *pflag.FlagSet) func(context.Context, *kit.App, []string) int {
	f := &mounttestFlags{}
	fs.StringVar(&f.fsType, "fs_type", "", "Path to print the fs type for")
	fs.StringVar(&f.fileMode, "file_mode", "", "Path to print the mode bits of")
	fs.StringVar(&f.filePerm, "file_perm", "", "Path to print the perms of")
	fs.StringVar(&f.fileOwner, "file_owner", "", "Path to print the owning UID and GID of")
	fs.StringVar(&f.new0644, "new_file_0644", "", "Path to write to and read from with perm 0644")
	fs.StringVar(&f.new0666, "new_file_0666", "", "Path to write to and read from with perm 0666")
	fs.StringVar(&f.new0660, "new_file_0660", "", "Path to write to and read from with perm 0660")
	fs.StringVar(&f.new0777, "new_file_0777", "", "Path to write to and read from with perm 0777")
	fs.StringVar(&f.content, "file_content", "", "Path to read the file content from")
	fs.StringVar(&f.contentInLoop, "file_content_in_loop", "", "Path to read the file content in loop from")
	fs.IntVar(&f.retry, "retry_time", 180, "Retry time during the loop")
	fs.BoolVar(&f.breakOnExpected, "break_on_expected_content", true, "Break out of loop on expected content, (use with --file_content_in_loop flag only)")
	return func(ctx context.Context, a *kit.App, _ []string) int { return mounttest(ctx, &mt{p: a.P}, f) }
}

// mt is one mounttest run; failed records that a step failed.
type mt struct {
	p      *program.Proc
	failed bool
}

// mounttest runs the steps in the real tool's order, which tests rely on:
// fs type, new files, mode, perms, owner, content, content in a loop.
func mounttest(ctx context.Context, m *mt, f *mounttestFlags) int {
	m.fsType(f.fsType)
	m.newFile(f.new0644, 0o644)
	m.newFile(f.new0666, 0o666)
	m.newFile(f.new0660, 0o660)
	m.newFile(f.new0777, 0o777)
	m.mode(f.fileMode, "mode")
	m.mode(f.filePerm, "perms")
	m.owner(f.fileOwner)
	m.content(f.content)
	m.loop(ctx, f.contentInLoop, f.retry, f.breakOnExpected)
	if m.failed {
		return 1
	}
	return 0
}

func (m *mt) Printf(format string, args ...any) { fmt.Fprintf(m.p.Stdout, format, args...) }

func (m *mt) abs(path string) string { return m.p.Sys.FS.Abs(m.p.Dir, path) }

// errnoText is a bare syscall error as Go words it (statfs, stat).
func errnoText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// fsType prints the mount type; Windows does nothing (only NTFS).
func (m *mt) fsType(path string) {
	if path == "" || m.p.Sys.Windows {
		return
	}
	if _, err := m.p.Sys.FS.Stat(m.abs(path)); err != nil {
		m.Printf("error from statfs(%q): %v\n", path, errnoText(err))
		m.failed = true
		return
	}
	typ := "ext4"
	if typer, ok := m.p.Sys.FS.(mountTyper); ok {
		typ = typer.MountType(m.abs(path))
	}
	if typ == vfs.Tmpfs {
		m.Printf("mount type of %q: tmpfs\n", path)
		return
	}
	magic, ok := fsMagic[typ]
	if !ok {
		magic = fsMagic["ext4"]
	}
	m.Printf("mount type of %q: %s\n", path, strconv.FormatInt(magic, 10))
}

// newFile writes initialContent with perm under a cleared umask, then
// prints the content back. The FS applies its own umask, so a file the
// write created gets perm set afterwards.
func (m *mt) newFile(path string, perm fs.FileMode) {
	if path == "" {
		return
	}
	_, statErr := m.p.Sys.FS.Stat(m.abs(path))
	if err := kit.WriteFile(m.p, path, []byte(initialContent), perm); err != nil {
		m.Printf("error writing new file %q: %v\n", path, kit.GoError(m.p, err))
		m.failed = true
		return
	}
	if statErr != nil {
		_ = m.p.Sys.FS.Chmod(m.abs(path), perm)
	}
	m.content(path)
}

// mode prints the mode bits ("mode") or permissions ("perms") of path.
func (m *mt) mode(path, what string) {
	if path == "" {
		return
	}
	if m.p.Sys.Windows {
		m.windowsMode(path, what)
		return
	}
	info, err := m.p.Sys.FS.Stat(m.abs(path))
	if err != nil {
		m.Printf("error from Stat(%q): %v\n", path, kit.GoError(m.p, err))
		m.failed = true
		return
	}
	if what == "perms" {
		m.Printf("perms of file %q: %v\n", path, info.Mode().Perm())
		return
	}
	m.Printf("mode of file %q: %v\n", path, info.Mode())
}

// windowsMode is the Windows tool's mode and perms alike: a PowerShell
// script turns the file's ACL into Unix-like permission bits. The
// emulated FS keeps no ACLs, so every file has the one a volume's files
// inherit.
func (m *mt) windowsMode(path, what string) {
	if _, err := m.p.Sys.FS.Stat(m.abs(path)); err != nil {
		m.Printf("error from PowerShell Script: exit status 1, Get-Acl : Cannot find path '%s' because it does not exist.\n", m.abs(path))
		m.failed = true
		return
	}
	m.Printf("%s of Windows file %q: %v\n", what, path, aclMode(volumeFileACL))
}

// owner prints the owning uid and gid; Windows prints nothing.
func (m *mt) owner(path string) {
	if path == "" || m.p.Sys.Windows {
		return
	}
	info, err := m.p.Sys.FS.Stat(m.abs(path))
	if err != nil {
		m.Printf("error from stat(%q): %v\n", path, errnoText(err))
		m.failed = true
		return
	}
	var uid, gid int64
	if o, ok := info.Sys().(program.FileOwner); ok {
		uid, gid = o.Owner()
	}
	m.Printf("owner UID of %q: %v\n", path, uid)
	m.Printf("owner GID of %q: %v\n", path, gid)
}

func (m *mt) content(path string) {
	if path == "" {
		return
	}
	data, err := kit.ReadFile(m.p, path)
	if err != nil {
		m.Printf("error reading file content for %q: %v\n", path, kit.GoError(m.p, err))
		m.failed = true
		return
	}
	m.Printf("content of file %q: %v\n", path, string(data))
}

// loop reads path every 2s for retry seconds, until it holds
// initialContent when breakOnExpected; the last read's error decides.
func (m *mt) loop(ctx context.Context, path string, retry int, breakOnExpected bool) {
	if path == "" {
		return
	}
	clock := m.p.Sys.Clock
	var err error
	for start := clock.Now(); clock.Now().Sub(start) < time.Duration(retry)*time.Second; {
		var data []byte
		data, err = kit.ReadFile(m.p, path)
		switch {
		case err != nil:
			m.Printf("Error reading file %s: %v, retrying\n", path, kit.GoError(m.p, err))
		case !breakOnExpected:
			m.Printf("content of file %q: %v\n", path, string(data))
		case string(data) != initialContent:
			m.Printf("content of file %q: %v\n", path, string(data))
			m.Printf("Unexpected content. Expected: %s. Retrying\n", initialContent)
		default:
			m.Printf("content of file %q: %v\n", path, string(data))
			return
		}
		if !m.p.Sys.Sleep(ctx, 2*time.Second) {
			return
		}
	}
	if err != nil {
		m.failed = true
	}
}
