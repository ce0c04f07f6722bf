package fix

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	// Expected outputs are what GNU diff -u prints for the same inputs.
	tests := []struct{ a, b, want string }{{
		a: "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n",
		b: "a\nb\nX\nc\nd\ne\nf\ng\nh\nj\nk",
		want: `@@ -1,10 +1,11 @@
 a
 b
+X
 c
 d
 e
 f
 g
 h
-i
 j
+k
\ No newline at end of file
`}, {
		a: "1\n2\nX\n3\n4\n5\n6\n7\n8\n9\n10\n11\n",
		b: "1\n2\n3\n4\n5\n6\n7\n8\n9\nY\n10\n11\n",
		want: `@@ -1,6 +1,5 @@
 1
 2
-X
 3
 4
 5
@@ -8,5 +7,6 @@
 7
 8
 9
+Y
 10
 11
`}, {
		a:    "",
		b:    "new\n",
		want: "@@ -0,0 +1 @@\n+new\n",
	}}
	for _, tt := range tests {
		want := "--- a/f.yaml\n+++ b/f.yaml\n" + tt.want
		if got := UnifiedDiff("f.yaml", []byte(tt.a), []byte(tt.b)); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	}
	if got := UnifiedDiff("f.yaml", []byte("a\n"), []byte("a\n")); got != "" {
		t.Errorf("equal inputs gave a diff:\n%s", got)
	}
}

// TestMyersMinimal checks edit scripts against an LCS table on random
// inputs: the script must rebuild both sides and be as short as possible.
func TestMyersMinimal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	words := func() []string {
		s := make([]string, r.Intn(12))
		for i := range s {
			s[i] = string(rune('a' + r.Intn(4)))
		}
		return s
	}
	for i := 0; i < 2000; i++ {
		a, b := words(), words()
		ops := diffLines(a, b)
		var ga, gb []string
		changes := 0
		for _, o := range ops {
			if o.kind != opInsert {
				ga = append(ga, o.text)
			}
			if o.kind != opDelete {
				gb = append(gb, o.text)
			}
			if o.kind != opEqual {
				changes++
			}
		}
		if strings.Join(ga, "") != strings.Join(a, "") || strings.Join(gb, "") != strings.Join(b, "") {
			t.Fatalf("%q -> %q: script %v does not rebuild the inputs", a, b, ops)
		}
		if want := len(a) + len(b) - 2*lcs(a, b); changes != want {
			t.Fatalf("%q -> %q: %d changes, want %d", a, b, changes, want)
		}
	}
}

func lcs(a, b []string) int {
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	return t[0][0]
}

// TestDiffAppliesWithPatch feeds random diffs to GNU patch, when it is
// installed, to check that the hunks are well-formed.
func TestDiffAppliesWithPatch(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch not installed")
	}
	r := rand.New(rand.NewSource(2))
	text := func() string {
		var lines []string
		for range 5 + r.Intn(40) {
			lines = append(lines, string(rune('a'+r.Intn(6))))
		}
		s := strings.Join(lines, "\n")
		if r.Intn(4) > 0 {
			s += "\n"
		}
		return s
	}
	for i := 0; i < 30; i++ {
		a, b := text(), text()
		dir := t.TempDir()
		file := filepath.Join(dir, "f.txt")
		if err := os.WriteFile(file, []byte(a), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("patch", "-p1", "--quiet", "--no-backup-if-mismatch")
		cmd.Dir = dir
		cmd.Stdin = strings.NewReader(UnifiedDiff("f.txt", []byte(a), []byte(b)))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch failed: %v\n%s\ndiff:\n%s", err, out, UnifiedDiff("f.txt", []byte(a), []byte(b)))
		}
		got, _ := os.ReadFile(file)
		if string(got) != b {
			t.Fatalf("patched %q, want %q", got, b)
		}
	}
}
