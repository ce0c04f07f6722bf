package winexe

import (
	"context"

	"github.com/winkube/winkube/pkg/emu/netapplets"
	"github.com/winkube/winkube/pkg/emu/program"
)

// Curl is curl.exe, the same curl as Linux images ship: its option
// table and behaviour live in netapplets.
func Curl(ctx context.Context, p *program.Proc) int { return netapplets.Curl(ctx, p) }
