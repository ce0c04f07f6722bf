package winexe

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/program"
)

func secsDuration(n int) time.Duration { return time.Duration(n) * time.Second }

// readLines reads the lines of files (or stdin when there are none).
func readLines(p *program.Proc, files []string) ([]string, []string, error) {
	var lines, origin []string
	read := func(r io.Reader, name string) {
		s := bufio.NewScanner(r)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			lines = append(lines, strings.TrimRight(s.Text(), "\r"))
			origin = append(origin, name)
		}
	}
	if len(files) == 0 {
		read(p.Stdin, "")
		return lines, origin, nil
	}
	for _, f := range files {
		h, err := p.Sys.FS.OpenFile(p.Sys.FS.Abs(p.Dir, f), os.O_RDONLY, 0)
		if err != nil {
			return lines, origin, fmt.Errorf("FINDSTR: Cannot open %s", f)
		}
		read(h, f)
		h.Close()
	}
	return lines, origin, nil
}

// Findstr prints the lines that match: /i no case, /v not matching,
// /c:"text" a literal with spaces, /r regular expressions, /n numbers.
func Findstr(_ context.Context, p *program.Proc) int {
	var pats, files []string
	fold, invert, regex, number := false, false, false, false
	for _, a := range p.Args[1:] {
		l := strings.ToLower(a)
		switch {
		case strings.HasPrefix(l, "/c:"):
			pats = append(pats, a[3:])
		case l == "/i":
			fold = true
		case l == "/v":
			invert = true
		case l == "/r":
			regex = true
		case l == "/l":
			regex = false
		case l == "/n":
			number = true
		case strings.HasPrefix(l, "/"):
		case pats == nil:
			pats = strings.Fields(a)
		default:
			files = append(files, a)
		}
	}
	if len(pats) == 0 {
		fmt.Fprint(p.Stderr, "FINDSTR: Bad command line"+nl)
		return 2
	}
	var res []*regexp.Regexp
	for _, pat := range pats {
		if !regex {
			pat = regexp.QuoteMeta(pat)
		}
		if fold {
			pat = "(?i)" + pat
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			fmt.Fprint(p.Stderr, "FINDSTR: Bad command line"+nl)
			return 2
		}
		res = append(res, re)
	}
	lines, origin, err := readLines(p, files)
	if err != nil {
		fmt.Fprint(p.Stderr, err.Error()+nl)
	}
	found := false
	for k, line := range lines {
		m := false
		for _, re := range res {
			m = m || re.MatchString(line)
		}
		if m == invert {
			continue
		}
		found = true
		prefix := ""
		if len(files) > 1 {
			prefix = origin[k] + ":"
		}
		if number {
			prefix += fmt.Sprintf("%d:", k+1)
		}
		io.WriteString(p.Stdout, prefix+line+nl)
	}
	if !found {
		return 1
	}
	return 0
}

// More copies its input (a console pager has nothing to page here).
func More(_ context.Context, p *program.Proc) int {
	var files []string
	for _, a := range p.Args[1:] {
		if !strings.HasPrefix(a, "/") && !strings.HasPrefix(a, "+") {
			files = append(files, a)
		}
	}
	lines, _, err := readLines(p, files)
	writeLines(p.Stdout, lines)
	if err != nil {
		fmt.Fprintf(p.Stderr, "Cannot access file %s%s", p.Sys.FS.Abs(p.Dir, files[len(files)-1]), nl)
		return 1
	}
	return 0
}

// Sort sorts lines without case; /r reverses.
func Sort(_ context.Context, p *program.Proc) int {
	reverse := false
	var files []string
	for _, a := range p.Args[1:] {
		switch strings.ToLower(a) {
		case "/r", "/reverse":
			reverse = true
		default:
			if !strings.HasPrefix(a, "/") {
				files = append(files, a)
			}
		}
	}
	lines, _, err := readLines(p, files)
	if err != nil {
		fmt.Fprint(p.Stderr, "The system cannot find the file specified."+nl)
		return 1
	}
	sort.SliceStable(lines, func(a, b int) bool {
		x, y := strings.ToLower(lines[a]), strings.ToLower(lines[b])
		if reverse {
			return x > y
		}
		return x < y
	})
	writeLines(p.Stdout, lines)
	return 0
}
