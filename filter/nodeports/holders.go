package nodeports

import (
	"sync"
	"weak"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// holders keeps, for the protocols and ports recent pods asked for, the
// nodes of one snapshot whose pods bind that port on some host IP, as a
// bitmap by snapshot node index: what a pod asking for the port on every
// IP (0.0.0.0, the default) conflicts with, and the only nodes where a pod
// asking for it on one IP can. The bitmaps are brought up to date with
// the nodes the snapshot's change journal names (Snapshot.ChangedSince),
// so a cycle costs a few words per changed node rather than a read of
// every node's ports. A bitmap handed out is never written again: a
// change replaces it.
type holders struct {
	mu sync.Mutex
	// snap is the snapshot the bitmaps are of, held weakly: the plugin
	// does not keep a snapshot its owner dropped.
	snap weak.Pointer[framework.Snapshot]
	seq  uint64
	byPP map[framework.ProtocolPort][]uint64
	buf  []int32
}

// maxHeldPorts bounds the ports holders keeps bitmaps for; past it, the
// bitmaps start over.
const maxHeldPorts = 64

// conflicts returns the bitmaps (by snapshot node index) of the nodes
// where the ports may conflict, for snap as it is now: sure, the nodes
// where some port asked for on every IP is bound (a conflict whatever the
// IPs); maybe, the nodes where a port asked for on one IP is bound on
// some IP (a conflict only if on 0.0.0.0 or that IP: to be checked). Nil
// bitmaps are empty.
func (h *holders) conflicts(snap *framework.Snapshot, ports []api.ContainerPort) (sure, maybe []uint64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.catchUp(snap)
	for i := range ports {
		p := &ports[i]
		ip, pp := framework.HostPortKey(p.HostIP, p.Protocol, p.HostPort)
		b := h.bitmap(snap, pp)
		if ip == framework.DefaultBindAllHostIP {
			sure = or(sure, b)
		} else {
			maybe = or(maybe, b)
		}
	}
	return sure, maybe
}

// or returns a | b, a new slice unless one of them is empty (b is
// returned as it is then: bitmaps are not written once handed out).
func or(a, b []uint64) []uint64 {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	}
	out := make([]uint64, max(len(a), len(b)))
	copy(out, a)
	for w, x := range b {
		out[w] |= x
	}
	return out
}

// catchUp brings the bitmaps to snap's state: the nodes changed since
// they were last brought up to date are read again, or, for another
// snapshot or too many changes, the bitmaps start over.
func (h *holders) catchUp(snap *framework.Snapshot) {
	seq, same := snap.ChangeSeq(), h.snap.Value() == snap
	if same && h.seq == seq {
		return
	}
	var ok bool
	if same && len(h.byPP) <= maxHeldPorts {
		h.buf, ok = snap.ChangedSince(h.seq, h.buf[:0])
	}
	if !same {
		h.snap = weak.Make(snap)
	}
	h.seq = seq
	if !ok {
		h.byPP = nil
		return
	}
	nodes := snap.Nodes()
	for pp, b := range h.byPP {
		var nb []uint64           // b's copy, once a bit changes
		for _, k := range h.buf { // a node changed twice is listed twice
			held := int(k) < len(nodes) && bound(nodes[k].UsedPorts, pp)
			cur := b
			if nb != nil {
				cur = nb
			}
			if has(cur, k) == held {
				continue
			}
			if nb == nil {
				nb = make([]uint64, max(len(b), (len(nodes)+63)/64))
				copy(nb, b)
			}
			nb[k>>6] ^= 1 << (k & 63) // the bit differs from held
		}
		if nb != nil {
			h.byPP[pp] = nb
		}
	}
}

// bitmap returns pp's bitmap over snap (the snapshot caught up with),
// reading the nodes that bind any host port when it is not kept.
func (h *holders) bitmap(snap *framework.Snapshot, pp framework.ProtocolPort) []uint64 {
	if b, ok := h.byPP[pp]; ok {
		return b
	}
	if h.byPP == nil || len(h.byPP) >= maxHeldPorts {
		h.byPP = map[framework.ProtocolPort][]uint64{}
	}
	nodes, res := snap.Nodes(), snap.Resources()
	var b []uint64
	for k, ni := range nodes {
		if !res[k].HostPorts || !bound(ni.UsedPorts, pp) {
			continue
		}
		if b == nil {
			b = make([]uint64, (len(nodes)+63)/64)
		}
		b[k>>6] |= 1 << (k & 63)
	}
	h.byPP[pp] = b
	return b
}

// bound reports whether used binds pp on some host IP: what a pod asking
// for it on 0.0.0.0 conflicts with.
func bound(used framework.HostPortInfo, pp framework.ProtocolPort) bool {
	return used.CheckConflict(framework.DefaultBindAllHostIP, pp.Protocol, pp.Port)
}

// has reports whether bit k of b is set.
func has(b []uint64, k int32) bool {
	w := int(k) >> 6
	return w < len(b) && b[w]&(1<<(k&63)) != 0
}
