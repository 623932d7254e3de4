package framework

import "github.com/schedkit/schedkit/framework/api"

// DefaultBindAllHostIP is the wildcard host IP.
const DefaultBindAllHostIP = "0.0.0.0"

// ProtocolPort is a protocol and port pair.
type ProtocolPort struct {
	Protocol api.Protocol
	Port     int32
}

// HostPortInfo records the host ports in use on a node, by host IP, with
// kube-scheduler's wildcard rules: 0.0.0.0 conflicts with every IP, and a
// specific IP conflicts with itself and with 0.0.0.0. An empty IP means
// 0.0.0.0 and an empty protocol means TCP.
//
// Unlike kube's HostPortInfo, which is a set, each entry counts its uses:
// when two pods on a node bind the same (ip, protocol, port), removing one
// keeps the port in use. Conflict answers are the same as kube's whenever
// no port is recorded twice.
type HostPortInfo map[string]map[ProtocolPort]int

// HostPortKey returns the host IP and the protocol and port under which
// HostPortInfo records (ip, proto, port): an empty IP is 0.0.0.0, an
// empty protocol TCP.
func HostPortKey(ip string, proto api.Protocol, port int32) (string, ProtocolPort) {
	ip, proto = sanitize(ip, proto)
	return ip, ProtocolPort{proto, port}
}

func sanitize(ip string, proto api.Protocol) (string, api.Protocol) {
	if ip == "" {
		ip = DefaultBindAllHostIP
	}
	if proto == "" {
		proto = api.ProtocolTCP
	}
	return ip, proto
}

// Add records one use of (ip, protocol, port). Ports ≤ 0 are ignored.
func (h HostPortInfo) Add(ip string, proto api.Protocol, port int32) {
	if port <= 0 {
		return
	}
	ip, proto = sanitize(ip, proto)
	m := h[ip]
	if m == nil {
		m = map[ProtocolPort]int{}
		h[ip] = m
	}
	m[ProtocolPort{proto, port}]++
}

// Remove undoes one Add.
func (h HostPortInfo) Remove(ip string, proto api.Protocol, port int32) {
	if port <= 0 {
		return
	}
	ip, proto = sanitize(ip, proto)
	m := h[ip]
	if m == nil {
		return
	}
	pp := ProtocolPort{proto, port}
	if m[pp] <= 1 {
		delete(m, pp)
	} else {
		m[pp]--
	}
	if len(m) == 0 {
		delete(h, ip)
	}
}

// Len returns the number of distinct (ip, protocol, port) entries.
func (h HostPortInfo) Len() int {
	n := 0
	for _, m := range h {
		n += len(m)
	}
	return n
}

// CheckConflict reports whether (ip, protocol, port) conflicts with a
// recorded port.
func (h HostPortInfo) CheckConflict(ip string, proto api.Protocol, port int32) bool {
	if port <= 0 {
		return false
	}
	ip, proto = sanitize(ip, proto)
	pp := ProtocolPort{proto, port}
	if ip == DefaultBindAllHostIP {
		for _, m := range h {
			if m[pp] > 0 {
				return true
			}
		}
		return false
	}
	for _, key := range [2]string{DefaultBindAllHostIP, ip} {
		if m := h[key]; m[pp] > 0 {
			return true
		}
	}
	return false
}

// Clone returns a deep copy.
func (h HostPortInfo) Clone() HostPortInfo {
	c := make(HostPortInfo, len(h))
	for ip, m := range h {
		mm := make(map[ProtocolPort]int, len(m))
		for k, v := range m {
			mm[k] = v
		}
		c[ip] = mm
	}
	return c
}
