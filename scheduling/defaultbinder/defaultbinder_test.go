package defaultbinder

import (
	"context"
	"errors"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// dbBinder is a handle whose Binder accepts every binding, or refuses
// with err.
type dbBinder struct {
	framework.Handle
	err error
}

func (h dbBinder) Binder() framework.Binder { return h }

func (h dbBinder) Bind(*framework.CycleState, *framework.PodInfo, string) error { return h.err }

func (h dbBinder) BindPodVolumes(*framework.CycleState, string, *api.PodVolumes) error { return nil }

func (h dbBinder) Forked() bool { return false }

// TestBind: the binding goes through the handle's Binder, whose refusal
// (no scheduler) is an Error naming the package; a pod assumed on another
// node is an Error; args are refused.
func TestBind(t *testing.T) {
	base := framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
	pending := framework.MustPodInfo(st.MakePod().Name("p").Obj())
	assumed := framework.MustPodInfo(st.MakePod().Name("p").Node("n1").Obj())
	for _, tc := range []struct {
		name string
		h    framework.Handle
		pod  *framework.PodInfo
		want string
	}{
		{"binds", dbBinder{Handle: base}, pending, ""},
		{"binds the assumed pod", dbBinder{Handle: base}, assumed, ""},
		{"assumed elsewhere", dbBinder{Handle: base}, framework.MustPodInfo(st.MakePod().Name("p").Node("n2").Obj()),
			`defaultbinder: pod default/p is assumed on node "n2", not "n1"`},
		{"binder refuses", dbBinder{Handle: base, err: errors.New("no")}, pending, "defaultbinder: no"},
		{"no scheduler", base, pending, `defaultbinder: framework: Bind of pod default/p to node "n1": no scheduler runs the framework`},
		{"no handle", nil, pending, "defaultbinder: pod default/p: no handle to bind through"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(nil, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			st := pl.(framework.BindPlugin).Bind(context.Background(), framework.NewCycleState(), tc.pod, "n1")
			if st.Message() != tc.want || st.IsSuccess() != (tc.want == "") || (!st.IsSuccess() && st.Code() != framework.Error) {
				t.Errorf("Bind = %v, want %q", st, tc.want)
			}
		})
	}
	if _, err := New("args", nil); err == nil {
		t.Error("New accepted args")
	}
}
