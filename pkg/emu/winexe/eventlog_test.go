package winexe

import (
	"testing"

	"github.com/winkube/winkube/pkg/emu/winexe/wintest"
)

func TestEventcreate(t *testing.T) {
	sys := wintest.Sys(Table())
	sys.User.Account = "ContainerAdministrator"
	out, errOut, code := run(t, sys, "", "eventcreate", "/T", "ERROR", "/ID", "100", "/L", "APPLICATION", "/SO", "MyScript", "/D", "backup failed")
	if out != "SUCCESS: An event of type 'ERROR' was created in the 'Application' log with 'MyScript' as the source.\r\n" || errOut != "" || code != 0 {
		t.Fatalf("eventcreate: (%d) %q %q", code, out, errOut)
	}
	out, _, _ = run(t, sys, "", "wevtutil", "qe", "Application", "/c:1", "/rd:true", "/f:text")
	want := "Event[0]:\r\n  Log Name: Application\r\n  Source: MyScript\r\n  Date: 2024-03-05T14:07:00.0000000Z\r\n  Event ID: 100\r\n" +
		"  Task: None\r\n  Level: Error\r\n  Opcode: Info\r\n  Keyword: Classic\r\n  User: S-1-5-93-2-1\r\n" +
		"  User Name: User Manager\\ContainerAdministrator\r\n  Computer: WIN-POD\r\n  Description: \r\nbackup failed\r\n\r\n"
	if out != want {
		t.Errorf("wevtutil qe printed\n%q\nwant\n%q", out, want)
	}
	for _, c := range []struct {
		args []string
		err  string
		code int
	}{
		{[]string{"eventcreate", "/T", "ERROR", "/ID", "1001", "/D", "x"}, "ERROR: Invalid ID. The ID must be in the range of 1 to 1000.\r\n", 1},
		{[]string{"eventcreate", "/ID", "1", "/D", "x"}, "ERROR: Invalid syntax. Mandatory option '/T' is missing.\r\nType \"EVENTCREATE /?\" for usage.\r\n", 1},
		{[]string{"eventcreate", "/T", "ERROR", "/ID", "1", "/SO", "MsiInstaller", "/D", "x"}, "ERROR: Source parameter is used to identify custom applications/scripts only (not installed applications).\r\n", 1},
		{[]string{"eventcreate", "/T", "ERROR", "/ID", "1", "/L", "SYSTEM", "/SO", "MyScript", "/D", "x"}, "ERROR: Source already exists in 'Application' log. Source cannot be duplicated.\r\n", 1},
		{[]string{"wevtutil", "qe", "NoSuchLog"}, "Failed to query log NoSuchLog. The specified channel could not be found.\r\n", 15007},
	} {
		if _, errOut, code := run(t, sys, "", c.args...); errOut != c.err || code != c.code {
			t.Errorf("%v: (%d) %q, want (%d) %q", c.args, code, errOut, c.code, c.err)
		}
	}
	if _, _, code := run(t, sys, "", "wevtutil", "cl", "Application"); code != 0 || sys.EventLog().Count("Application") != 0 {
		t.Errorf("wevtutil cl left %d entries (%d)", sys.EventLog().Count("Application"), code)
	}
}
