package dnsutils

import (
	"context"
	"fmt"
	"strings"

	miekg "github.com/miekg/dns"

	"github.com/winkube/winkube/pkg/emu/program"
)

// dig's exit statuses (dig(1) "RETURN CODES").
const (
	exitOK      = 0
	exitUsage   = 1
	exitNoReply = 9
)

// digOpts is one dig command line.
type digOpts struct {
	name   string
	qtype  uint16
	server string
	tcp    bool
	search bool
	short  bool
	// sections printed: comments (header), question, answer, authority,
	// additional, stats.
	comments, question, answer, authority, additional, stats bool
}

// Dig is dig(1) for the query options the e2e probers use: @server,
// -x ADDR, -t TYPE, a TYPE word, +[no]tcp, +[no]vc, +[no]search,
// +[no]all, +[no]answer and the other section switches, +short.
// Unknown + options are ignored, as the probers never rely on them.
func Dig(ctx context.Context, p *program.Proc) int {
	o, err := parseDig(p.Args[1:])
	if err != nil {
		fmt.Fprintf(p.Stderr, "%v\n", err)
		return exitUsage
	}
	conf := resolvConf(p)
	if o.server == "" {
		o.server = "127.0.0.1"
		if len(conf.Servers) > 0 {
			o.server = conf.Servers[0]
		}
	}
	reply, code := query(ctx, p, o, names(o, conf))
	if reply != nil {
		printReply(p, o, reply)
	}
	return code
}

func parseDig(args []string) (*digOpts, error) {
	o := &digOpts{qtype: miekg.TypeA, comments: true, question: true, answer: true,
		authority: true, additional: true, stats: true}
	typed := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case strings.HasPrefix(a, "+"):
			o.plus(strings.ToLower(a[1:]))
		case strings.HasPrefix(a, "@"):
			o.server = a[1:]
		case a == "-x" && i+1 < len(args):
			i++
			rev, err := miekg.ReverseAddr(args[i])
			if err != nil {
				return nil, fmt.Errorf("Invalid IP address %s", args[i])
			}
			o.name, o.qtype, typed = rev, miekg.TypePTR, true
		case a == "-t" && i+1 < len(args):
			i++
			t, ok := miekg.StringToType[strings.ToUpper(args[i])]
			if !ok {
				return nil, fmt.Errorf("invalid type: %s", args[i])
			}
			o.qtype, typed = t, true
		case strings.HasPrefix(a, "-"):
			// -4, -6, -q NAME and the like: nothing the emulation changes.
		default:
			if t, ok := miekg.StringToType[strings.ToUpper(a)]; ok && o.name != "" && !typed {
				o.qtype, typed = t, true
				continue
			}
			o.name = a
		}
	}
	if o.name == "" {
		o.name, o.qtype = ".", miekg.TypeNS
	}
	return o, nil
}

// plus applies one +option.
func (o *digOpts) plus(opt string) {
	on := !strings.HasPrefix(opt, "no")
	opt = strings.TrimPrefix(opt, "no")
	switch opt {
	case "tcp", "vc":
		o.tcp = on
	case "search":
		o.search = on
	case "short":
		o.short = on
	case "all":
		o.comments, o.question, o.answer, o.authority, o.additional, o.stats = on, on, on, on, on, on
	case "answer":
		o.answer = on
	case "question":
		o.question = on
	case "authority":
		o.authority = on
	case "additional":
		o.additional = on
	case "comments":
		o.comments = on
	case "stats":
		o.stats = on
	}
}

// names are the names dig asks in turn: with +search the resolver's
// search list (ndots decides whether the name as given comes first),
// else the name alone.
func names(o *digOpts, conf *miekg.ClientConfig) []string {
	if !o.search || miekg.IsFqdn(o.name) {
		return []string{miekg.Fqdn(o.name)}
	}
	return conf.NameList(o.name)
}
