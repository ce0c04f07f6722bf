package windows

import (
	"testing"
)

func TestGracePeriod(t *testing.T) {
	// rule: LIM-14
	tests := []struct {
		runtime   string
		requested int64
		want      int64
	}{
		{"containerd", 30, 30},
		{"containerd", 300, 300},
		{"containerd://1.7.13", 120, 120},
		{"docker", 30, 5},
		{"docker://19.3.14", 30, 5},
		{"Docker", 3, 3},
		{"docker", 5, 5},
		{"docker", 0, 0},
		{"containerd", -1, 0},
		{"", 30, 30},
	}
	for _, tt := range tests {
		if got := GracePeriod(tt.runtime, tt.requested); got != tt.want {
			t.Errorf("GracePeriod(%q, %d) = %d, want %d", tt.runtime, tt.requested, got, tt.want)
		}
	}
}
