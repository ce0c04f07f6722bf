package fluentbit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/winkube/winkube/pkg/emu/fluentbit/conf"
)

// tailInput is in_tail: the files Path's globs name, each followed from
// its end (or its head with Read_from_Head, and for every file found
// after start), looked for again every Refresh_Interval. The emulated
// filesystem has no inotify, so appended lines are read at the
// engine's tick.
type tailInput struct {
	paths, exclude []string
	head           bool
	refresh        time.Duration
	nextScan       time.Time
	key, pathKey   string
	parser         *parser
	ml             []*mlParser
	files          map[string]*tailFile
	scanned        bool
}

type tailFile struct {
	offset  int64
	partial string
}

func (t *tailInput) init(in *inputInstance) error {
	for _, p := range in.props.All("Path") {
		for _, one := range strings.Split(in.e.expand(p), ",") {
			if one = strings.TrimSpace(one); one != "" {
				t.paths = append(t.paths, one)
			}
		}
	}
	if len(t.paths) == 0 {
		return fmt.Errorf("no input 'path' was given")
	}
	if v, ok := in.prop("Exclude_Path"); ok {
		for _, one := range strings.Split(v, ",") {
			t.exclude = append(t.exclude, strings.TrimSpace(one))
		}
	}
	t.head = isTrue(in.propOr("Read_from_Head", "false"))
	t.refresh = 60 * time.Second
	if v, ok := in.prop("Refresh_Interval"); ok {
		if s, err := strconv.ParseFloat(strings.TrimSuffix(v, "s"), 64); err == nil && s > 0 {
			t.refresh = time.Duration(s * float64(time.Second))
		}
	}
	t.key = in.propOr("Key", "log")
	t.pathKey, _ = in.prop("Path_Key")
	if name, ok := in.prop("Parser"); ok {
		p, found := in.e.parsers[name]
		if !found {
			return fmt.Errorf("parser '%s' is not registered", name)
		}
		t.parser = p
	}
	for _, v := range in.props.All("multiline.parser") {
		for _, name := range strings.Split(in.e.expand(v), ",") {
			name = strings.TrimSpace(name)
			switch name {
			case "docker", "cri":
				t.ml = append(t.ml, &mlParser{name: name})
			case "":
			default:
				in.once("input", "ml:"+name, levelWarn, fmt.Sprintf("winkube: multiline parser '%s' is not emulated; its lines pass as they are", name))
			}
		}
	}
	if isTrue(in.propOr("Docker_Mode", "off")) {
		in.once("input", "dockermode", levelWarn, "winkube: Docker_Mode is not emulated; use multiline.parser docker, cri")
	}
	t.files = map[string]*tailFile{}
	in.interval = tick
	t.scan(in, in.e.p.Sys.Clock.Now())
	return nil
}

// scan looks for files the globs name now: new ones are followed,
// vanished ones forgotten.
func (t *tailInput) scan(in *inputInstance, now time.Time) {
	t.nextScan = now.Add(t.refresh)
	found := map[string]bool{}
	for _, pattern := range t.paths {
		for _, name := range conf.Glob(in.e.p.Sys, pattern) {
			if t.excluded(in, name) {
				continue
			}
			if st, err := in.e.p.Sys.FS.Stat(in.e.p.Sys.FS.Abs("/", name)); err != nil || st.IsDir() {
				continue
			}
			found[name] = true
			if _, ok := t.files[name]; ok {
				continue
			}
			f := &tailFile{}
			if !t.head && !t.scanned {
				if st, err := in.e.p.Sys.FS.Stat(in.e.p.Sys.FS.Abs("/", name)); err == nil {
					f.offset = st.Size()
				}
			}
			t.files[name] = f
			in.e.log.debugf("%s inotify_fs_add(): name=%s", in.logPrefix("input"), name)
		}
	}
	for name := range t.files {
		if !found[name] {
			delete(t.files, name)
			in.e.log.debugf("%s inotify_fs_remove(): name=%s", in.logPrefix("input"), name)
		}
	}
	if !t.scanned && len(found) == 0 {
		for _, pattern := range t.paths {
			in.e.log.debugf("%s cannot read info from: %s", in.logPrefix("input"), pattern)
		}
	}
	t.scanned = true
}

func (t *tailInput) excluded(in *inputInstance, name string) bool {
	base := name[strings.LastIndexAny(name, `/\`)+1:]
	for _, ex := range t.exclude {
		exBase := ex[strings.LastIndexAny(ex, `/\`)+1:]
		if conf.MatchName(in.e.p.Sys.Windows, ex, name) || conf.MatchName(in.e.p.Sys.Windows, exBase, base) {
			return true
		}
	}
	return false
}

func (t *tailInput) collect(in *inputInstance, now time.Time) []*record {
	if !now.Before(t.nextScan) {
		t.scan(in, now)
	}
	var out []*record
	for _, name := range sortedNames(t.files) {
		f := t.files[name]
		data, off := readFrom(in, name, f.offset)
		if off < f.offset {
			f.partial = ""
		}
		f.offset = off
		if len(data) == 0 {
			continue
		}
		text := f.partial + string(data)
		lines := strings.Split(text, "\n")
		f.partial = lines[len(lines)-1]
		for _, line := range lines[:len(lines)-1] {
			if r := t.record(in, name, strings.TrimSuffix(line, "\r")); r != nil {
				out = append(out, r)
			}
		}
	}
	return out
}

// record is one line's record: through the multiline parsers or the
// Parser when set, else the line under Key.
func (t *tailInput) record(in *inputInstance, name, line string) *record {
	r := &record{tag: tagFor(in.tag, name)}
	for _, m := range t.ml {
		if full, ok := m.feed(name, line, r); ok {
			if full != nil && t.pathKey != "" {
				full.body = append([]field{{t.pathKey, name}}, full.body...)
			}
			return full
		}
	}
	if t.parser != nil {
		if body, tm, ok := t.parser.parse(line); ok {
			r.body, r.time = body, tm
			if t.pathKey != "" {
				r.body = append(r.body, field{t.pathKey, name})
			}
			return r
		}
		if t.parser.reErr != nil {
			in.once("input", "re:"+t.parser.name, levelWarn, fmt.Sprintf("winkube: parser '%s' uses regex syntax RE2 lacks (%v); its lines pass as they are", t.parser.name, t.parser.reErr))
		}
	}
	if t.pathKey != "" {
		r.body = append(r.body, field{t.pathKey, name})
	}
	r.body = append(r.body, field{t.key, line})
	return r
}

// tagFor is tail's tag expansion: a * in the tag is the file's path with
// /, \ and : made dots (repeated dots, and any at either end, dropped).
func tagFor(tag, name string) string {
	i := strings.IndexByte(tag, '*')
	if i < 0 {
		return tag
	}
	s := tag[:i] + name + tag[i+1:]
	var b strings.Builder
	for k := 0; k < len(s); k++ {
		c := s[k]
		if c == '/' || c == '\\' || c == ':' {
			if b.Len() == 0 {
				continue
			}
			c = '.'
		}
		if c == '*' {
			continue
		}
		if c == '.' && strings.HasSuffix(b.String(), ".") {
			continue
		}
		b.WriteByte(c)
	}
	return strings.TrimSuffix(b.String(), ".")
}
