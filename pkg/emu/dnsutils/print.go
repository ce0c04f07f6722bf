package dnsutils

import (
	"fmt"
	"strings"

	miekg "github.com/miekg/dns"

	"github.com/winkube/winkube/pkg/emu/program"
)

// printReply prints the sections of reply the options ask for, in dig's
// presentation format (name, TTL, class, type and data, tab-separated).
func printReply(p *program.Proc, o *digOpts, reply *miekg.Msg) {
	if o.short {
		for _, rr := range reply.Answer {
			fmt.Fprintln(p.Stdout, rdata(rr))
		}
		return
	}
	if o.comments {
		fmt.Fprintln(p.Stdout, ";; Got answer:")
		fmt.Fprintln(p.Stdout, header(reply))
	}
	if o.question {
		section(p, o.comments, "QUESTION", questions(reply))
	}
	sections := []struct {
		on    bool
		title string
		rrs   []miekg.RR
	}{
		{o.answer, "ANSWER", reply.Answer},
		{o.authority, "AUTHORITY", reply.Ns},
		{o.additional, "ADDITIONAL", reply.Extra},
	}
	for _, s := range sections {
		if s.on {
			section(p, o.comments, s.title, records(s.rrs))
		}
	}
}

// header is the ->>HEADER<<- and flags lines.
func header(m *miekg.Msg) string {
	h := m.MsgHdr.String()
	h = strings.Replace(h, ";; opcode:", ";; ->>HEADER<<- opcode:", 1)
	return strings.TrimRight(h, "\n") + fmt.Sprintf("; QUERY: %d, ANSWER: %d, AUTHORITY: %d, ADDITIONAL: %d\n",
		len(m.Question), len(m.Answer), len(m.Ns), len(m.Extra))
}

func section(p *program.Proc, comments bool, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	if comments {
		fmt.Fprintf(p.Stdout, ";; %s SECTION:\n", title)
	}
	for _, l := range lines {
		fmt.Fprintln(p.Stdout, l)
	}
	if comments {
		fmt.Fprintln(p.Stdout)
	}
}

func questions(m *miekg.Msg) []string {
	var out []string
	for _, q := range m.Question {
		out = append(out, q.String())
	}
	return out
}

func records(rrs []miekg.RR) []string {
	var out []string
	for _, rr := range rrs {
		if rr.Header().Rrtype == miekg.TypeOPT {
			continue
		}
		out = append(out, rr.String())
	}
	return out
}

// rdata is a record's data alone, as +short prints it.
func rdata(rr miekg.RR) string {
	return strings.TrimPrefix(rr.String(), rr.Header().String())
}
