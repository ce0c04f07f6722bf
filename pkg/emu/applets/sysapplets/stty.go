package sysapplets

import (
	"context"
	"fmt"

	"github.com/winkube/winkube/pkg/emu/applets/kit"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Stty reports the terminal on stdin: "size" prints rows and columns,
// no operand or -a the settings with them. Settings cannot be changed
// (the emulated terminal has no line discipline), so other operands are
// accepted and change nothing, as on a terminal that ignores them.
func Stty(_ context.Context, p *program.Proc) int {
	if p.Term == nil {
		kit.Errorf(p, "standard input: Not a tty")
		return 1
	}
	rows, cols := p.Term.Size()
	args := p.Args[1:]
	switch {
	case len(args) == 1 && args[0] == "size":
		fmt.Fprintf(p.Stdout, "%d %d\n", rows, cols)
	case len(args) == 0:
		fmt.Fprintf(p.Stdout, "speed 38400 baud; rows %d; columns %d; line = 0;\n", rows, cols)
	case len(args) == 1 && args[0] == "-a":
		fmt.Fprintf(p.Stdout, "speed 38400 baud; rows %d; columns %d; line = 0;\n"+
			"intr = ^C; quit = ^\\; erase = ^?; kill = ^U; eof = ^D; eol = <undef>; eol2 = <undef>; swtch = <undef>; start = ^Q;\n"+
			"stop = ^S; susp = ^Z; rprnt = ^R; werase = ^W; lnext = ^V; flush = ^O; min = 1; time = 0;\n"+
			"-parenb -parodd cs8 -hupcl -cstopb cread -clocal -crtscts\n"+
			"-ignbrk -brkint -ignpar -parmrk -inpck -istrip -inlcr -igncr icrnl ixon -ixoff -iuclc -ixany -imaxbel -iutf8\n"+
			"opost -olcuc -ocrnl onlcr -onocr -onlret -ofill -ofdel nl0 cr0 tab0 bs0 vt0 ff0\n"+
			"isig icanon iexten echo echoe echok -echonl -noflsh -xcase -tostop -echoprt echoctl echoke\n", rows, cols)
	}
	return 0
}
