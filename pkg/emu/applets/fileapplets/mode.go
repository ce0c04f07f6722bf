package fileapplets

import (
	"io/fs"
	"strconv"
	"strings"
)

// parseMode applies an octal or symbolic (u+x,go-w,a=r) mode to cur.
func parseMode(spec string, cur fs.FileMode, dir bool) (fs.FileMode, bool) {
	special := fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky
	if v, err := strconv.ParseUint(spec, 8, 32); err == nil {
		if v > 0o7777 {
			return 0, false
		}
		m := fs.FileMode(v & 0o777)
		if v&0o4000 != 0 {
			m |= fs.ModeSetuid
		}
		if v&0o2000 != 0 {
			m |= fs.ModeSetgid
		}
		if v&0o1000 != 0 {
			m |= fs.ModeSticky
		}
		return m, true
	}
	m := cur & (fs.ModePerm | special)
	for _, clause := range strings.Split(spec, ",") {
		i := 0
		var who fs.FileMode
		for ; i < len(clause) && strings.IndexByte("ugoa", clause[i]) >= 0; i++ {
			who |= map[byte]fs.FileMode{'u': 0o4700, 'g': 0o2070, 'o': 0o1007, 'a': 0o7777}[clause[i]]
		}
		if who == 0 {
			who = 0o7777 &^ 0o022
		}
		if i >= len(clause) {
			return 0, false
		}
		for i < len(clause) {
			op := clause[i]
			if op != '+' && op != '-' && op != '=' {
				return 0, false
			}
			i++
			var bits fs.FileMode
			for ; i < len(clause) && strings.IndexByte("rwxXst", clause[i]) >= 0; i++ {
				switch clause[i] {
				case 'r':
					bits |= 0o444
				case 'w':
					bits |= 0o222
				case 'x':
					bits |= 0o111
				case 'X':
					if dir || m&0o111 != 0 {
						bits |= 0o111
					}
				case 's':
					bits |= 0o6000
				case 't':
					bits |= 0o1000
				}
			}
			m = applyBits(m, op, bits&who, who)
		}
	}
	return m, true
}

// applyBits works on the classic 12-bit layout and maps back.
func applyBits(m fs.FileMode, op byte, bits, who fs.FileMode) fs.FileMode {
	cur := m & fs.ModePerm
	if m&fs.ModeSetuid != 0 {
		cur |= 0o4000
	}
	if m&fs.ModeSetgid != 0 {
		cur |= 0o2000
	}
	if m&fs.ModeSticky != 0 {
		cur |= 0o1000
	}
	switch op {
	case '+':
		cur |= bits
	case '-':
		cur &^= bits
	case '=':
		cur = cur&^who | bits
	}
	out := cur & fs.ModePerm
	if cur&0o4000 != 0 {
		out |= fs.ModeSetuid
	}
	if cur&0o2000 != 0 {
		out |= fs.ModeSetgid
	}
	if cur&0o1000 != 0 {
		out |= fs.ModeSticky
	}
	return out
}
