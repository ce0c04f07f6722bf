package textapplets

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// ranges is a cut list: 1,3-5,-2,7-.
type ranges [][2]int

func parseRanges(s string) (ranges, bool) {
	var out ranges
	for _, part := range strings.Split(s, ",") {
		lo, hi, dash := strings.Cut(part, "-")
		a, b := 1, 1<<30
		var err error
		if lo != "" {
			if a, err = strconv.Atoi(lo); err != nil || a < 1 {
				return nil, false
			}
		}
		switch {
		case !dash:
			b = a
		case hi != "":
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, false
			}
		}
		if lo == "" && !dash {
			return nil, false
		}
		out = append(out, [2]int{a, b})
	}
	return out, true
}

func (r ranges) Has(i int) bool {
	for _, x := range r {
		if i >= x[0] && i <= x[1] {
			return true
		}
	}
	return false
}

// Cut is the cut applet.
func Cut(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "d:f:c:b:sn")
	if !ok {
		return 1
	}
	list, mode := "", byte(0)
	for _, c := range []byte("fcb") {
		if v, set := o.Val[c]; set {
			list, mode = v, c
		}
	}
	if mode == 0 {
		kit.Errorf(p, "expected a list of bytes, characters, or fields")
		return 1
	}
	r, good := parseRanges(list)
	if !good {
		kit.Errorf(p, "invalid list '%s'", list)
		return 1
	}
	delim := "\t"
	if d, set := o.Val['d']; set {
		if len(d) > 1 {
			kit.Errorf(p, "the delimiter must be a single character")
			return 1
		}
		delim = d
		if delim == "" {
			delim = "\x00"
		}
	}
	w := kit.NewOut(p.Stdout)
	status := kit.EachFile(p, o.Args, func(_ string, in io.Reader) error {
		return kit.Lines(in, func(line string) error {
			text := strings.TrimSuffix(line, "\n")
			var outLine string
			if mode == 'f' {
				if !strings.Contains(text, delim) {
					if o.Has('s') {
						return nil
					}
					return w.WriteString(text + "\n")
				}
				var keep []string
				for i, f := range strings.Split(text, delim) {
					if r.Has(i + 1) {
						keep = append(keep, f)
					}
				}
				outLine = strings.Join(keep, delim)
			} else {
				var b strings.Builder
				for i := 0; i < len(text); i++ {
					if r.Has(i + 1) {
						b.WriteByte(text[i])
					}
				}
				outLine = b.String()
			}
			return w.WriteString(outLine + "\n")
		})
	})
	if w.Flush() != nil {
		return 1
	}
	return status
}

// trSet expands a tr set: ranges a-z, escapes, and [:class:]es.
func trSet(s string) []byte {
	classes := map[string]string{
		"upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz",
		"digit": "0123456789", "space": " \t\n\r\v\f", "blank": " \t",
		"punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
	}
	classes["alpha"] = classes["upper"] + classes["lower"]
	classes["alnum"] = classes["alpha"] + classes["digit"]
	classes["xdigit"] = classes["digit"] + "ABCDEFabcdef"
	s, _ = kit.Unescape(s, true)
	var out []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '[' && i+1 < len(s) && s[i+1] == ':' {
			if end := strings.Index(s[i:], ":]"); end > 0 {
				if c, ok := classes[s[i+2:i+end]]; ok {
					out = append(out, c...)
					i += end + 1
					continue
				}
			}
		}
		if i+2 < len(s) && s[i+1] == '-' && s[i+2] >= s[i] {
			for c := int(s[i]); c <= int(s[i+2]); c++ {
				out = append(out, byte(c))
			}
			i += 2
			continue
		}
		out = append(out, s[i])
	}
	return out
}

