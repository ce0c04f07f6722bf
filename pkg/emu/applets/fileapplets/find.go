package fileapplets

import (
	"bufio"
	"context"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Find supports paths, then the tests -name, -iname, -path and -type
// (ANDed), -maxdepth, -mindepth, -print and -print0; no -exec or -o.
func Find(ctx context.Context, p *program.Proc) int {
	args := p.Args[1:]
	var roots []string
	for len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "!" && args[0] != "(" {
		roots = append(roots, args[0])
		args = args[1:]
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	f := finder{p: p, maxDepth: -1, w: kit.NewOut(p.Stdout)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-print" || a == "-print0" || a == "-depth" || a == "-xdev" || a == "-follow" {
			if a == "-print0" {
				f.nul = true
			}
			continue
		}
		if i+1 >= len(args) {
			kit.Errorf(p, "%s requires an argument", a) // bb_msg_requires_arg
			return 1
		}
		v := args[i+1]
		i++
		switch a {
		case "-name", "-iname", "-path", "-type":
			f.tests = append(f.tests, [2]string{a, v})
		case "-maxdepth", "-mindepth":
			n, err := strconv.Atoi(v)
			if err != nil {
				kit.Errorf(p, "invalid number '%s'", v)
				return 1
			}
			if a == "-maxdepth" {
				f.maxDepth = n
			} else {
				f.minDepth = n
			}
		default:
			kit.Errorf(p, "unrecognized: %s", a)
			return 1
		}
	}
	status := 0
	for _, r := range roots {
		info, err := p.Sys.FS.Lstat(kit.Abs(p, r))
		if err != nil {
			kit.Errorf(p, "%s: %s", r, kit.ErrText(err))
			status = 1
			continue
		}
		if !f.walk(ctx, r, kit.Abs(p, r), info, 0) {
			break
		}
	}
	if f.w.Flush() != nil {
		return 1
	}
	return status
}

type finder struct {
	p                  *program.Proc
	tests              [][2]string
	maxDepth, minDepth int
	nul                bool
	w                  *kit.Out
}

func (f *finder) walk(ctx context.Context, shown, full string, info fs.FileInfo, depth int) bool {
	if ctx.Err() != nil {
		return false
	}
	if depth >= f.minDepth && f.match(shown, info) {
		end := "\n"
		if f.nul {
			end = "\x00"
		}
		if f.w.WriteString(shown+end) != nil {
			return false
		}
	}
	if !info.IsDir() || (f.maxDepth >= 0 && depth >= f.maxDepth) {
		return true
	}
	entries, err := f.p.Sys.FS.ReadDir(full)
	if err != nil {
		kit.Errorf(f.p, "%s: %s", shown, kit.ErrText(err))
		return true
	}
	for _, e := range entries {
		ci, err := f.p.Sys.FS.Lstat(path.Join(full, e.Name()))
		if err != nil {
			continue
		}
		if !f.walk(ctx, strings.TrimSuffix(shown, "/")+"/"+e.Name(), path.Join(full, e.Name()), ci, depth+1) {
			return false
		}
	}
	return true
}

func (f *finder) match(shown string, info fs.FileInfo) bool {
	for _, t := range f.tests {
		switch t[0] {
		case "-name":
			if ok, _ := path.Match(t[1], path.Base(shown)); !ok {
				return false
			}
		case "-iname":
			if ok, _ := path.Match(strings.ToLower(t[1]), strings.ToLower(path.Base(shown))); !ok {
				return false
			}
		case "-path":
			if ok, _ := path.Match(t[1], shown); !ok {
				return false
			}
		case "-type":
			m := info.Mode()
			kinds := map[string]bool{"f": m.IsRegular(), "d": m.IsDir(), "l": m&fs.ModeSymlink != 0,
				"c": m&fs.ModeCharDevice != 0, "p": m&fs.ModeNamedPipe != 0, "s": m&fs.ModeSocket != 0}
			if !kinds[t[1]] {
				return false
			}
		}
	}
	return true
}

// Xargs runs a command (echo by default) with stdin's words appended:
// -n N per run, -I R replacing R in each line's run, -0, -r, -t.
func Xargs(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "+n:I:0rtx")
	if !ok {
		return 1
	}
	cmd := o.Args
	if len(cmd) == 0 {
		cmd = []string{"echo"}
	}
	var items []string
	sc := bufio.NewScanner(p.Stdin)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	if o.Has('0') {
		sc.Split(splitNul)
	}
	for sc.Scan() {
		if _, set := o.Val['I']; set || o.Has('0') {
			if t := sc.Text(); t != "" || o.Has('0') {
				items = append(items, t)
			}
			continue
		}
		items = append(items, strings.Fields(sc.Text())...)
	}
	per := len(items)
	if n, set := o.Val['n']; set {
		v, err := strconv.Atoi(n)
		if err != nil || v < 1 {
			kit.Errorf(p, "invalid number '%s'", n)
			return 1
		}
		per = v
	}
	run := func(argv []string) int {
		if o.Has('t') {
			io.WriteString(p.Stderr, strings.Join(argv, " ")+"\n")
		}
		child := *p
		child.Args = argv
		child.Stdin = eofReader{}
		code, err := p.Sys.Exec(ctx, &child)
		if err != nil {
			kit.Errorf(p, "%s: No such file or directory", argv[0])
			return 127
		}
		if code != 0 {
			return 123
		}
		return 0
	}
	status := 0
	if rep, set := o.Val['I']; set {
		for _, it := range items {
			argv := make([]string, len(cmd))
			for i, c := range cmd {
				argv[i] = strings.ReplaceAll(c, rep, it)
			}
			if s := run(argv); s != 0 {
				status = s
			}
		}
		return status
	}
	if len(items) == 0 {
		if o.Has('r') {
			return 0
		}
		return run(cmd)
	}
	for i := 0; i < len(items) && ctx.Err() == nil; i += max(per, 1) {
		end := min(i+max(per, 1), len(items))
		if s := run(append(append([]string{}, cmd...), items[i:end]...)); s != 0 {
			status = s
		}
	}
	return status
}

func splitNul(data []byte, atEOF bool) (int, []byte, error) {
	for i, b := range data {
		if b == 0 {
			return i + 1, data[:i], nil
		}
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
