// Package mdblock reads the fenced code blocks of Markdown pages, for the
// tests that run or check the commands the docs show.
package mdblock

import (
	"bufio"
	"os"
	"slices"
)

// Line is one line of a block with its 1-based line number in the page.
type Line struct {
	No   int
	Text string
}

// Lines are the lines of the page's blocks fenced as one of langs (```sh
// when langs is "sh"), in page order; open says the page ends inside such
// a block.
func Lines(path string, langs ...string) (lines []Line, open bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	no := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		no++
		text := sc.Text()
		switch {
		case !open && len(text) > 3 && text[:3] == "```" && slices.Contains(langs, text[3:]):
			open = true
		case open && text == "```":
			open = false
		case open:
			lines = append(lines, Line{No: no, Text: text})
		}
	}
	return lines, open, sc.Err()
}