// Tr is the tr applet.
func Tr(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "dscC")
	if !ok {
		return 1
	}
	if len(o.Args) == 0 || (!o.Has('d') && !o.Has('s') && len(o.Args) < 2) {
		kit.Errorf(p, "missing operand")
		return 1
	}
	var in [256]bool
	for _, c := range trSet(o.Args[0]) {
		in[c] = true
	}
	if o.Has('c') || o.Has('C') {
		for i := range in {
			in[i] = !in[i]
		}
	}
	var mapping [256]int
	for i := range mapping {
		mapping[i] = i
	}
	var squeeze [256]bool
	if len(o.Args) > 1 && !o.Has('d') {
		from, to := trSet(o.Args[0]), trSet(o.Args[1])
		if o.Has('c') || o.Has('C') {
			// -c translates every byte not in STRING1, in byte order.
			from = from[:0]
			for c := range in {
				if in[c] {
					from = append(from, byte(c))
				}
			}
		}
		for i, c := range from {
			if len(to) > 0 {
				mapping[c] = int(to[min(i, len(to)-1)])
			}
		}
		for _, c := range to {
			squeeze[c] = true
		}
	} else if o.Has('s') {
		src := o.Args[0]
		if len(o.Args) > 1 {
			src = o.Args[1]
		}
		for _, c := range trSet(src) {
			squeeze[c] = true
		}
	}
	w := kit.NewOut(p.Stdout)
	buf := make([]byte, 32*1024)
	last := -1
	for {
		n, err := p.Stdin.Read(buf)
		outb := make([]byte, 0, n)
		for _, c := range buf[:n] {
			if o.Has('d') && in[c] {
				continue
			}
			v := mapping[c]
			if o.Has('s') && squeeze[v] && v == last {
				continue
			}
			last = v
			outb = append(outb, byte(v))
		}
		if _, werr := w.Write(outb); werr != nil {
			return 1
		}
		if err != nil {
			break
		}
	}
	if w.Flush() != nil {
		return 1
	}
	return 0
}

// Sort sorts in memory: sort has to see every line before the first
// is printed.
func Sort(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "nrufbdt:k:o:s")
	if !ok {
		return 1
	}
	var all []string
	status := kit.EachInput(p, o.Args, func(_ string, r io.Reader) error {
		return kit.Lines(r, func(line string) error {
			all = append(all, strings.TrimSuffix(line, "\n"))
			return nil
		})
	})
	keys, good := sortKeys(o)
	if !good {
		kit.Errorf(p, "bad field specification")
		return 1
	}
	delim, _ := o.Val['t']
	// cmp compares by each key in turn; lines equal on every key compare
	// whole (reversed with -r) unless -s, as sort's last resort.
	keyCmp := func(a, b string) int {
		for _, k := range keys {
			if c := k.compare(a, b, delim); c != 0 {
				return c
			}
		}
		return 0
	}
	cmp := func(a, b string) int {
		if c := keyCmp(a, b); c != 0 || o.Has('s') {
			return c
		}
		c := strings.Compare(a, b)
		if o.Has('r') {
			c = -c
		}
		return c
	}
	sort.SliceStable(all, func(i, j int) bool { return cmp(all[i], all[j]) < 0 })
	var w io.Writer = p.Stdout
	if dst, set := o.Val['o']; set {
		f, err := kit.OpenOut(p, dst)
		if err != nil {
			kit.Errorf(p, "can't open '%s': %s", dst, kit.ErrText(err))
			return 1
		}
		defer f.Close()
		w = f
	}
	ow := kit.NewOut(w)
	for i, l := range all {
		if o.Has('u') && i > 0 && keyCmp(all[i-1], l) == 0 {
			continue
		}
		ow.WriteString(l + "\n")
	}
	if ow.Flush() != nil {
		return 1
	}
	return status
}

// sortKey is one -k START[,END] (fields from 1; END 0 is the line's
// end) with its own ordering letters, or sort's global ones when it has
// none, as POSIX has it.
type sortKey struct {
	start, end int
	opts       string
}

