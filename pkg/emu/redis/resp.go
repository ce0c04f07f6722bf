package redis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The client side of RESP, as redis-cli needs it: a command is an array of
// bulk strings; a reply is read whole into a tree, keeping the kind of
// each value (a status and a bulk string print differently on a
// terminal). RESP3's types are read too, though redis-cli asks for RESP2.

// reply is one RESP value. kind is its type byte; nil values (a null bulk
// string or array, RESP3's _) have kind '_'. A map's elems are its keys
// and values in turn, as hiredis gives them.
type reply struct {
	kind  byte
	str   string
	num   int64
	elems []reply
}

var errProtocol = errors.New("Protocol error")

// encode is cmd as a RESP array of bulk strings.
func encode(cmd []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(cmd))
	for _, a := range cmd {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return []byte(b.String())
}

// readReply reads one reply.
func readReply(r *bufio.Reader) (reply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return reply{}, err
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if line == "" {
		return reply{}, errProtocol
	}
	kind, rest := line[0], line[1:]
	switch kind {
	case '+', '-', ',':
		return reply{kind: kind, str: rest}, nil
	case ':':
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			return reply{}, errProtocol
		}
		return reply{kind: kind, num: n}, nil
	case '#':
		return reply{kind: kind, num: map[bool]int64{true: 1}[rest == "t"]}, nil
	case '_':
		return reply{kind: '_'}, nil
	case '$', '=':
		n, err := strconv.Atoi(rest)
		if err != nil {
			return reply{}, errProtocol
		}
		if n < 0 {
			return reply{kind: '_'}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return reply{}, err
		}
		return reply{kind: '$', str: string(buf[:n])}, nil
	case '*', '~', '>', '%':
		n, err := strconv.Atoi(rest)
		if err != nil {
			return reply{}, errProtocol
		}
		if n < 0 {
			return reply{kind: '_'}, nil
		}
		if kind == '%' {
			n *= 2
		}
		out := reply{kind: kind, elems: make([]reply, 0, min(n, 1024))}
		for i := 0; i < n; i++ {
			e, err := readReply(r)
			if err != nil {
				return reply{}, err
			}
			out.elems = append(out.elems, e)
		}
		return out, nil
	}
	return reply{}, errProtocol
}

// formatTTY is cliFormatReplyTTY: redis-cli's output on a terminal, with
// (integer), (nil), (error), quoted strings and numbered, indented
// aggregates.
func formatTTY(r reply, prefix string) string {
	switch r.kind {
	case '-':
		return "(error) " + r.str + "\n"
	case '+':
		return r.str + "\n"
	case ':':
		return fmt.Sprintf("(integer) %d\n", r.num)
	case ',':
		return "(double) " + r.str + "\n"
	case '$':
		return repr(r.str) + "\n"
	case '_':
		return "(nil)\n"
	case '#':
		if r.num != 0 {
			return "(true)\n"
		}
		return "(false)\n"
	}
	if len(r.elems) == 0 {
		return map[byte]string{'*': "(empty array)\n", '%': "(empty hash)\n", '~': "(empty set)\n", '>': "(empty push)\n"}[r.kind]
	}
	n := len(r.elems)
	if r.kind == '%' {
		n /= 2
	}
	idxlen := len(strconv.Itoa(n))
	sub := prefix + strings.Repeat(" ", idxlen+2)
	sep := byte(')')
	switch r.kind {
	case '~':
		sep = '~'
	case '%':
		sep = '#'
	}
	var b strings.Builder
	for i := 0; i < len(r.elems); i++ {
		human := i + 1
		if r.kind == '%' {
			human = i/2 + 1
		}
		p := prefix
		if i == 0 {
			p = ""
		}
		fmt.Fprintf(&b, "%s%*d%c ", p, idxlen, human, sep)
		b.WriteString(formatTTY(r.elems[i], sub))
		if r.kind == '%' {
			i++
			s := strings.TrimSuffix(b.String(), "\n")
			b.Reset()
			b.WriteString(s + " => ")
			if multiline(r.elems[i]) {
				b.WriteString("\n" + sub)
			}
			b.WriteString(formatTTY(r.elems[i], sub))
		}
	}
	return b.String()
}

// multiline is cliIsMultilineValueTTY.
func multiline(r reply) bool {
	switch r.kind {
	case '*', '~', '>':
		return len(r.elems) > 1 || (len(r.elems) == 1 && multiline(r.elems[0]))
	case '%':
		return len(r.elems) > 2 || (len(r.elems) == 2 && multiline(r.elems[1]))
	}
	return false
}

// formatRaw is cliFormatReplyRaw: what redis-cli prints when its output
// is not a terminal: values bare, an aggregate's one a line, nil as
// nothing, an error's text with a newline.
func formatRaw(r reply) string {
	switch r.kind {
	case '_':
		return ""
	case '-':
		return r.str + "\n"
	case '+', '$', ',':
		return r.str
	case ':':
		return strconv.FormatInt(r.num, 10)
	case '#':
		if r.num != 0 {
			return "(true)"
		}
		return "(false)"
	case '%':
		var parts []string
		for i := 0; i+1 < len(r.elems); i += 2 {
			parts = append(parts, formatRaw(r.elems[i])+" "+formatRaw(r.elems[i+1]))
		}
		return strings.Join(parts, "\n")
	}
	parts := make([]string, len(r.elems))
	for i, e := range r.elems {
		parts[i] = formatRaw(e)
	}
	return strings.Join(parts, "\n")
}
