package lang

import "testing"

// @name is splatting only as a command argument (about_Splatting).
func TestSplat(t *testing.T) {
	for src, want := range map[string]string{
		"Get-Item @params -Force": "(cmd 'Get-Item' @params -Force)",
		"f @PSBoundParameters":    "(cmd 'f' @PSBoundParameters)",
		"$a = @{ x = 1 }":         "(= $a @{'x'=1})",
	} {
		if got := parseIn(t, src, false); got != want {
			t.Errorf("%s:\n got %s\nwant %s", src, got, want)
		}
	}
}