func sortKeys(o kit.Opts) ([]sortKey, bool) {
	global := ""
	for _, c := range []byte("nrfb") {
		if o.Has(c) {
			global += string(c)
		}
	}
	if len(o.Vals['k']) == 0 {
		return []sortKey{{start: 1, opts: global}}, true
	}
	var keys []sortKey
	for _, spec := range o.Vals['k'] {
		from, to, _ := strings.Cut(spec, ",")
		var k sortKey
		var ok bool
		if k.start, k.opts, ok = sortPos(from); !ok || k.start < 1 {
			return nil, false
		}
		if to != "" {
			var opts string
			if k.end, opts, ok = sortPos(to); !ok || k.end < 1 {
				return nil, false
			}
			k.opts += opts
		}
		if k.opts == "" {
			k.opts = global
		}
		keys = append(keys, k)
	}
	return keys, true
}

// sortPos reads F[.C][OPTS]; the character offset is not used.
func sortPos(s string) (field int, opts string, ok bool) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, _, _ := strings.Cut(s[:i], ".")
	n, err := strconv.Atoi(num)
	return n, s[i:], err == nil && strings.Trim(s[i:], "nrfbdg") == ""
}

func (k sortKey) field(s, delim string) string {
	var fields []string
	sep := " "
	if delim != "" {
		fields, sep = strings.Split(s, delim), delim
	} else {
		fields = strings.Fields(s)
	}
	if k.start > len(fields) {
		return ""
	}
	end := len(fields)
	if k.end > 0 {
		end = min(end, k.end)
	}
	if end < k.start {
		return ""
	}
	return strings.Join(fields[k.start-1:end], sep)
}

func (k sortKey) compare(a, b, delim string) int {
	ka, kb := k.field(a, delim), k.field(b, delim)
	if strings.Contains(k.opts, "b") {
		ka, kb = strings.TrimLeft(ka, " \t"), strings.TrimLeft(kb, " \t")
	}
	if strings.Contains(k.opts, "f") {
		ka, kb = strings.ToUpper(ka), strings.ToUpper(kb)
	}
	var c int
	if strings.ContainsAny(k.opts, "ng") {
		switch na, nb := leadingNum(ka), leadingNum(kb); {
		case na < nb:
			c = -1
		case na > nb:
			c = 1
		}
	} else {
		c = strings.Compare(ka, kb)
	}
	if strings.Contains(k.opts, "r") {
		c = -c
	}
	return c
}

func leadingNum(s string) float64 {
	s = strings.TrimSpace(s)
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || end == 0 && s[end] == '-') {
		end++
	}
	v, _ := strconv.ParseFloat(s[:end], 64)
	return v
}

// Uniq is the uniq applet.
func Uniq(ctx context.Context, p *program.Proc) int {
	o, ok := kit.Getopt(p, p.Args[1:], "cdui")
	if !ok {
		return 1
	}
	var out io.Writer = p.Stdout
	if len(o.Args) > 1 {
		// uniq [INPUT [OUTPUT]]: the second operand is the file to write.
		f, err := kit.OpenOut(p, o.Args[1])
		if err != nil {
			kit.Errorf(p, "can't open '%s': %s", o.Args[1], kit.ErrText(err))
			return 1
		}
		defer f.Close()
		out = f
	}
	w := kit.NewOut(out)
	var prev string
	n := 0
	flush := func() {
		if n == 0 || (o.Has('d') && n < 2) || (o.Has('u') && n > 1) {
			return
		}
		if o.Has('c') {
			w.WriteString(fmt.Sprintf("%7d %s\n", n, prev))
		} else {
			w.WriteString(prev + "\n")
		}
	}
	in := o.Args
	if len(in) > 1 {
		in = in[:1]
	}
	same := func(a, b string) bool {
		if o.Has('i') {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	status := kit.EachInput(p, in, func(_ string, r io.Reader) error {
		return kit.Lines(r, func(line string) error {
			text := strings.TrimSuffix(line, "\n")
			if n > 0 && same(text, prev) {
				n++
				return nil
			}
			flush()
			prev, n = text, 1
			return w.Err
		})
	})
	flush()
	if w.Flush() != nil {
		return 1
	}
	return status
}
