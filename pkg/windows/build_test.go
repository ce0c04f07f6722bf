package windows

import "testing"

func TestParseBuild(t *testing.T) {
	// rule: SCH-1, KLT-1
	tests := []struct {
		in        string
		want      Build
		wantStr   string
		wantLabel string
		wantErr   bool
	}{
		{in: "10.0.17763", want: Build{10, 0, 17763, 0}, wantStr: "10.0.17763", wantLabel: "10.0.17763"},
		{in: "10.0.17763.5329", want: Build{10, 0, 17763, 5329}, wantStr: "10.0.17763.5329", wantLabel: "10.0.17763"},
		{in: " 10.0.20348.2227 ", want: Build{10, 0, 20348, 2227}, wantStr: "10.0.20348.2227", wantLabel: "10.0.20348"},
		{in: "10.0.20348.0", want: Build{10, 0, 20348, 0}, wantStr: "10.0.20348", wantLabel: "10.0.20348"},
		{in: "", wantErr: true},
		{in: "17763", wantErr: true},
		{in: "10.0", wantErr: true},
		{in: "10.0.17763.1.2", wantErr: true},
		{in: "10.0.x", wantErr: true},
		{in: "10.0.-1", wantErr: true},
		{in: "10..17763", wantErr: true},
		{in: "10.0.+17763", wantErr: true},
		{in: "10.0.99999999999999999999999", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseBuild(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseBuild(%q) = %v, want error", tt.in, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseBuild(%q): %v", tt.in, err)
			}
			if got != tt.want || got.String() != tt.wantStr || got.Label() != tt.wantLabel {
				t.Errorf("ParseBuild(%q) = %#v (%s, %s), want %#v (%s, %s)", tt.in, got, got, got.Label(), tt.want, tt.wantStr, tt.wantLabel)
			}
		})
	}
}

func TestBuildCompare(t *testing.T) {
	// rule: IMG-2 (ordering used to pick the highest revision)
	tests := []struct {
		a, b Build
		want int
	}{
		{Build{10, 0, 17763, 1}, Build{10, 0, 17763, 2}, -1},
		{Build{10, 0, 20348, 0}, Build{10, 0, 17763, 9999}, 1},
		{Build{10, 0, 17763, 5}, Build{10, 0, 17763, 5}, 0},
		{Build{6, 3, 9600, 0}, Build{10, 0, 1, 0}, -1},
	}
	for _, tt := range tests {
		if got := tt.a.Compare(tt.b); got != tt.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
