package framework

import (
	"flag"
	"strings"
	"testing"
)

func TestParseKubeVersion(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    KubeVersion
		wantErr string
	}{
		{in: "1.36", want: KubeV136},
		{in: "v1.36", want: KubeV136},
		{in: "v1.36.4", want: KubeV136},
		{in: " 1.37 ", want: KubeV137},
		{in: "v1.37.2", want: KubeV137},
		{in: "1.35", wantErr: `kube version "1.35": not a release schedkit reproduces (v1.36, v1.37)`},
		{in: "", wantErr: `kube version ""`},
		{in: "2.37", wantErr: `kube version "2.37"`},
		{in: "v1.37.2.1", wantErr: `kube version "v1.37.2.1"`},
	} {
		got, err := ParseKubeVersion(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("ParseKubeVersion(%q) error = %v, want prefix %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseKubeVersion(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestKubeVersionOrderAndFlag(t *testing.T) {
	if !KubeV137.AtLeast(KubeV136) || KubeV136.AtLeast(KubeV137) || !KubeV136.AtLeast(KubeV136) {
		t.Error("AtLeast does not order v1.36 before v1.37")
	}
	if DefaultKubeVersion != KubeV137 {
		t.Errorf("DefaultKubeVersion = %v, want the newest release v1.37", DefaultKubeVersion)
	}
	if (KubeVersion{}).String() != "" || !(KubeVersion{}).IsZero() || KubeV136.IsZero() {
		t.Error("the zero value must name no release")
	}
	v := DefaultKubeVersion
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.Var(&v, "kube-version", "")
	if err := fs.Parse([]string{"-kube-version", "1.36"}); err != nil || v != KubeV136 {
		t.Errorf("flag: %v, %v", v, err)
	}
	var u KubeVersion
	if err := u.UnmarshalText([]byte("v1.37")); err != nil || u != KubeV137 {
		t.Errorf("UnmarshalText: %v, %v", u, err)
	}
	if b, _ := KubeV136.MarshalText(); string(b) != "v1.36" {
		t.Errorf("MarshalText = %q", b)
	}
}
