package fix

import (
	"bytes"
	"fmt"
	"strings"
)

// contextLines is how many unchanged lines surround each hunk, as in diff -u.
const contextLines = 3

// maxEditDistance caps the Myers search; beyond it the changed region is
// shown as one replaced block, which is still a correct diff.
const maxEditDistance = 2000

type opKind byte

const (
	opEqual  opKind = ' '
	opDelete opKind = '-'
	opInsert opKind = '+'
)

// op is one line of an edit script.
type op struct {
	kind opKind
	text string // the line without its newline
}

// UnifiedDiff returns a unified diff ("--- a/name", "+++ b/name", "@@"
// hunks) turning a into b, or "" when they are equal.
func UnifiedDiff(name string, a, b []byte) string {
	if bytes.Equal(a, b) {
		return ""
	}
	ops := diffLines(splitLines(a), splitLines(b))
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range hunks(ops) {
		writeHunk(&out, ops, h)
	}
	return out.String()
}

// noEOL marks a last line that has no "\n", so "x" and "x\n" differ.
const noEOL = "\x00no newline"

// splitLines splits text into lines without their "\n".
func splitLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	s := string(text)
	if strings.HasSuffix(s, "\n") {
		return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	}
	return strings.Split(s+noEOL, "\n")
}

// diffLines returns an edit script from a to b. Common leading and
// trailing lines are matched first, so Myers only sees the changed middle.
func diffLines(a, b []string) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []op
	for _, l := range a[:pre] {
		ops = append(ops, op{opEqual, l})
	}
	ops = append(ops, myers(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, op{opEqual, l})
	}
	return ops
}

// myers is Myers' O(ND) shortest edit script. trace keeps, for each edit
// distance d, the furthest x reached on each diagonal k in [-d, d].
func myers(a, b []string) []op {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return replaceAll(a, b)
	}
	var trace [][]int
	prev := []int{0} // diagonal 0 before any edit (index k+d)
	for d := 0; d <= min(n+m, maxEditDistance); d++ {
		v := make([]int, 2*d+1)
		for k := -d; k <= d; k += 2 {
			x := myersStep(prev, d, k)
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[k+d] = x
			if x >= n && y >= m {
				return backtrack(append(trace, v), a, b)
			}
		}
		trace = append(trace, v)
		prev = v
	}
	return replaceAll(a, b)
}

// myersStep picks the start x on diagonal k from the previous round: a
// step down (insert) from k+1 or a step right (delete) from k-1.
func myersStep(prev []int, d, k int) int {
	if d == 0 {
		return 0
	}
	at := func(k int) int { return prev[k+d-1] } // prev covers [-(d-1), d-1]
	if k == -d || (k != d && at(k-1) < at(k+1)) {
		return at(k + 1)
	}
	return at(k-1) + 1
}

// backtrack walks the trace from the end back to the start.
func backtrack(trace [][]int, a, b []string) []op {
	x, y := len(a), len(b)
	var rev []op
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1]
		k := x - y
		at := func(k int) int { return prev[k+d-1] }
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, op{opEqual, a[x]})
		}
		if x == px {
			y--
			rev = append(rev, op{opInsert, b[y]})
		} else {
			x--
			rev = append(rev, op{opDelete, a[x]})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, op{opEqual, a[x]})
	}
	ops := make([]op, len(rev))
	for i, o := range rev {
		ops[len(rev)-1-i] = o
	}
	return ops
}

func replaceAll(a, b []string) []op {
	ops := make([]op, 0, len(a)+len(b))
	for _, l := range a {
		ops = append(ops, op{opDelete, l})
	}
	for _, l := range b {
		ops = append(ops, op{opInsert, l})
	}
	return ops
}

// hunk is a range [start, end) of the edit script.
type hunk struct{ start, end int }

// hunks groups changed lines with their context, merging groups whose
// context would touch.
func hunks(ops []op) []hunk {
	var hs []hunk
	for i, o := range ops {
		if o.kind == opEqual {
			continue
		}
		start, end := max(i-contextLines, 0), min(i+1+contextLines, len(ops))
		if n := len(hs); n > 0 && start <= hs[n-1].end {
			hs[n-1].end = end
			continue
		}
		hs = append(hs, hunk{start, end})
	}
	return hs
}

// writeHunk prints one hunk with its "@@ -a,n +b,m @@" header.
func writeHunk(out *strings.Builder, ops []op, h hunk) {
	aStart, bStart := 1, 1
	for _, o := range ops[:h.start] {
		if o.kind != opInsert {
			aStart++
		}
		if o.kind != opDelete {
			bStart++
		}
	}
	aCount, bCount := 0, 0
	var body strings.Builder
	for _, o := range ops[h.start:h.end] {
		if o.kind != opInsert {
			aCount++
		}
		if o.kind != opDelete {
			bCount++
		}
		text, last := strings.CutSuffix(o.text, noEOL)
		fmt.Fprintf(&body, "%c%s\n", o.kind, text)
		if last {
			body.WriteString("\\ No newline at end of file\n")
		}
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n%s", hunkRange(aStart, aCount), hunkRange(bStart, bCount), body.String())
}

// hunkRange formats "start,count"; an empty range names the line before.
func hunkRange(start, count int) string {
	if count == 0 {
		start--
	}
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}
